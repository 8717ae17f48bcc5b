package main

import (
	"context"
	"io"
	"strings"

	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/informer-walkthrough/informer-walkthrough/internal/show"
)

// queuedBy 包住 Pod 的處理函式，讓即時頁面看到它真正放進佇列的每個 Request（不印出來）。map 函式本身
// 不是那個時刻：對於一次更新，controller-runtime 會對舊物件與新物件各呼叫一次 map 函式，兩次得到同一個 tally
// 的話，處理函式只 Add 一次（enqueue_mapped.go 的 mapAndEnqueue 先去掉重複）。所以記錄放在 Add 上，
// 而且在 Add 之前：worker 不可能在記錄之前就拿到這個 key。
//
// queuedBy wraps the pods' handler so the live page sees each Request it
// really puts in the queue (nothing printed). The map function is not that
// moment: for one update controller-runtime calls the map function on the
// old object and on the new one, and when both give the same tally the
// handler Adds it once (mapAndEnqueue in enqueue_mapped.go drops the
// repeat). So the note is on Add, and made before it: no worker can take
// the key before the note is out. See
// https://github.com/kubernetes-sigs/controller-runtime/blob/v0.25.2/pkg/handler/enqueue_mapped.go.
func queuedBy(inner handler.EventHandler, out io.Writer, why *whyLog) handler.EventHandler {
	return handler.Funcs{
		CreateFunc: func(ctx context.Context, e event.CreateEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			inner.Create(ctx, e, noting(q, out, e.Object, "OnAdd", why))
		},
		UpdateFunc: func(ctx context.Context, e event.UpdateEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			inner.Update(ctx, e, noting(q, out, e.ObjectNew, "OnUpdate", why))
		},
		DeleteFunc: func(ctx context.Context, e event.DeleteEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			inner.Delete(ctx, e, noting(q, out, e.Object, "OnDelete", why))
		},
		GenericFunc: func(ctx context.Context, e event.GenericEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			inner.Generic(ctx, e, noting(q, out, e.Object, "Generic", why))
		},
	}
}

// noting 回傳一個會記下 Add 的佇列。controller-runtime 預設用自己的 priority queue，處理函式看得出來
// （初始清單的新增以低優先順序放進去）；包起來之後它還得看得出來，所以 priority queue 包成 priority queue。
//
// noting returns a queue that notes its Adds. controller-runtime's default
// is its own priority queue, and the handler can tell (it queues the
// initial list's adds at low priority); wrapped, it must still be able to
// tell, so a priority queue is wrapped as a priority queue.
func noting(q workqueue.TypedRateLimitingInterface[reconcile.Request], out io.Writer, pod client.Object, what string, why *whyLog) workqueue.TypedRateLimitingInterface[reconcile.Request] {
	note := func(reqs []reconcile.Request) {
		keys := make([]string, len(reqs))
		for i, r := range reqs {
			keys[i] = r.String()
			why.add(keys[i], "pod "+show.Key(pod)+" "+what)
		}
		show.Quiet(out, "pods", "map", show.Key(pod), "queued by the handler: "+strings.Join(keys, ", "), show.OpHandle, show.Queued("workqueue", keys...))
	}
	if pq, ok := q.(priorityqueue.PriorityQueue[reconcile.Request]); ok {
		return &notedPriority{PriorityQueue: pq, note: note}
	}
	return &noted{TypedRateLimitingInterface: q, note: note}
}

// noted 是記下 Add 的一般佇列。 / noted is a plain queue that notes its Adds.
type noted struct {
	workqueue.TypedRateLimitingInterface[reconcile.Request]
	note func([]reconcile.Request)
}

// Add 先記下，再放進佇列。 / Add notes the Request, then queues it.
func (q *noted) Add(r reconcile.Request) {
	q.note([]reconcile.Request{r})
	q.TypedRateLimitingInterface.Add(r)
}

// notedPriority 是記下 Add 的 priority queue。 / notedPriority is a priority queue that notes its Adds.
type notedPriority struct {
	priorityqueue.PriorityQueue[reconcile.Request]
	note func([]reconcile.Request)
}

// Add 先記下，再放進佇列。 / Add notes the Request, then queues it.
func (q *notedPriority) Add(r reconcile.Request) {
	q.note([]reconcile.Request{r})
	q.PriorityQueue.Add(r)
}

// AddWithOpts 先記下，再依指定的選項放進佇列。 / AddWithOpts notes the Requests, then queues them with the options given.
func (q *notedPriority) AddWithOpts(o priorityqueue.AddOpts, reqs ...reconcile.Request) {
	q.note(reqs)
	q.PriorityQueue.AddWithOpts(o, reqs...)
}
