package main

import (
	"sync"

	"k8s.io/client-go/util/workqueue"
)

// noticingQueue 是 workqueue 最底層的儲存：預設的先進先出切片，外加一份紀錄，記下每個 key
// 最近一次被加入時發生了什麼。workqueue 在自己的鎖裡呼叫它：key 不在佇列、也沒在同步，
// 就 Push（新的一份）；key 已經在佇列裡等，就只 Touch（不會有第二份）；key 正在同步，
// 兩者都不呼叫，只記下「Done 之後再交出去一次」。所以處理函式在 Add 之後讀這份紀錄，
// 就知道這次 Add 的結果，不必猜（比較 Add 前後的 Len() 會跟同時取 key 的 worker 賽跑）。
// 見 https://github.com/kubernetes/client-go/blob/v0.37.2/util/workqueue/queue.go 的 Add。
//
// noticingQueue is the workqueue's bottom layer of storage: the default FIFO
// slice, plus a note of what happened the last time each key was added. The
// workqueue calls it under its own lock: a key neither queued nor being
// synced is Pushed (a new entry); a key already waiting is only Touched (no
// second entry); for a key being synced it calls neither and just remembers
// to hand the key out once more after Done. So the handler reads the note
// after Add and knows what that Add did, with no guessing (comparing Len()
// before and after Add races with a worker taking keys at the same time).
// See Add in
// https://github.com/kubernetes/client-go/blob/v0.37.2/util/workqueue/queue.go.
type noticingQueue struct {
	workqueue.Queue[string]
	mu   sync.Mutex
	last map[string]added
	// printing 讓處理函式的 Add 與 worker 的 Get 依發生的順序印出（見 add）。
	// printing keeps the handler's Add and a worker's Get printed in the order they happened (see add).
	printing sync.Mutex
}

// added 是一次 Add 的結果。
//
// added is what one Add did.
type added int

const (
	// beingSynced：既沒有 Push 也沒有 Touch，key 正在同步，Done 之後會再交出去一次。
	// beingSynced: neither Push nor Touch; the key is being synced and is handed out again after Done.
	beingSynced added = iota
	// pushed：佇列裡多了一份。 / pushed: one more entry in the queue.
	pushed
	// merged：key 已經在佇列裡等，沒有第二份。 / merged: the key was already waiting; no second entry.
	merged
)

func newNoticingQueue() *noticingQueue {
	return &noticingQueue{Queue: workqueue.DefaultQueue[string](), last: map[string]added{}}
}

func (q *noticingQueue) Push(key string) {
	q.note(key, pushed)
	q.Queue.Push(key)
}

func (q *noticingQueue) Touch(key string) {
	q.note(key, merged)
	q.Queue.Touch(key)
}

func (q *noticingQueue) note(key string, a added) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.last[key] = a
}

// add 把 key 加進 wq（以 q 為底層的 workqueue），再把這次 Add 的結果交給 say 印出來。Done 也可能在這時
// Push 同一個 key（它之前在同步時又被加入過）；那樣的話結果是 pushed，而那也是事實：key 又回到佇列裡了。
// Add 一回來，worker 就可能取走 key；worker 透過 taken 報告「取走了」，taken 會等 say 印完，
// 所以輸出裡不會先看到 Get、才看到讓它被取走的那次 Add。這把鎖只為了印出來的順序，控制器本身不需要它。
//
// add adds key to wq (the workqueue whose storage is q), then hands what
// that Add did to say, which prints it. Done may Push the same key meanwhile
// (it was added again while being synced); then the answer is pushed, which
// is also true: the key is back in the queue. A worker may take the key the
// moment Add returns; it reports that through taken, which waits for say to
// finish, so the output never shows a Get before the Add that made it
// possible. The lock is only for the order of what is printed; the
// controller itself does not need it.
func (q *noticingQueue) add(wq workqueue.TypedInterface[string], key string, say func(added)) {
	q.printing.Lock()
	defer q.printing.Unlock()
	q.mu.Lock()
	delete(q.last, key)
	q.mu.Unlock()
	wq.Add(key)
	q.mu.Lock()
	a, ok := q.last[key]
	delete(q.last, key)
	q.mu.Unlock()
	if !ok {
		a = beingSynced
	}
	say(a)
}

// taken 在 add 的 say 印完之後才呼叫 say：worker 用它印出「取走了 key」。
//
// taken calls say once any add's say has finished: a worker prints "took the
// key" through it.
func (q *noticingQueue) taken(say func()) {
	q.printing.Lock()
	defer q.printing.Unlock()
	say()
}
