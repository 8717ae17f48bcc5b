package main

import (
	"fmt"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/tools/cache"

	"github.com/informer-walkthrough/informer-walkthrough/internal/show"
)

// tallyAdded 一律把新的 tally（或初始清單裡的每一個）放進佇列。
//
// tallyAdded always queues a new tally (or each one in the initial list).
func (c *controller) tallyAdded(obj any) {
	t, err := c.tallies.toTally(obj)
	if err != nil {
		show.Line(c.out, "tallies", "OnAdd", "?", err.Error(), show.OpHandle)
		return
	}
	// 先印再放：worker 可能立刻取走這個 key，它的那一行不該排在這一行前面。
	// Print, then queue: a worker may take the key at once, and its line must not come before this one.
	show.Line(c.out, "tallies", "OnAdd", show.Key(t), fmt.Sprintf("selector %q, generation %d: queued", t.Spec.Selector, t.Generation),
		show.OpHandle, show.SawMeta(t), show.Queued("workqueue"))
	c.queue.Add(cache.MetaObjectToName(t))
}

// tallyUpdated 用 generation 過濾。控制器自己寫 status 之後，這個寫入會以一次更新回來：resourceVersion 變了，
// generation 沒變（有 status 子資源時，只有 spec 的變化會讓 API server 把 generation 加一）。
// 比對 resourceVersion 是錯的判斷依據：每一次寫入都會改它，包括我們自己的 status，所以每次寫 status
// 都會換來一次多餘的同步；它唯一擋得住的是 resync。
//
// tallyUpdated filters by generation. After the controller writes status,
// that write comes back as an update: the resourceVersion changed, the
// generation did not (with the status subresource, the API server adds one
// to generation only for a change of spec). Comparing resourceVersions is
// the wrong test: every write changes it, our own status writes included,
// so each status write would buy one more sync; all it stops is a resync.
func (c *controller) tallyUpdated(oldObj, newObj any) {
	old, err1 := c.tallies.toTally(oldObj)
	t, err2 := c.tallies.toTally(newObj)
	if err := cmpErr(err1, err2); err != nil {
		show.Line(c.out, "tallies", "OnUpdate", "?", err.Error(), show.OpHandle)
		return
	}
	if old.Generation == t.Generation {
		show.Line(c.out, "tallies", "OnUpdate", show.Key(t), fmt.Sprintf("generation %d unchanged (%s): skipped", t.Generation, statusChange(old, t)),
			show.OpSkip, show.SawMeta(t))
		return
	}
	show.Line(c.out, "tallies", "OnUpdate", show.Key(t), fmt.Sprintf("generation %d -> %d, selector %q -> %q: queued", old.Generation, t.Generation, old.Spec.Selector, t.Spec.Selector),
		show.OpHandle, show.SawMeta(t), show.Queued("workqueue"))
	c.queue.Add(cache.MetaObjectToName(t))
}

// tallyDeleted 也放進佇列：worker 在 lister 裡找不到它，就知道它被刪除了。
//
// tallyDeleted queues too: the worker does not find it in the lister, and so
// knows it was deleted.
func (c *controller) tallyDeleted(obj any) {
	key, err := cache.DeletionHandlingObjectToName(obj)
	if err != nil {
		show.Line(c.out, "tallies", "OnDelete", "?", err.Error(), show.OpHandle)
		return
	}
	show.Line(c.out, "tallies", "OnDelete", key.String(), "queued", show.OpHandle, show.Gone(nil), show.Queued("workqueue"))
	c.queue.Add(key)
}

// podChanged 把選中這個 Pod 的每一個 tally 放進佇列；更新時，新舊標籤任一邊選中都算，
// 這樣 Pod 失去標籤時，原本數到它的 tally 也會重數。標籤沒變的更新（scheduler 綁定節點、kubelet 或
// kwok 寫 status）不影響任何計數，不印也不放：metadata-only 的 informer 還是會收到它們，因為每次寫入
// 都換了 resourceVersion。
//
// podChanged queues every tally that selects the pod; on an update, a
// match with either the old or the new labels counts, so when a pod loses a
// label, the tally that counted it counts again. An update that changes no
// label (the scheduler binding a node, the kubelet or kwok writing status)
// changes no count and is neither printed nor queued: a metadata-only
// informer still receives it, because every write changes the
// resourceVersion.
func (c *controller) podChanged(what string, oldObj, obj any) {
	if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = d.Obj
	}
	pod, ok := obj.(*metav1.PartialObjectMetadata)
	if !ok {
		show.Line(c.out, "pods", what, "?", fmt.Sprintf("not a *PartialObjectMetadata: %T", obj), show.OpHandle)
		return
	}
	detail := "labels=" + show.Labels(pod.Labels)
	sets := []labels.Set{pod.Labels}
	if old, ok := oldObj.(*metav1.PartialObjectMetadata); ok {
		if labels.Equals(old.Labels, pod.Labels) {
			show.Quiet(c.out, "pods", what, show.Key(pod), "labels unchanged: nothing to queue", show.OpSkip, show.SawMeta(pod))
			return
		}
		detail = fmt.Sprintf("labels %s -> %s", show.Labels(old.Labels), show.Labels(pod.Labels))
		sets = append(sets, old.Labels)
	}
	// 找 tally 的方式是掃過 namespace 裡 lister 的每一個 tally，逐一比對選擇器。索引幫不上忙：索引把物件
	// 對應到 key（例如 app=demo），但「這個選擇器選不選中這組標籤」是要計算的，不是查表；
	// tally 數量少時，掃一遍很便宜。
	// Tallies are found by scanning every tally of the namespace in the lister
	// and matching each selector. An index does not help: an index maps an
	// object to keys (such as app=demo), but "does this selector match these
	// labels" is a computation, not a lookup; with few tallies, a scan is cheap.
	ts, err := c.tallies.list(pod.Namespace)
	if err != nil {
		show.Line(c.out, "pods", what, show.Key(pod), err.Error(), show.OpHandle)
		return
	}
	var queued, queuedKeys []string
	var keys []cache.ObjectName
	for _, t := range ts {
		sel, err := labels.Parse(t.Spec.Selector)
		if err != nil {
			// 它的 worker 會在 status 裡說明。 / Its worker reports it in status.
			continue
		}
		if slices.ContainsFunc(sets, func(s labels.Set) bool { return sel.Matches(s) }) {
			keys = append(keys, cache.MetaObjectToName(t))
			queued = append(queued, t.Name)
			queuedKeys = append(queuedKeys, show.Key(t))
		}
	}
	slices.Sort(queued)
	if len(queued) == 0 {
		show.Line(c.out, "pods", what, show.Key(pod), detail+": no tally selects it", show.OpSkip, podSeen(what, pod))
		return
	}
	show.Line(c.out, "pods", what, show.Key(pod), detail+": queued tally "+strings.Join(queued, ", "),
		show.OpHandle, podSeen(what, pod), show.Queued("workqueue", queuedKeys...))
	for _, key := range keys {
		c.queue.Add(key)
	}
}

func cmpErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// podSeen 是 Pod 事件給即時頁面的欄位：刪除時它已經不在了。
//
// podSeen is a pod event's field for the live page: on a delete it is gone.
func podSeen(what string, pod *metav1.PartialObjectMetadata) show.Field {
	if what == "OnDelete" {
		return show.Gone(nil)
	}
	return show.SawMeta(pod)
}
