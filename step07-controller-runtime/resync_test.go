package main

import (
	"strings"
	"testing"
	"time"

	"github.com/informer-walkthrough/informer-walkthrough/internal/cli"
	"github.com/informer-walkthrough/informer-walkthrough/internal/show"
	"github.com/informer-walkthrough/informer-walkthrough/internal/testenv"
)

// 情境：演練「resync 與 SyncPeriod」。--sync-period 2s：每個 informer 大約每兩秒（controller-runtime 讓它上下
// 最多差 10 %，所以是 1.8 到 2.2 秒）把快取裡的 tally 再交給處理函式一次，新舊 resourceVersion 一樣，--trace 裡
// 沒有任何新的請求。GenerationChangedPredicate 把每一次都擋下：又等了兩次 resync，Reconcile 還是只有第一次那一個。
// 修正：--reconcile-resyncs 讓 resourceVersion 沒變的更新通過，每次 resync 都帶來一次 Reconcile。
//
// The story: the drill "resync and SyncPeriod". --sync-period 2s: about
// every two seconds (controller-runtime varies it by up to 10% either way,
// so 1.8 to 2.2 s) each informer hands the cached tally to the handler again, old and new
// resourceVersion equal, with no new request in --trace.
// GenerationChangedPredicate drops every one: two resyncs later there is
// still only the first Reconcile. The fix: --reconcile-resyncs lets an update
// whose resourceVersion did not change through, and each resync brings a
// Reconcile.
func TestSyncPeriodDrill(t *testing.T) {
	testenv.FullTier(t, "a drill that waits out real resync periods, about 14 s")
	c := testenv.Plain(t)
	installCRD(t, c)
	ns := c.Namespace(t)
	freshTally(t, c, ns, "app-demo", "app=demo")
	const dropped = "resync (resourceVersion "
	t.Run("dropped", func(t *testing.T) {
		trace := &testenv.Output{}
		cfg := c.Config()
		cfg.Wrap(cli.Tracer(trace))
		out := startStep(t, cfg, ns, options{syncPeriod: 2 * time.Second})
		resync := []string{show.Prefix("tallies", "OnUpdate", "") + ns + "/app-demo ", dropped, "unchanged), generation 1 unchanged: GenerationChangedPredicate drops it"}
		// 第一次 resync 的時候，第一次 Reconcile 的寫入早就結束了；從這裡開始數請求。
		// By the first resync the first Reconcile's writes are long done; requests are counted from here.
		out.Wait(t, 1, resync...)
		requests := strings.Count(trace.String(), "trace: ")
		out.Wait(t, 3, resync...)
		if n := out.Count(show.Prefix("podtally", "Reconcile", "")); n != 1 {
			t.Errorf("%d Reconciles; want only the first: a resync never passes GenerationChangedPredicate\n%s", n, out.String())
		}
		if after := strings.Count(trace.String(), "trace: "); after != requests {
			t.Errorf("%d requests during two resyncs; want none:\n%s", after-requests, trace.String())
		}
	})
	t.Run("fixed", func(t *testing.T) {
		out := startStep(t, c.Config(), ns, options{syncPeriod: 2 * time.Second, reconcileResyncs: true})
		out.Wait(t, 2, show.Prefix("tallies", "OnUpdate", ns+"/app-demo"), dropped, "unchanged): reconcile")
		testenv.WantOrder(t, out.String(),
			show.Prefix("tallies", "OnUpdate", ns+"/app-demo"), "unchanged): reconcile",
			show.Prefix("podtally", "Reconcile", ns+"/app-demo"), "status up to date")
		out.Wait(t, 3, show.Prefix("podtally", "Reconcile", ns+"/app-demo"))
	})
}
