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
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/informer-walkthrough/informer-walkthrough/internal/show"
	labv1alpha1 "github.com/informer-walkthrough/informer-walkthrough/step06-custom-resource/apis/lab/v1alpha1"
)

// 控制器需要的權限，逐條：讀 tally（快取要 list 與 watch；--reread-on-conflict 要 get）、加上與拿掉 finalizer（update）；
// 只寫 status 子資源；podtallies/finalizers 的 update 讓報告的 ownerReference 可以設 blockOwnerDeletion
// （只在啟用 OwnerReferencesPermissionEnforcement admission plugin 的叢集檢查）；Pod 只要 list 與 watch
// （metadata-only 的快取用的也是這兩個）；ConfigMap 的報告與索引（快取的 list 與 watch；建立索引、以及 server-side
// apply 第一次建立報告時的 create；server-side apply 與 merge patch 的 patch）；--leader-elect 的 Lease 與它記錄的事件。
//
// The permissions the controller needs, rule by rule: read tallies (the
// cache lists and watches; --reread-on-conflict gets), add and remove the
// finalizer (update); write only the status subresource; update on
// podtallies/finalizers lets the report's ownerReference set
// blockOwnerDeletion (checked only where the
// OwnerReferencesPermissionEnforcement admission plugin is on); pods only
// list and watch (a metadata-only cache uses the same two); the ConfigMaps of
// the reports and the index (list and watch for the cache; create for a new
// index and for the server-side apply that first creates a report; patch for
// server-side apply and the merge patch); --leader-elect's Lease and the
// events it records.
//
// +kubebuilder:rbac:groups=lab.informer-walkthrough.github.io,resources=podtallies,verbs=get;list;watch;update
// +kubebuilder:rbac:groups=lab.informer-walkthrough.github.io,resources=podtallies/status,verbs=update
// +kubebuilder:rbac:groups=lab.informer-walkthrough.github.io,resources=podtallies/finalizers,verbs=update
// +kubebuilder:rbac:groups="",resources=pods,verbs=list;watch
// +kubebuilder:rbac:groups="",resources=configmaps,verbs=list;watch;create;patch
// +kubebuilder:rbac:groups=coordination.k8s.io,resources=leases,verbs=get;create;update
// +kubebuilder:rbac:groups="",resources=events,verbs=create;patch

// TallyReconciler 是步驟 06 的 sync，改寫成 Reconcile：一次處理一個 reconcile.Request（namespace 與
// name，就是步驟 05 的 cache.ObjectName），從 manager 的快取讀（Client）。它還做兩件步驟 06 沒做的事：
// tally 擁有一個它寫的 ConfigMap（報告，report.go），刪除時由 garbage collector 收走；tally 在共用的索引
// ConfigMap 裡有一行，刪除之前由 finalizer 清掉（finalizer.go）。
//
// TallyReconciler 需要的權限寫在上面的 +kubebuilder:rbac 標記裡：scripts/codegen.sh 讓 controller-gen 從這裡產生
// rbac/role.yaml（一個 ClusterRole，以 namespace 裡的 RoleBinding 綁給控制器的 ServiceAccount，權限就只在那個 namespace）；
// 測試確認兩者一致，再以只綁了這個角色的 ServiceAccount 執行控制器。
//
// TallyReconciler is step 06's sync rewritten as Reconcile: it handles one
// reconcile.Request at a time (a namespace and a name, step 05's
// cache.ObjectName) and reads the manager's cache (Client). It also does two
// things step 06 does not: the tally owns a ConfigMap it writes (its report,
// report.go), which the garbage collector removes after the tally; and the
// tally has a line in a shared index ConfigMap, which a finalizer clears
// before the tally goes (finalizer.go).
//
// TallyReconciler needs the permissions in the +kubebuilder:rbac markers above:
// scripts/codegen.sh has controller-gen write rbac/role.yaml from them (a
// ClusterRole, which a RoleBinding in the namespace grants to the
// controller's ServiceAccount, so the permissions hold in that namespace
// only); the tests check that the two agree, then run the controller as a
// ServiceAccount bound to that role alone.
type TallyReconciler struct {
	Client client.Client
	// Scheme 讓 writeReport 查出 tally 的 GVK，寫進報告的 ownerReference（SetControllerReference 也這樣查）。
	// Scheme lets writeReport look up the tally's GVK for the report's ownerReference (as SetControllerReference does).
	Scheme *runtime.Scheme
	// APIReader 通常是 nil：409 Conflict 時 Reconcile 回傳錯誤，由 controller-runtime 重新排入佇列。
	// 只有 --reread-on-conflict 才給它 mgr.GetAPIReader()，衝突之後直接問 API server（見 conflict.go）。
	// APIReader is usually nil: on 409 Conflict Reconcile returns the error and controller-runtime queues the key
	// again. Only --reread-on-conflict gives it mgr.GetAPIReader(), to ask the API server directly after a conflict
	// (see conflict.go).
	APIReader client.Reader
	Recount   time.Duration
	// ReconcileResyncs 讓 tally 的 predicate 也放行 resync（--sync-period 的週期事件，新舊 resourceVersion 相同）：
	// GenerationChangedPredicate 單獨使用時把它們全部擋下（見 setup.go 的 tallyEvents）。
	// ReconcileResyncs makes the tally predicate let resyncs through too (--sync-period's periodic events, old and new
	// resourceVersion equal): GenerationChangedPredicate alone drops them all (see tallyEvents in setup.go).
	ReconcileResyncs bool
	// ReadService 是演練「沒有要求的 informer」要讀的 Service（--read-service；空字串：不讀），見 peek.go。
	// ReadService is the Service the drill "the informer you did not ask for" reads (--read-service; empty: none), see peek.go.
	ReadService string
	// Stamp 與 NoPredicate 是演練「reconcile 風暴」（--stamp、--no-predicate），見 storm.go。
	// Stamp and NoPredicate are the drill "a reconcile storm" (--stamp, --no-predicate), see storm.go.
	Stamp       bool
	NoPredicate bool
	Out         io.Writer
	// why 是演練「這次 Reconcile 為什麼會跑？」（--why）記下的理由；nil 時不記，見 why.go。
	// why holds the reasons the drill "why did this Reconcile run?" (--why) notes; nil notes nothing, see why.go.
	why *whyLog
}

// Reconcile 讀出 tally；被刪除中就交給 finalizer（finalize）；否則從 metadata-only 的快取數出符合的 Pod，
// 算出該有的 status、報告與索引的那一行，與現有的不同時先印一行說要寫什麼，再依序寫：finalizer、報告、
// 索引、status。寫入造成的更新事件因此一定排在這一行之後。選擇器解析失敗不是錯誤：寫進 Ready condition，
// 不以限速重試（--recount 到了再數一次）。
//
// Reconcile reads the tally; one being deleted goes to the finalizer
// (finalize); otherwise it counts the matching pods in the metadata-only
// cache and works out the status, the report and the index line it should
// have, and when any differs it prints one line saying what it writes, then
// writes in order: the finalizer, the report, the index, the status. The
// updates those writes cause therefore always come after the line. A
// selector that does not parse is not an error: it goes into the Ready
// condition, with no rate-limited retry (it is counted again at --recount).
func (r *TallyReconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	key := req.String()
	var t labv1alpha1.PodTally
	if err := r.Client.Get(ctx, req.NamespacedName, &t); err != nil {
		if apierrors.IsNotFound(err) {
			show.Line(r.Out, "podtally", "Reconcile", key, "not in the cache: the tally is gone, nothing to write", show.OpSync, show.Gone(nil))
			return reconcile.Result{}, nil
		}
		return reconcile.Result{}, err
	}
	if !t.DeletionTimestamp.IsZero() {
		return reconcile.Result{}, r.finalize(ctx, &t)
	}
	want, summary, err := r.count(ctx, &t)
	if err != nil {
		return reconcile.Result{}, err
	}
	writeReport, err := r.reportChanged(ctx, &t, want)
	if err != nil {
		return reconcile.Result{}, err
	}
	writeIndex, err := r.indexChanged(ctx, &t, want)
	if err != nil {
		return reconcile.Result{}, err
	}
	addFinalizer := !controllerutil.ContainsFinalizer(&t, finalizer)
	writeStatus := !labv1alpha1.SameStatus(t.Status, want)
	var writes []string
	if addFinalizer {
		writes = append(writes, "finalizer added")
	}
	if writeReport {
		writes = append(writes, "report "+reportName(&t)+" applied")
	}
	if writeIndex {
		writes = append(writes, indexName+" line set")
	}
	if writeStatus {
		change := fmt.Sprintf("UpdateStatus: count %d -> %d", t.Status.Count, want.Count)
		if t.Status.ObservedGeneration != want.ObservedGeneration {
			change += fmt.Sprintf(", observedGeneration %d -> %d", t.Status.ObservedGeneration, want.ObservedGeneration)
		}
		writes = append(writes, change)
	} else if len(writes) > 0 {
		writes = append(writes, "status up to date")
	}
	if len(writes) == 0 {
		show.Line(r.Out, "podtally", "Reconcile", key, summary+"; status up to date, nothing to write", show.OpSync, show.SawMeta(&t), show.From("pods"))
		return reconcile.Result{RequeueAfter: r.Recount}, nil
	}
	show.Line(r.Out, "podtally", "Reconcile", key, summary+"; "+strings.Join(writes, "; "), show.OpWrite, show.SawMeta(&t), show.From("pods"), show.Into("api"))
	// 先加 finalizer，再建立任何之後要清掉的東西：不然 tally 在兩者之間被刪除，索引裡就留下沒人清的一行。
	// The finalizer first, before anything it must clean up later: otherwise a tally deleted in between would leave
	// an index line nobody clears.
	if addFinalizer {
		controllerutil.AddFinalizer(&t, finalizer)
		if err := r.Client.Update(ctx, &t); err != nil {
			return r.failed(key, err)
		}
	}
	if writeReport {
		if err := r.writeReport(ctx, &t, want); err != nil {
			return r.failed(key, err)
		}
	}
	if writeIndex {
		line := indexLine(&t, want)
		if err := r.setIndexLine(ctx, &t, &line); err != nil {
			return r.failed(key, err)
		}
	}
	if writeStatus {
		t.Status = want
		if err := r.Client.Status().Update(ctx, &t); err != nil {
			if apierrors.IsConflict(err) && r.APIReader != nil {
				return r.rereadAfterConflict(ctx, req)
			}
			return r.failed(key, err)
		}
	}
	// 有錯誤時 controller-runtime 不看 RequeueAfter：它以限速的方式重新排入佇列。 / With an error, controller-runtime ignores RequeueAfter and requeues rate-limited.
	return reconcile.Result{RequeueAfter: r.Recount}, nil
}

// count 跟步驟 06 的一樣，只是 Pod 從 manager 的快取讀：List 一個 PartialObjectMetadataList。
//
// count is step 06's, except that pods come from the manager's cache: a List
// of a PartialObjectMetadataList.
func (r *TallyReconciler) count(ctx context.Context, t *labv1alpha1.PodTally) (labv1alpha1.PodTallyStatus, string, error) {
	status := labv1alpha1.PodTallyStatus{ObservedGeneration: t.Generation, Conditions: slices.Clone(t.Status.Conditions)}
	// 演練「reconcile 風暴」（--stamp）：status 裡寫下現在的時間，見 storm.go。 / The drill "a reconcile storm" (--stamp): the time goes into status, see storm.go.
	if r.Stamp {
		stamp(&status)
	}
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
// map 函式不能回傳錯誤：List 失敗時把它寫進 log 並印一行，這個 Pod 的變化就不排入任何 tally。
//
// tallyFor is the pods' map function: it finds every tally that selects the
// pod (a List from the cache, as step 06 scans the lister). On an update
// controller-runtime calls it for the old and for the new object and merges
// the results: a pod that loses a label makes its old tally count again. A
// map function cannot return an error: when the List fails it logs it and
// prints a line, and this pod's change queues no tally.
func (r *TallyReconciler) tallyFor(ctx context.Context, pod client.Object) []reconcile.Request {
	var tallies labv1alpha1.PodTallyList
	if err := r.Client.List(ctx, &tallies, client.InNamespace(pod.GetNamespace())); err != nil {
		ctrllog.FromContext(ctx).Error(err, "listing tallies for a pod", "pod", show.Key(pod))
		show.Line(r.Out, "pods", "map", show.Key(pod), "cannot list tallies ("+err.Error()+"): this change queues nothing", show.OpSkip)
		return nil
	}
	var reqs []reconcile.Request
	for _, t := range tallies.Items {
		if sel, err := labels.Parse(t.Spec.Selector); err == nil && sel.Matches(labels.Set(pod.GetLabels())) {
			reqs = append(reqs, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(&t)})
		}
	}
	return reqs
}
