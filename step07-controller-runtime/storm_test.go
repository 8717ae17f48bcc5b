package main

import (
	"testing"

	"github.com/informer-walkthrough/informer-walkthrough/internal/show"
	"github.com/informer-walkthrough/informer-walkthrough/internal/testenv"
)

// 情境：演練「reconcile 風暴」。--stamp --no-predicate：每次 Reconcile 都寫 status，寫入以一次更新回來，
// 沒有 predicate 擋，又 reconcile：次數一直往上爬（這裡等到 60 次，比任何會停下的控制器多得多），
// 每秒一行的 controller_runtime_reconcile_total 也一直在。兩個修正各拿掉一半：
// 留著 predicate（只 --stamp）：自己的兩次寫入（finalizer 與 status）回來時都被擋下，Reconcile 只有一次；
// 不寫時間（只 --no-predicate）：自己的寫入各帶來一次 Reconcile，它們發現沒東西要寫，就停了（讀到落後的快取的
// 那一次先得到 409）；成功的 status 寫入只有一次。
//
// The story: the drill "a reconcile storm". --stamp --no-predicate: every
// Reconcile writes status, the write comes back as an update, nothing drops
// it, and it reconciles again: the count climbs (the test waits for 60, far
// more than any controller that settles makes), and the once-a-second
// controller_runtime_reconcile_total line keeps coming. Each fix takes one
// half away. Keep the predicate (--stamp alone): both of the controller's own
// writes (finalizer and status) come back and are dropped, and there is one
// Reconcile. Stop writing the time (--no-predicate alone): each own write
// brings one Reconcile, which finds nothing to write, and it stops (one that
// read a lagging cache meets a 409 first); one status write goes through.
func TestStormDrill(t *testing.T) {
	testenv.FullTier(t, "a drill that lets a storm climb to 60 Reconciles, about 10 s")
	c := testenv.Plain(t)
	installCRD(t, c)
	ns := c.Namespace(t)
	reconciles := show.Prefix("podtally", "Reconcile", "") + ns + "/app-demo "
	t.Run("storm", func(t *testing.T) {
		freshTally(t, c, ns, "app-demo", "app=demo")
		out := startStep(t, c.Config(), ns, options{stamp: true, noPredicate: true})
		out.Wait(t, 60, reconciles)
		out.Wait(t, 2, "-- controller_runtime_reconcile_total{controller=\"podtally\"}: ")
	})
	t.Run("predicate", func(t *testing.T) {
		freshTally(t, c, ns, "app-demo", "app=demo")
		out := startStep(t, c.Config(), ns, options{stamp: true})
		// 兩次自己的寫入（finalizer 的 Update 與 status）都回來了、都被擋下：之後不會再有 Reconcile。
		// Both own writes (the finalizer's Update and the status) have come back and been dropped: no Reconcile follows.
		out.Wait(t, 2, show.Prefix("tallies", "OnUpdate", ns+"/app-demo"), "GenerationChangedPredicate drops it")
		if n := out.Count(reconciles); n != 1 {
			t.Errorf("%d Reconciles; want 1: the predicate drops the controller's own writes\n%s", n, out.String())
		}
	})
	t.Run("status only when changed", func(t *testing.T) {
		freshTally(t, c, ns, "app-demo", "app=demo")
		out := startStep(t, c.Config(), ns, options{noPredicate: true})
		// 自己的兩次寫入各帶來一次 Reconcile。讀到還沒收到 status 寫入的快取的那一次，會再寫一次而得到 409，
		// 重新排入佇列之後就沒東西要寫了。成功的 status 寫入只有第一次那一個：風暴裡它一直增加。
		// Each of the two own writes brings a Reconcile. One that reads a cache still without the status write
		// writes again and gets 409, and after the requeue has nothing to write. There is one successful status
		// write, the first: in a storm that number keeps growing.
		out.Wait(t, 2, show.Prefix("tallies", "OnUpdate", ns+"/app-demo"), "no predicate: reconcile")
		out.Wait(t, 1, reconciles, "nothing to write")
		if written := out.Count(reconciles, "UpdateStatus") - out.Count(reconciles, "409 Conflict"); written != 1 {
			t.Errorf("%d status writes went through; want 1: without --stamp the status is written only when it changed\n%s", written, out.String())
		}
	})
}
