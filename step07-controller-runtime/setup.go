package main

import (
	"context"
	"fmt"
	"io"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/informer-walkthrough/informer-walkthrough/internal/show"
	labv1alpha1 "github.com/informer-walkthrough/informer-walkthrough/step06-custom-resource/apis/lab/v1alpha1"
)

// SetupWithManager 把 TallyReconciler 接到 manager 上，跟 kubebuilder 產生的專案一樣：For 是 tally（加上
// 會把判斷印出來的 GenerationChangedPredicate）；Owns 是它的報告 ConfigMap，報告有變化就把擁有者排進佇列；
// Watches 是只看 metadata 的 Pod，透過 map 函式變成 tally 的 Request。同時執行幾個 Reconcile 由 manager 的
// Controller 選項決定（newManager），只在那裡設定一次。
//
// SetupWithManager wires TallyReconciler into the manager, as a kubebuilder
// project does: For the tally (with the GenerationChangedPredicate that
// prints its decisions); Owns its report ConfigMap, whose changes queue the
// owner; Watches pods, metadata only, turned into tally Requests by the map
// function. How many Reconciles run at once is the manager's Controller
// option (newManager), set there once.
//
// SetupWithManager 用 builder.ControllerManagedBy，而不是 kubebuilder 寫的 ctrl.NewControllerManagedBy：兩者是同一個函式，
// 但 import 最上層的 sigs.k8s.io/controller-runtime 會連帶 import pkg/client/config，後者在 init 裡註冊
// --kubeconfig 旗標，跟這一步自己的旗標衝突。
//
// SetupWithManager uses builder.ControllerManagedBy rather than
// kubebuilder's ctrl.NewControllerManagedBy: the same function, but
// importing the top sigs.k8s.io/controller-runtime package imports
// pkg/client/config too, whose init registers a --kubeconfig flag that
// clashes with this step's own.
func (r *TallyReconciler) SetupWithManager(mgr manager.Manager) error {
	return r.setUp(mgr, nil)
}

// setUp 是 SetupWithManager，外加步驟自己的一件事：ready 關閉之前（「caches synced」那一行印出之前），
// Reconcile 先等著，讓印出來的順序固定（見 observed）。
//
// setUp is SetupWithManager plus one thing of the step's own: until ready is
// closed (until the "caches synced" line is printed) Reconcile waits, so the
// printed order is fixed (see observed).
func (r *TallyReconciler) setUp(mgr manager.Manager, ready <-chan struct{}) error {
	return builder.ControllerManagedBy(mgr).
		Named("podtally").
		For(&labv1alpha1.PodTally{}, builder.WithPredicates(whyTallies(tallyEvents(r.Out, r.ReconcileResyncs, r.NoPredicate), r.why))).
		Owns(&corev1.ConfigMap{}, builder.WithPredicates(whyReports(reportEvents(r.Out), r.why))).
		Watches(podsMeta(), queuedBy(handler.EnqueueRequestsFromMapFunc(r.tallyFor), r.Out, r.why), builder.OnlyMetadata, builder.WithPredicates(podEvents(r.Out))).
		Complete(observed(r, r.Out, ready))
}

// tallyEvents 是步驟 06 的 tally 處理函式改寫成 predicate 的樣子：GenerationChangedPredicate 決定要不要 reconcile，
// 外面這一層只負責把決定印出來。控制器自己寫 status（或加上 finalizer）之後，那次更新的 generation 沒變，
// 就在這裡被擋下；刪除時 API server 設定 deletionTimestamp 並把 generation 加一，所以那次更新會通過。
//
// tallyEvents is step 06's tally handler as a predicate:
// GenerationChangedPredicate decides whether to reconcile, and this wrapper
// only prints the decision. After the controller writes status (or adds its
// finalizer), that update's generation is unchanged, and it stops here; a
// delete makes the API server set deletionTimestamp and add one to the
// generation, so that update passes.
func tallyEvents(out io.Writer, resyncs, none bool) predicate.Predicate {
	gen := predicate.GenerationChangedPredicate{}
	return predicate.Funcs{
		CreateFunc: func(e event.CreateEvent) bool {
			announce(out, e.IsInInitialList, "tallies", "OnAdd", show.Key(e.Object), fmt.Sprintf("generation %d: reconcile", e.Object.GetGeneration()),
				show.OpHandle, show.SawMeta(e.Object), show.Queued("workqueue"))
			return true
		},
		UpdateFunc: func(e event.UpdateEvent) bool {
			// --no-predicate：每次更新都 reconcile，包括這個控制器自己寫入造成的（演練「reconcile 風暴」）。
			// --no-predicate: every update reconciles, the ones this controller's own writes cause included (the drill "a reconcile storm").
			if none {
				show.Line(out, "tallies", "OnUpdate", show.Key(e.ObjectNew), fmt.Sprintf("generation %d, no predicate: reconcile", e.ObjectNew.GetGeneration()),
					show.OpHandle, show.SawMeta(e.ObjectNew), show.Queued("workqueue"))
				return true
			}
			if gen.Update(e) {
				why := ""
				if e.ObjectNew.GetDeletionTimestamp() != nil {
					why = ", deletionTimestamp set"
				}
				show.Line(out, "tallies", "OnUpdate", show.Key(e.ObjectNew), fmt.Sprintf("generation %d -> %d%s: reconcile", e.ObjectOld.GetGeneration(), e.ObjectNew.GetGeneration(), why),
					show.OpHandle, show.SawMeta(e.ObjectNew), show.Queued("workqueue"))
				return true
			}
			// 新舊 resourceVersion 一樣：這不是一次寫入，而是 informer 的 resync（--sync-period），它不送任何請求，
			// 只把快取裡的物件再交給處理函式一次。GenerationChangedPredicate 分不出兩者，照樣擋下。
			// Old and new resourceVersion equal: not a write but the informer's resync (--sync-period), which sends no
			// request and only hands the cached object to the handler again. GenerationChangedPredicate cannot tell
			// the two apart and drops it all the same.
			if rv := e.ObjectNew.GetResourceVersion(); rv == e.ObjectOld.GetResourceVersion() {
				if resyncs {
					show.Line(out, "tallies", "OnUpdate", show.Key(e.ObjectNew), "resync (resourceVersion "+rv+" unchanged): reconcile",
						show.OpHandle, show.SawMeta(e.ObjectNew), show.Queued("workqueue"))
					return true
				}
				show.Line(out, "tallies", "OnUpdate", show.Key(e.ObjectNew), fmt.Sprintf("resync (resourceVersion %s unchanged), generation %d unchanged: GenerationChangedPredicate drops it", rv, e.ObjectNew.GetGeneration()),
					show.OpSkip, show.SawMeta(e.ObjectNew))
				return false
			}
			show.Line(out, "tallies", "OnUpdate", show.Key(e.ObjectNew), fmt.Sprintf("generation %d unchanged: GenerationChangedPredicate drops it", e.ObjectNew.GetGeneration()),
				show.OpSkip, show.SawMeta(e.ObjectNew))
			return false
		},
		DeleteFunc: func(e event.DeleteEvent) bool {
			show.Line(out, "tallies", "OnDelete", show.Key(e.Object), "reconcile", show.OpHandle, show.Gone(nil), show.Queued("workqueue"))
			return true
		},
	}
}

// reportEvents 過濾報告 ConfigMap 的事件。這個控制器是報告唯一的寫入者，所以只有刪除要緊：有人刪了報告，
// 擁有者就被排進佇列，Reconcile 再建一份。新增與更新都是它自己寫的，放行的話，每次寫入之後都要多一次
// 什麼也不做的 Reconcile，所以擋下（只給即時頁面）。要把別人的修改改回來的控制器，就得讓更新通過，
// 並接受那一次多出來的 Reconcile。沒有 controller 擁有者的 ConfigMap（共用的索引），它的事件不會讓任何東西排進佇列。
//
// reportEvents filters the report ConfigMaps' events. This controller is
// the report's only writer, so only a delete matters: someone deleted the
// report, the owner is queued, and Reconcile writes it again. Adds and
// updates are its own writes; let through, each write would buy one more
// Reconcile that does nothing, so they are dropped (for the live page only).
// A controller that must undo others' edits lets updates through and lives
// with that extra Reconcile. A ConfigMap with no controller owner (the
// shared index) queues nothing.
func reportEvents(out io.Writer) predicate.Predicate {
	owner := func(obj client.Object) string {
		if ref := metav1.GetControllerOf(obj); ref != nil && ref.Kind == "PodTally" {
			return ref.Name
		}
		return ""
	}
	ours := func(what string, obj client.Object) bool {
		why := "our own write: dropped"
		if owner(obj) == "" {
			why = "owned by no tally (the shared index): queues nothing"
		}
		show.Quiet(out, "reports", what, show.Key(obj), why, show.OpSkip, show.SawMeta(obj))
		return false
	}
	return predicate.Funcs{
		CreateFunc: func(e event.CreateEvent) bool { return ours("OnAdd", e.Object) },
		UpdateFunc: func(e event.UpdateEvent) bool { return ours("OnUpdate", e.ObjectNew) },
		DeleteFunc: func(e event.DeleteEvent) bool {
			name := owner(e.Object)
			if name == "" {
				return false
			}
			show.Line(out, "reports", "OnDelete", show.Key(e.Object), "owned by PodTally "+name+": reconcile the owner", show.OpHandle, show.Gone(nil),
				show.Queued("workqueue", e.Object.GetNamespace()+"/"+name))
			return true
		},
	}
}

// announce 印出一個事件；初始清單的新增（IsInInitialList）只給即時頁面：幾個 informer 同時送出它們的初始清單，
// 誰先誰後沒有固定的順序，印出來的輸出就無法逐行比對。
//
// announce prints an event; the initial list's adds (IsInInitialList) go to
// the live page only: the informers deliver their initial lists at the same
// time, in no fixed order, and printed they would make the output impossible
// to compare line by line.
func announce(out io.Writer, initial bool, source, what, key, detail string, fields ...show.Field) {
	if initial {
		show.Quiet(out, source, what, key, detail+" (initial list)", append(fields, show.Initial(true))...)
		return
	}
	show.Line(out, source, what, key, detail, fields...)
}

// podEvents 只讓改了標籤的更新通過（新增與刪除一律通過），跟步驟 06 的 podChanged 一樣；
// 被擋下的更新不印，只給即時頁面。
//
// podEvents lets through only updates that change labels (adds and deletes
// always pass), as step 06's podChanged does; the updates it drops are not
// printed, only sent to the live page.
func podEvents(out io.Writer) predicate.Predicate {
	return predicate.Funcs{
		CreateFunc: func(e event.CreateEvent) bool {
			announce(out, e.IsInInitialList, "pods", "OnAdd", show.Key(e.Object), "labels="+show.Labels(e.Object.GetLabels())+": map to tallies",
				show.OpHandle, show.SawMeta(e.Object))
			return true
		},
		UpdateFunc: func(e event.UpdateEvent) bool {
			if labels.Equals(e.ObjectOld.GetLabels(), e.ObjectNew.GetLabels()) {
				show.Quiet(out, "pods", "OnUpdate", show.Key(e.ObjectNew), "labels unchanged: dropped by the predicate", show.OpSkip, show.SawMeta(e.ObjectNew))
				return false
			}
			show.Line(out, "pods", "OnUpdate", show.Key(e.ObjectNew), fmt.Sprintf("labels %s -> %s: map to tallies", show.Labels(e.ObjectOld.GetLabels()), show.Labels(e.ObjectNew.GetLabels())),
				show.OpHandle, show.SawMeta(e.ObjectNew))
			return true
		},
		DeleteFunc: func(e event.DeleteEvent) bool {
			show.Line(out, "pods", "OnDelete", show.Key(e.Object), "labels="+show.Labels(e.Object.GetLabels())+": map to tallies", show.OpHandle, show.Gone(nil))
			return true
		},
	}
}

// observed 包住 Reconciler，讓即時頁面看到每次 Reconcile 什麼時候開始、什麼時候結束（不印出來）：
// controller-runtime 的 worker 與佇列在它自己裡面，步驟看得到的就是這兩個時刻。ready 不是 nil 時，
// 第一次 Reconcile 先等它關閉：控制器本來就要等快取同步之後才啟動 worker，這只是讓「caches synced」
// 那一行一定印在第一個 Reconcile 之前。
//
// observed wraps the Reconciler so the live page sees when each Reconcile
// begins and ends (nothing printed): controller-runtime's workers and queue
// are inside it, and these two moments are what the step can see. With a
// ready channel, the first Reconcile waits for it to close: the controller
// starts its workers only after the caches have synced anyway; this only
// makes sure the "caches synced" line is printed before the first Reconcile.
func observed(r *TallyReconciler, out io.Writer, ready <-chan struct{}) reconcile.Reconciler {
	return reconcile.Func(func(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
		if ready != nil {
			select {
			case <-ready:
			case <-ctx.Done():
				return reconcile.Result{}, nil
			}
		}
		show.Quiet(out, "podtally", "Get", req.String(), "Reconcile begins", show.OpGet)
		r.why.say(out, req.String())
		// 演練「沒有要求的 informer」（--read-service）：每次 Reconcile 之前讀一個 Service，見 peek.go。
		// The drill "the informer you did not ask for" (--read-service): a Service read before every Reconcile, see peek.go.
		res, err := reconcile.Result{}, r.peek(ctx, req.Namespace)
		if err == nil {
			res, err = r.Reconcile(ctx, req)
		}
		r.why.after(req.String(), res.RequeueAfter, err)
		show.Quiet(out, "podtally", "Done", req.String(), "Reconcile returned", show.OpDone)
		return res, err
	})
}
