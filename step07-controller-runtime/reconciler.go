package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/informer-walkthrough/informer-walkthrough/internal/show"
	labv1alpha1 "github.com/informer-walkthrough/informer-walkthrough/step06-custom-resource/apis/lab/v1alpha1"
)

// TallyReconciler 是步驟 06 的 sync，改寫成 Reconcile：一次處理一個 reconcile.Request（namespace 與
// name，就是步驟 05 的 cache.ObjectName），從 manager 的快取讀（Client），只有衝突之後的重讀才直接問
// API server（APIReader）。
//
// TallyReconciler is step 06's sync rewritten as Reconcile: it handles one
// reconcile.Request at a time (a namespace and a name, step 05's
// cache.ObjectName), reads the manager's cache (Client), and asks the API
// server directly (APIReader) only to read again after a conflict.
type TallyReconciler struct {
	Client    client.Client
	APIReader client.Reader
	Recount   time.Duration
	Out       io.Writer
	// Ready 在「caches synced」那一行印出之後關閉。Reconcile 先等它，只是為了讓輸出的順序固定：
	// 控制器本來就要等處理函式同步之後才啟動 worker，那一刻快取早已同步。
	// Ready is closed once the "caches synced" line is printed. Reconcile waits for it only so that the output
	// has a fixed order: the controller starts its workers only after its handlers have synced, and by then the
	// caches have long synced.
	Ready <-chan struct{}
}

// Reconcile 讀出 tally，從 metadata-only 的快取數出符合的 Pod，算出該有的 status；與現有的不同時，先印一行再寫，
// 寫入造成的更新事件因此一定排在這一行之後。選擇器解析失敗不是錯誤：寫進 Ready condition，不重試。
//
// Reconcile reads the tally, counts the matching pods in the metadata-only
// cache and works out the status it should have; when that differs, it
// prints one line, then writes, so the update the write causes always comes
// after the line. A selector that does not parse is not an error: it goes
// into the Ready condition, with no retry.
func (r *TallyReconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	select {
	case <-r.Ready:
	case <-ctx.Done():
		return reconcile.Result{}, nil
	}
	key := req.String()
	var t labv1alpha1.PodTally
	if err := r.Client.Get(ctx, req.NamespacedName, &t); err != nil {
		if apierrors.IsNotFound(err) {
			show.Line(r.Out, "podtally", "Reconcile", key, "not in the cache: the tally was deleted, nothing to write", show.OpSync, show.Gone(nil))
			return reconcile.Result{}, nil
		}
		return reconcile.Result{}, err
	}
	want, summary, err := r.count(ctx, &t)
	if err != nil {
		return reconcile.Result{}, err
	}
	if labv1alpha1.SameStatus(t.Status, want) {
		show.Line(r.Out, "podtally", "Reconcile", key, summary+"; status up to date, nothing to write", show.OpSync, show.SawMeta(&t), show.From("pods"))
		return reconcile.Result{RequeueAfter: r.Recount}, nil
	}
	change := fmt.Sprintf("; UpdateStatus: count %d -> %d", t.Status.Count, want.Count)
	if t.Status.ObservedGeneration != want.ObservedGeneration {
		change += fmt.Sprintf(", observedGeneration %d -> %d", t.Status.ObservedGeneration, want.ObservedGeneration)
	}
	show.Line(r.Out, "podtally", "Reconcile", key, summary+change, show.OpWrite, show.SawMeta(&t), show.From("pods"), show.Into("api"))
	first := true
	err = retry.RetryOnConflict(retry.DefaultRetry, func() error {
		if !first {
			// 衝突之後：快取可能還沒收到讓我們衝突的那次寫入，所以直接問 API server。
			// After a conflict: the cache may not have the write we conflicted with yet, so ask the API server.
			show.Line(r.Out, "podtally", "Reconcile", key, "409 Conflict: reading the tally again through the APIReader (not the cache)", show.OpConflict, show.Into("api"))
			if err := r.APIReader.Get(ctx, req.NamespacedName, &t); err != nil {
				return err
			}
			if want, _, err = r.count(ctx, &t); err != nil {
				return err
			}
			if labv1alpha1.SameStatus(t.Status, want) {
				show.Line(r.Out, "podtally", "Reconcile", key, "the fresh copy has this status already (another writer was first): nothing to write", show.OpSync, show.SawMeta(&t))
				return nil
			}
			show.Line(r.Out, "podtally", "Reconcile", key, fmt.Sprintf("UpdateStatus from the fresh copy: count %d -> %d", t.Status.Count, want.Count), show.OpWrite, show.Into("api"))
		}
		first = false
		t.Status = want
		return r.Client.Status().Update(ctx, &t)
	})
	if err != nil {
		// 有錯誤時 controller-runtime 不看 RequeueAfter：它以限速的方式重新排入佇列。 / With an error, controller-runtime ignores RequeueAfter and requeues rate-limited.
		return reconcile.Result{}, err
	}
	return reconcile.Result{RequeueAfter: r.Recount}, nil
}

// count 跟步驟 06 的一樣，只是 Pod 從 manager 的快取讀：List 一個 PartialObjectMetadataList。
//
// count is step 06's, except that pods come from the manager's cache: a List
// of a PartialObjectMetadataList.
func (r *TallyReconciler) count(ctx context.Context, t *labv1alpha1.PodTally) (labv1alpha1.PodTallyStatus, string, error) {
	status := labv1alpha1.PodTallyStatus{ObservedGeneration: t.Generation, Conditions: slices.Clone(t.Status.Conditions)}
	sel, err := labels.Parse(t.Spec.Selector)
	if err != nil {
		meta.SetStatusCondition(&status.Conditions, metav1.Condition{
			Type: "Ready", Status: metav1.ConditionFalse, Reason: "BadSelector", Message: err.Error(), ObservedGeneration: t.Generation,
		})
		return status, fmt.Sprintf("selector %q does not parse: %v", t.Spec.Selector, err), nil
	}
	pods := &metav1.PartialObjectMetadataList{}
	pods.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("PodList"))
	if err := r.Client.List(ctx, pods, client.InNamespace(t.Namespace), client.MatchingLabelsSelector{Selector: sel}); err != nil {
		return status, "", err
	}
	for _, p := range pods.Items {
		status.Pods = append(status.Pods, p.Name)
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
	return status, fmt.Sprintf("%s %q: %s", counted, t.Spec.Selector, names), nil
}

// tallyFor 是 Pod 的 map 函式：找出選中這個 Pod 的每一個 tally（從快取 List，跟步驟 06 掃 lister 一樣）。
// 更新時 controller-runtime 對舊的與新的物件各呼叫一次，結果合併：失去標籤的 Pod 也會讓原本的 tally 重數。
//
// tallyFor is the pods' map function: it finds every tally that selects the
// pod (a List from the cache, as step 06 scans the lister). On an update
// controller-runtime calls it for the old and for the new object and merges
// the results: a pod that loses a label makes its old tally count again.
func (r *TallyReconciler) tallyFor(ctx context.Context, pod client.Object) []reconcile.Request {
	var tallies labv1alpha1.PodTallyList
	if err := r.Client.List(ctx, &tallies, client.InNamespace(pod.GetNamespace())); err != nil {
		return nil
	}
	var reqs []reconcile.Request
	var keys []string
	for _, t := range tallies.Items {
		if sel, err := labels.Parse(t.Spec.Selector); err == nil && sel.Matches(labels.Set(pod.GetLabels())) {
			reqs = append(reqs, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(&t)})
			keys = append(keys, show.Key(&t))
		}
	}
	// controller-runtime 把這些 Request 放進佇列；即時頁面看得到是哪幾個（不印出來）。
	// controller-runtime queues these Requests; the live page sees which (nothing printed).
	if len(keys) > 0 {
		show.Quiet(r.Out, "pods", "map", show.Key(pod), "map function: "+strings.Join(keys, ", "), show.OpHandle, show.Queued("workqueue", keys...))
	}
	return reqs
}
