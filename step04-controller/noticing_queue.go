package main

import (
	"sync"

	"k8s.io/client-go/util/workqueue"
)

// noticingQueue 是 workqueue 最底層的儲存：預設的先進先出切片，外加一個記號，記下最近一次 Add（或 Done）
// 對它做了什麼。workqueue 的 Add 在自己的鎖裡：key 不在佇列、也沒在同步，就 Push（新的一份）；key 已經在
// 佇列裡等，就只 Touch（不會有第二份）；key 正在同步，兩者都不呼叫，只記下「Done 之後再交出去一次」，
// 到時 Done 再 Push 它。所以處理函式在 Add 之後讀這個記號，就知道這次 Add 的結果，不必猜（比較 Add
// 前後的 Len() 會跟同時取 key 的 worker 賽跑）。見 https://github.com/kubernetes/client-go/blob/v0.37.2/util/workqueue/queue.go
// 的 Add 與 Done。
//
// noticingQueue 的 Add 不只處理函式會呼叫：重試的延遲一到，延遲佇列自己的 goroutine 也會 Add 同一個
// key，worker 的 Done 也可能 Push 它。所以每一次走到基本佇列的 Add 與 Done 都拿同一把鎖（mu），處理函式的 Add 與讀記號
// 也在這把鎖裡：中間不會有別人的 Push 或 Touch。這把鎖只為了印出來的東西正確，控制器本身不需要它。
//
// noticingQueue is the workqueue's bottom layer of storage: the default
// FIFO slice, plus a note of what the latest Add (or Done) did to it. The
// workqueue's Add runs under its own lock: a key neither queued nor being
// synced is Pushed (a new entry); a key already waiting is only Touched (no
// second entry); for a key being synced it calls neither and only remembers
// to hand the key out once more after Done, which then Pushes it. So the
// handler reads the note after Add and knows what that Add did, with no
// guessing (comparing Len() before and after Add races with a worker taking
// keys at the same time). See Add and Done in
// https://github.com/kubernetes/client-go/blob/v0.37.2/util/workqueue/queue.go.
//
// noticingQueue has more callers than the handler: when a retry's delay is
// up, the delaying queue's own goroutine Adds the same key, and a worker's
// Done may Push it. So every Add and Done that reaches the basic queue takes one
// lock (mu), and the handler's Add and its reading of the note happen under
// it too: nobody else's Push or Touch comes in between. The lock exists only
// so that what is printed is right; the controller itself does not need it.
type noticingQueue struct {
	workqueue.Queue[string]
	mu    sync.Mutex
	last  added
	basic workqueue.TypedInterface[string]
	// requeued 在 Done 把正在同步時又變了的 key 放回佇列時呼叫（拿著 mu）。
	// requeued is called (under mu) when Done puts back a key that changed while it was being synced.
	requeued func(key string)
}

// added 是一次 Add（或 Done）對儲存做了什麼。
//
// added is what one Add (or Done) did to the storage.
type added int

const (
	// beingSynced：既沒有 Push 也沒有 Touch：key 正在同步，Done 之後會再交出去一次。
	// beingSynced: neither Push nor Touch: the key is being synced and is handed out again after Done.
	beingSynced added = iota
	// pushed：佇列裡多了一份。 / pushed: one more entry in the queue.
	pushed
	// merged：key 已經在佇列裡等，沒有第二份。 / merged: the key was already waiting; no second entry.
	merged
	// shuttingDown：佇列已經關閉，Add 什麼都沒做。 / shuttingDown: the queue is shut down and Add did nothing.
	shuttingDown
)

// newNoticingQueue 建立儲存與用它的基本佇列（名字 name，給 metrics），回傳儲存；延遲佇列要用 basicQueue 接上去。
//
// newNoticingQueue builds the storage and the basic queue that uses it
// (named name, for metrics) and returns the storage; the delaying queue is
// built on basicQueue.
func newNoticingQueue(name string, requeued func(key string)) *noticingQueue {
	q := &noticingQueue{Queue: workqueue.DefaultQueue[string](), requeued: requeued}
	q.basic = workqueue.NewTypedWithConfig(workqueue.TypedQueueConfig[string]{Name: name, Queue: q})
	return q
}

// basicQueue 是給延遲佇列（TypedDelayingQueueConfig.Queue）的基本佇列：它的 Add 與 Done 拿著 mu。
//
// basicQueue is the basic queue for the delaying queue
// (TypedDelayingQueueConfig.Queue): its Add and Done hold mu.
func (q *noticingQueue) basicQueue() workqueue.TypedInterface[string] { return serialised{q.basic, q} }

func (q *noticingQueue) Push(key string) {
	q.last = pushed
	q.Queue.Push(key)
}

func (q *noticingQueue) Touch(key string) {
	q.last = merged
	q.Queue.Touch(key)
}

// add 等同於 workqueue 的 Add(key)，再把這次 Add 的結果交給 say 印出來，全程拿著 mu：Add 一回來 worker
// 就可能取走 key，它透過 taken 報告「取走了」，taken 也要等 mu，所以輸出裡不會先看到 Get、才看到讓它被取走的那次 Add。
//
// add is the workqueue's Add(key), then hands what that Add did to say,
// which prints it, all under mu: a worker may take the key the moment Add
// returns, and it reports that through taken, which waits for mu too, so the
// output never shows a Get before the Add that made it possible.
func (q *noticingQueue) add(key string, say func(added)) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.basic.ShuttingDown() {
		say(shuttingDown)
		return
	}
	q.last = beingSynced
	q.basic.Add(key)
	say(q.last)
}

// taken 拿著 mu 呼叫 say：worker 用它印出「取走了 key」。
//
// taken calls say under mu: a worker prints "took the key" through it.
func (q *noticingQueue) taken(say func()) {
	q.mu.Lock()
	defer q.mu.Unlock()
	say()
}

// serialised 是拿著 mu 的基本佇列：延遲佇列的 Add（重試）與 worker 的 Done 都經過它。
//
// serialised is the basic queue under mu: the delaying queue's Add (a retry)
// and a worker's Done both go through it.
type serialised struct {
	workqueue.TypedInterface[string]
	q *noticingQueue
}

func (s serialised) Add(key string) {
	s.q.mu.Lock()
	defer s.q.mu.Unlock()
	s.TypedInterface.Add(key)
}

func (s serialised) Done(key string) {
	s.q.mu.Lock()
	defer s.q.mu.Unlock()
	s.q.last = beingSynced
	s.TypedInterface.Done(key)
	if s.q.last == pushed && s.q.requeued != nil {
		s.q.requeued(key)
	}
}
