package main

import (
	"strings"
	"testing"
	"time"

	"github.com/informer-walkthrough/informer-walkthrough/internal/scene"
	"github.com/informer-walkthrough/informer-walkthrough/internal/show"
	"github.com/informer-walkthrough/informer-walkthrough/internal/testenv"
)

// 情境：GenerationChangedPredicate 的代價。另一個寫入者（scene 的 tally-count）把 tally 的 status.count 改成 7
// （經由 status 子資源，generation 不變）。這次更新到了控制器，卻被 predicate 擋下，沒有讓 key 進佇列：錯的數字留著。把它改回 0 的
// Reconcile 是 --recount（RequeueAfter）排的，--why 說它只有這一個原因。
//
// The story: what GenerationChangedPredicate costs. Another writer (scene's
// tally-count) sets the tally's status.count to 7 (through the status subresource, so the
// generation stays). The update reaches the controller and the predicate
// drops it, queueing nothing: the wrong count stays. The Reconcile that
// puts it back to 0 was queued by --recount (RequeueAfter), and --why says
// that was its only reason.
func TestOverwrittenStatusWaitsForTheRecount(t *testing.T) {
	testenv.FullTier(t, "waits out two recounts, about 6 s")
	c := testenv.Plain(t)
	installCRD(t, c)
	ns := c.Namespace(t)
	freshTally(t, c, ns, "app-demo", "app=demo")
	out := startStep(t, c.Config(), ns, options{why: true, recount: 2 * time.Second})
	key := ns + "/app-demo"
	why := "-- podtally: " + key + " reconciled for "
	dropped := []string{show.Prefix("tallies", "OnUpdate", key), "generation 1 unchanged: GenerationChangedPredicate drops it"}
	// 第一次 recount 時，第一次 Reconcile 的寫入（finalizer、status）與它們帶回來的更新早就結束了。
	// By the first recount the first Reconcile's writes (finalizer, status) and the updates they bring back are long done.
	out.Wait(t, 1, why, "RequeueAfter 2s")
	before := out.Count(dropped...)

	// 學習者在第二個終端機打的那一行：scripts/scene.sh tally-count app-demo 7。
	// The line a learner types in the second terminal: scripts/scene.sh tally-count app-demo 7.
	overwrite := []string{"tally-count", "app-demo", "7"}
	if err := scene.Check(overwrite); err != nil {
		t.Fatal(err)
	}
	if err := scene.Run(t.Context(), c.Client(), ns, overwrite, scene.Settings{}, func(string) {}); err != nil {
		t.Fatal(err)
	}
	out.Wait(t, before+1, dropped...)
	correction := show.Prefix("podtally", "Reconcile", key)
	out.Wait(t, 1, correction, "UpdateStatus: count 7 -> 0")

	// 改正的那次 Reconcile 之前的最後一行 --why 只列出 RequeueAfter：被擋下的那次更新沒有讓 key 進佇列。
	// The last --why line before the correcting Reconcile lists only the RequeueAfter: the dropped update queued nothing.
	lines := strings.Split(out.String(), "\n")
	last := ""
	for _, line := range lines {
		if strings.Contains(line, correction) && strings.Contains(line, "UpdateStatus: count 7 -> 0") {
			break
		}
		if strings.Contains(line, why) {
			last = line
		}
	}
	if !strings.HasSuffix(last, "reconciled for 1 reason(s) since its last Reconcile: RequeueAfter 2s") {
		t.Errorf("the Reconcile that put the count back was queued for %q; want the recount alone\n%s", last, out.String())
	}
}
