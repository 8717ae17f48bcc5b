package main

import (
	"context"
	"fmt"
	"slices"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/retry"

	"github.com/informer-walkthrough/informer-walkthrough/internal/show"
	labv1alpha1 "github.com/informer-walkthrough/informer-walkthrough/step06-custom-resource/apis/lab/v1alpha1"
)

// processNextItem 跟步驟 04、05 的一樣：取出、同步、依結果 Forget 或以限速的方式重新排入佇列；Done 一定要呼叫。
//
// processNextItem is steps 04 and 05's: take, sync, then Forget or requeue
// rate-limited; Done is always called.
func (c *controller) processNextItem(ctx context.Context, worker string) bool {
	key, quit := c.queue.Get()
	if quit {
		return false
	}
	show.Quiet(c.out, worker, "Get", key.String(), "queue.Get", show.OpGet)
	defer show.Quiet(c.out, worker, "Done", key.String(), "queue.Done", show.OpDone)
	defer c.queue.Done(key)
	err := c.sync(ctx, worker, key)
	reason := ""
	if err != nil {
		reason = show.Reason(err)
	}
	if apierrors.IsConflict(err) {
		reason = "409 Conflict: the tally was modified after this copy was read"
	}
	switch {
	case err == nil:
		c.queue.Forget(key)
	case c.queue.NumRequeues(key) < maxRetries:
		show.Line(c.out, worker, "FAILED", key.String(), fmt.Sprintf("%s; retry %d/%d", reason, c.queue.NumRequeues(key)+1, maxRetries),
			show.Retrying(c.queue.NumRequeues(key)+1, maxRetries, 0))
		c.queue.AddRateLimited(key)
	default:
		c.queue.Forget(key)
		show.Line(c.out, worker, "FAILED", key.String(), fmt.Sprintf("%s; giving up after %d retries", reason, maxRetries), show.OpDrop)
	}
	return true
}

// sync 從 lister 讀出 tally，從 Pod 的 metadata lister 數出符合的 Pod，算出該有的 status；跟現有的
// 一樣就不寫，不一樣就透過 status 子資源寫。控制器從不寫 spec。
//
// sync reads the tally from its lister, counts the matching pods in the pod
// metadata lister and works out the status it should have; when that is the
// status it has, nothing is written, otherwise status is written through the
// status subresource. The controller never writes spec.
func (c *controller) sync(ctx context.Context, worker string, key cache.ObjectName) error {
	cached, err := c.tallies.get(key.Namespace, key.Name)
	if isNotFound(err) {
		show.Line(c.out, worker, "sync", key.String(), "not in the lister: the tally was deleted, nothing to write", show.OpSync, show.Gone(nil), show.From("tallies"))
		c.staleMu.Lock()
		delete(c.stale, key)
		c.staleMu.Unlock()
		return nil
	}
	if err != nil {
		return err
	}
	if c.behind(worker, key, cached) {
		return nil
	}
	want, summary := c.count(cached)
	if labv1alpha1.SameStatus(cached.Status, want) {
		show.Line(c.out, worker, "sync", key.String(), summary+"; status up to date, nothing to write", show.OpSync, show.SawMeta(cached), show.From("pods"))
		return nil
	}
	show.Line(c.out, worker, "sync", key.String(), summary, show.OpSync, show.SawMeta(cached), show.From("pods"))

	base := cached
	if c.opts.staleWrite {
		base = c.remembered(key, cached)
	}
	attempt := 0
	write := func() error {
		attempt++
		if attempt > 1 {
			// RetryOnConflict 的第二次起：從 API server 重新讀，不是從快取；快取可能還沒收到讓我們衝突的那次寫入。
			// From RetryOnConflict's second try on: read again from the API server, not the cache, which may
			// not have received the write we conflicted with yet.
			if base, err = c.tallies.fresh(ctx, key.Namespace, key.Name); err != nil {
				return err
			}
			want, _ = c.count(base)
		}
		t := base.DeepCopy()
		t.Status = want
		// 這一行在寫入之前印：寫入造成的那次更新（tallies OnUpdate）一定排在它後面。
		// This line is printed before the write: the update the write causes (tallies OnUpdate) always comes after it.
		change := fmt.Sprintf("UpdateStatus: count %d -> %d", base.Status.Count, want.Count)
		if base != cached && attempt == 1 {
			// --stale-write：左邊的數字是留著的那份舊複本上的。 / --stale-write: the number on the left is the kept old copy's.
			change = fmt.Sprintf("UpdateStatus from the kept copy: count %d -> %d", base.Status.Count, want.Count)
		}
		if base.Status.ObservedGeneration != want.ObservedGeneration {
			change += fmt.Sprintf(", observedGeneration %d -> %d", base.Status.ObservedGeneration, want.ObservedGeneration)
		}
		if c.opts.apply {
			body, err := applyBody(base, want)
			if err != nil {
				return err
			}
			change = "ApplyStatus" + strings.TrimPrefix(change, "UpdateStatus") + " (field manager " + fieldManager + ")"
			show.Line(c.out, worker, "status", key.String(), change, show.OpWrite, show.Into("api"))
			return c.tallies.applyStatus(ctx, key.Namespace, key.Name, body)
		}
		show.Line(c.out, worker, "status", key.String(), change, show.OpWrite, show.Into("api"))
		written, err := c.tallies.updateStatus(ctx, t)
		if err == nil {
			c.wrote(worker, key, base, written)
		}
		if apierrors.IsConflict(err) && c.opts.retryOnConflict {
			show.Line(c.out, worker, "conflict", key.String(), "409 Conflict: the copy was stale; reading it again from the API server", show.OpConflict, show.Into("api"))
		}
		return err
	}
	if c.opts.retryOnConflict {
		return retry.RetryOnConflict(retry.DefaultRetry, write)
	}
	return write()
}

// count 算出 tally 該有的 status，以及給輸出用的一句摘要。選擇器解析失敗時，status 的 Ready condition 為
// False、原因 BadSelector，控制器照常運作。
//
// count works out the status a tally should have, and a summary for the
// output. When the selector does not parse, status gets Ready=False with
// reason BadSelector, and the controller carries on.
func (c *controller) count(t *labv1alpha1.PodTally) (labv1alpha1.PodTallyStatus, string) {
	status := labv1alpha1.PodTallyStatus{ObservedGeneration: t.Generation, Conditions: slices.Clone(t.Status.Conditions)}
	sel, err := labels.Parse(t.Spec.Selector)
	if err != nil {
		meta.SetStatusCondition(&status.Conditions, metav1.Condition{
			Type: "Ready", Status: metav1.ConditionFalse, Reason: "BadSelector",
			Message: err.Error(), ObservedGeneration: t.Generation,
		})
		return status, fmt.Sprintf("selector %q does not parse: %v", t.Spec.Selector, err)
	}
	objs, err := c.pods.ByNamespace(t.Namespace).List(sel)
	if err != nil {
		meta.SetStatusCondition(&status.Conditions, metav1.Condition{
			Type: "Ready", Status: metav1.ConditionFalse, Reason: "ListFailed", Message: err.Error(), ObservedGeneration: t.Generation,
		})
		return status, err.Error()
	}
	for _, obj := range objs {
		if m, err := meta.Accessor(obj); err == nil {
			status.Pods = append(status.Pods, m.GetName())
		}
	}
	slices.Sort(status.Pods)
	status.Count = int32(len(status.Pods))
	counted := show.Pods(len(status.Pods)) + " match"
	if len(status.Pods) == 1 {
		counted += "es"
	}
	meta.SetStatusCondition(&status.Conditions, metav1.Condition{
		Type: "Ready", Status: metav1.ConditionTrue, Reason: "Counted", Message: counted, ObservedGeneration: t.Generation,
	})
	names := "none"
	if len(status.Pods) > 0 {
		names = strings.Join(status.Pods, ", ")
	}
	return status, fmt.Sprintf("%s %q: %s", counted, t.Spec.Selector, names)
}

// remembered 是 --stale-write 故意犯的錯：第一次看到某個 tally 時記住那份複本，之後每次都從它寫。
// 第一次寫入成功後伺服器上的 resourceVersion 就變了，之後每一次都是 409 Conflict：
// 樂觀並行控制（optimistic concurrency）擋下了根據舊版本做的寫入。
// 真實世界裡的樣子比較隱晦：寫完 status 之後立刻又輪到同一個 key，而 informer 還沒把新版本送進快取，
// lister 給的就是舊的 resourceVersion。
//
// remembered is --stale-write's mistake made on purpose: keep the first copy
// of a tally, and write from it every time. After the first write succeeds
// the server's resourceVersion has moved, and every later write is 409
// Conflict: optimistic concurrency refuses a write based on an old version.
// In real life it is subtler: the same key comes up again right after a
// status write, before the informer has delivered the new version, and the
// lister hands out the old resourceVersion.
func (c *controller) remembered(key cache.ObjectName, cached *labv1alpha1.PodTally) *labv1alpha1.PodTally {
	c.staleMu.Lock()
	defer c.staleMu.Unlock()
	if t, ok := c.stale[key]; ok {
		return t
	}
	c.stale[key] = cached
	return cached
}

// statusChange 描述一次只改了 status 的更新。 / statusChange describes an update that changed only status.
func statusChange(old, t *labv1alpha1.PodTally) string {
	if old.ResourceVersion == t.ResourceVersion {
		return "same resourceVersion: a resync"
	}
	if old.Status.Count != t.Status.Count {
		return fmt.Sprintf("status count %d -> %d", old.Status.Count, t.Status.Count)
	}
	if !labv1alpha1.SameStatus(old.Status, t.Status) {
		return "status changed"
	}
	return "metadata changed"
}
