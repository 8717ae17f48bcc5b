package main

import "github.com/informer-walkthrough/informer-walkthrough/internal/liveview"

// page 是這一步在即時頁面（--ui）上的樣子，跟步驟 06 的同形，再多一個：manager 的快取裡三個並排的 informer
// （tally、Pod 的 metadata、帶著 managed-by 標籤的 ConfigMap），把 Request 放進控制器的佇列，Reconcile 讀快取、
// 把 finalizer、報告、索引與 status 寫回 API server。佇列沒有深度：
// controller-runtime 的套件一被 import，就在 init 裡占走 client-go 只能設定一次的 workqueue.SetProvider，
// 接到它自己的 metrics，即時頁面後來的設定不起作用；預設的 priority queue 更是直接回報給那些 metrics。
// 頁面的 metrics 拿不到這個深度，所以頁面也不畫。
//
// page is this step on the live page (--ui), the same shape as step 06's
// and one more: three informers side by side in the manager's cache (the
// tallies, the pods' metadata, the ConfigMaps with the managed-by label) put
// Requests into the controller's queue, and Reconcile reads the cache and
// writes the finalizer, the report, the index and the status back to the
// API server. The queue has no depth: importing controller-runtime
// runs an init that takes client-go's once-only workqueue.SetProvider for
// controller-runtime's own metrics, so the live view's later call does
// nothing, and the default priority queue reports to those metrics directly
// anyway. The page's metrics never see the depth, and the page draws none.
func page(options) liveview.Pipeline {
	tallies := liveview.Stage{
		ID:      "tallies",
		Label:   liveview.Text{En: "PodTally informer", Zh: "PodTally informer"},
		Caption: liveview.Text{En: "the manager's cache: a shared informer for PodTally; For with GenerationChangedPredicate", Zh: "manager 的快取：PodTally 的共享 informer；For 加上 GenerationChangedPredicate"},
		Sources: []string{"tallies"},
		Rank:    1,
		Opaque:  true,
	}
	pods := liveview.Stage{
		ID:      "pods",
		Label:   liveview.Text{En: "Pod metadata informer", Zh: "只看 metadata 的 Pod informer"},
		Caption: liveview.Text{En: "the manager's cache: pods, metadata only (builder.OnlyMetadata); a map function finds the tallies", Zh: "manager 的快取：只看 metadata 的 Pod（builder.OnlyMetadata）；map 函式找出 tally"},
		Sources: []string{"pods"},
		Rank:    1,
		Row:     2,
		Opaque:  true,
	}
	reports := liveview.Stage{
		ID:      "reports",
		Label:   liveview.Text{En: "ConfigMap informer", Zh: "ConfigMap informer"},
		Caption: liveview.Text{En: "Owns(&ConfigMap{}): the reports, cached by their managed-by label; a deleted report queues its owner", Zh: "Owns(&ConfigMap{})：報告，依 managed-by 標籤放進快取；報告被刪，就把擁有者放進佇列"},
		Sources: []string{"reports"},
		Rank:    1,
		Row:     1,
		Opaque:  true,
	}
	// Pod 的 informer 在最下面一列：Reconcile 計算 Pod 數的虛線從它的下緣出發，不會像是從別的方框出來的。
	// The pod informer is the bottom row: Reconcile's dashed line for counting pods leaves its bottom edge and cannot
	// seem to come from another box.
	queue := liveview.Workqueue(2, false)
	queue.Caption = liveview.Text{En: "the controller's priority queue: no depth shown (it reports to controller-runtime's own metrics)", Zh: "控制器的 priority queue：這裡不畫深度（它回報給 controller-runtime 自己的 metrics）"}
	reconcile := liveview.Stage{
		ID:      "workers",
		Label:   liveview.Text{En: "Reconcile", Zh: "Reconcile"},
		Caption: liveview.Text{En: "MaxConcurrentReconciles goroutines calling TallyReconciler.Reconcile", Zh: "MaxConcurrentReconciles 個 goroutine 呼叫 TallyReconciler.Reconcile"},
		Sources: []string{"podtally"},
		Rank:    3,
	}
	return liveview.Pipeline{
		Step:    "step07-controller-runtime",
		Title:   liveview.Text{En: "Step 07: the same controller in controller-runtime", Zh: "步驟 07：同一個控制器，用 controller-runtime 寫"},
		Chapter: liveview.Chapter("07-controller-runtime"),
		Stages:  []liveview.Stage{liveview.APIServer(), tallies, pods, reports, queue, reconcile},
		Edges: append(append(append(liveview.Flows("api", "tallies", "workqueue", "workers"), liveview.Flows("api", "pods", "workqueue")...), liveview.Flows("api", "reports", "workqueue")...),
			liveview.Edge{From: "pods", To: "workers", Kind: liveview.Read, Label: liveview.Text{En: "count pods", Zh: "計算 Pod 數"}},
			liveview.Edge{From: "workers", To: "api", Kind: liveview.Write, Label: liveview.Text{En: "Update, Apply, Patch, Status().Update", Zh: "Update、Apply、Patch、Status().Update"}},
		),
		Panels: []string{"workqueue"},
	}
}
