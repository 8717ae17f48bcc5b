package main

import (
	"io"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/informer-walkthrough/informer-walkthrough/internal/show"
)

// printingQueue 包住 RealFIFO，印出 Reflector 推進佇列的每一筆，以及它在佇列裡變成什麼，
// 然後照原樣轉交。其他方法（Pop、PopBatch、HasSynced…）直接用 RealFIFO 的。
//
// printingQueue wraps the RealFIFO, prints everything the Reflector pushes into
// the queue and what it becomes there, then passes it on unchanged. The other
// methods (Pop, PopBatch, HasSynced, …) are the RealFIFO's own.
type printingQueue struct {
	*cache.RealFIFO
	out    io.Writer
	atomic bool
}

func (q *printingQueue) Add(obj any) error {
	show.Line(q.out, "queue", "Add", key(obj), "-> one Added delta", show.OpPush, saw(obj, false))
	return q.RealFIFO.Add(obj)
}

func (q *printingQueue) Update(obj any) error {
	show.Line(q.out, "queue", "Update", key(obj), "-> one Updated delta", show.OpPush, saw(obj, false))
	return q.RealFIFO.Update(obj)
}

func (q *printingQueue) Delete(obj any) error {
	show.Line(q.out, "queue", "Delete", key(obj), "-> one Deleted delta", show.OpPush, saw(obj, true))
	return q.RealFIFO.Delete(obj)
}

func (q *printingQueue) Replace(objs []any, rv string) error {
	becomes := "-> one ReplacedAll delta, resourceVersion=" + rv
	if !q.atomic {
		becomes = "-> one Replaced delta per pod, and a Deleted tombstone per cached pod not listed"
	}
	show.Line(q.out, "queue", "Replace", show.Pods(len(objs)), becomes, show.OpPush, show.RV(rv), show.Holding(keys(objs)...))
	return q.RealFIFO.Replace(objs, rv)
}

func (q *printingQueue) Resync() error {
	becomes := "-> one SyncAll delta"
	if !q.atomic {
		becomes = "-> one Sync delta per pod in the indexer"
	}
	show.Line(q.out, "queue", "Resync", "", becomes, show.OpPush)
	return q.RealFIFO.Resync()
}

func (q *printingQueue) Bookmark(rv string) error {
	becomes := "-> one Bookmark delta"
	if !q.atomic {
		becomes = "-> nothing: Bookmark deltas need atomic events"
	}
	show.Line(q.out, "queue", "Bookmark", "", "resourceVersion="+rv+" "+becomes, show.OpBookmark, show.RV(rv))
	return q.RealFIFO.Bookmark(rv)
}

// keys 是一串物件的 key，給即時頁面：一次 Replace 帶著的每個 Pod。
//
// keys are the keys of a list of objects, for the live page: every pod a
// Replace carries.
func keys(objs []any) []string {
	out := make([]string, 0, len(objs))
	for _, obj := range objs {
		out = append(out, key(obj))
	}
	return out
}

// saw 給即時頁面：推進來的 Pod 此刻的樣子（它的 resourceVersion 就是佇列這一格顯示的那個）；
// 刪除時是它最後的樣子。
//
// saw is for the live page: the pushed pod as it is now (its
// resourceVersion is the one the queue's box shows); for a delete, its last
// state.
func saw(obj any, deleted bool) show.Field {
	// 這個 informer 只推進 Pod。 / This informer only pushes pods.
	pod, _ := obj.(*corev1.Pod)
	if deleted {
		return show.Gone(pod)
	}
	return show.Saw(pod)
}
