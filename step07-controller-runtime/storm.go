package main

import (
	"context"
	"io"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/informer-walkthrough/informer-walkthrough/internal/show"
	labv1alpha1 "github.com/informer-walkthrough/informer-walkthrough/step06-custom-resource/apis/lab/v1alpha1"
)

// stamp 是演練「reconcile 風暴」的一半（--stamp）：每次 Reconcile 都在 status 裡寫下現在的時間（Counted condition
// 的 message），所以 status 每次都「變了」，每次都要寫。另一半是 --no-predicate：自己的寫入以一次更新回來，
// 沒有 GenerationChangedPredicate 擋著，就再 reconcile 一次，又寫一次，永不停止。兩個修正各拿掉一半：
// 留著 predicate（自己的寫入不改 generation，被擋下），或只在 status 真的變了才寫（不加 --stamp）。
//
// stamp is half of the drill "a reconcile storm" (--stamp): every Reconcile
// writes the time into status (the Counted condition's message), so status
// has always "changed" and is always written. The other half is
// --no-predicate: the controller's own write comes back as an update, and
// with no GenerationChangedPredicate to drop it, it reconciles again, writes
// again, and never stops. Each fix takes one half away: keep the predicate
// (your own write leaves the generation alone and is dropped), or write
// status only when it really changed (no --stamp).
func stamp(status *labv1alpha1.PodTallyStatus) {
	meta.SetStatusCondition(&status.Conditions, metav1.Condition{
		Type:               "Counted",
		Status:             metav1.ConditionTrue,
		Reason:             "Stamped",
		Message:            "counted at " + time.Now().UTC().Format(time.RFC3339Nano),
		ObservedGeneration: status.ObservedGeneration,
	})
}

// reconcileRate 在演練「reconcile 風暴」時，每秒讀一次 controller-runtime 自己的
// controller_runtime_reconcile_total（這個控制器的，所有結果加總），這一秒有 Reconcile 才印一行：
// 風暴裡這一行每秒都在、數字居高不下；修正之後它停下來。
//
// reconcileRate reads, during the drill "a reconcile storm",
// controller-runtime's own controller_runtime_reconcile_total once a second
// (this controller's, all results summed) and prints a line when there were
// Reconciles in that second: in a storm the line is there every second and
// the number stays high; once fixed it stops.
func reconcileRate(ctx context.Context, out io.Writer) {
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	last := reconcileTotal()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			now := reconcileTotal()
			if now > last {
				show.Note(out, "controller_runtime_reconcile_total{controller=\"podtally\"}: %.0f (%.0f in the last second)", now, now-last)
			}
			last = now
		}
	}
}

// reconcileTotal 從 controller-runtime 的 metrics registry 讀出 podtally 的 Reconcile 總數。
//
// reconcileTotal reads podtally's Reconcile total from controller-runtime's
// metrics registry.
func reconcileTotal() float64 {
	families, err := metrics.Registry.Gather()
	if err != nil {
		return 0
	}
	total := 0.0
	for _, f := range families {
		if f.GetName() != "controller_runtime_reconcile_total" {
			continue
		}
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "controller" && l.GetValue() == "podtally" {
					total += m.GetCounter().GetValue()
				}
			}
		}
	}
	return total
}
