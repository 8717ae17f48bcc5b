package main

import (
	"fmt"
	"regexp"
	"testing"

	"github.com/informer-walkthrough/informer-walkthrough/internal/golden"
	"github.com/informer-walkthrough/informer-walkthrough/internal/scene"
	"github.com/informer-walkthrough/informer-walkthrough/internal/show"
	"github.com/informer-walkthrough/informer-walkthrough/internal/testenv"
)

// 情境：README 的控制器。kube-scheduler 與 kwok 先被暫停，再一個一個放開，每個變化各有一次同步；
// 刪除時 kwok 也先暫停，所以 (deleting) 的同步一定出現，之後 lister 找不到這個 Pod。
// kwok 補上的那次刪除與真正的刪除可能合併成一次同步，所以連續相同的 sync 行只留一行。
//
// The story: the README's controller. kube-scheduler and kwok are paused,
// then released one at a time, so each change gets a sync of its own; kwok is
// paused for the delete too, so the (deleting) sync always shows, and then
// the lister no longer has the pod. kwok's finishing delete and the removal
// itself may merge into one sync, so identical consecutive sync lines are
// kept once.
func TestControllerDemo(t *testing.T) {
	ctx := t.Context()
	c := testenv.Realistic(t)
	cs := c.Client()
	ns := "default"
	testenv.BeforePod(t, cs, ns)
	out := startStepOn(t, cs, ns, options{controller: true})
	out.Wait(t, 1, show.Prefix("worker1", "sync", "default/before"))

	c.OneChangeAtATime(t, ns, func(change string) {
		out.Wait(t, 1, show.Prefix("worker1", "sync", "default/demo"), testenv.DemoAfter[change])
	})
	resumeKwok := c.Pause(t, "kwok")
	if err := scene.Delete(ctx, cs, ns, "demo"); err != nil {
		t.Fatal(err)
	}
	out.Wait(t, 1, show.Prefix("worker1", "sync", "default/demo"), "(deleting)")
	resumeKwok()
	out.Wait(t, 1, show.Prefix("worker1", "sync", "default/demo"), "not in the lister: the pod was deleted")
	golden.Check(t, "controller", golden.CollapseRepeats(golden.StripVersions(out.String())))
}

// 情境：同步失敗時照步驟 04 的方式重試：五次，然後放棄；拿掉 annotation 之後，下一個變化又同步成功。
//
// The story: a failing sync is retried as in step 04: five times, then given
// up; once the annotation is gone, the next change syncs again.
func TestControllerRetries(t *testing.T) {
	ctx := t.Context()
	c := testenv.Plain(t)
	cs := c.Client()
	ns := c.Namespace(t)
	testenv.CreatePod(t, cs, ns, "demo", nil)
	out := startStepOn(t, cs, ns, options{controller: true})
	out.Wait(t, 1, show.Prefix("worker1", "sync", ns+"/demo"))
	if _, err := scene.Annotate(ctx, cs, ns, "demo", failAnnotation, new("true")); err != nil {
		t.Fatal(err)
	}
	out.Wait(t, 1, show.Prefix("worker1", "FAILED", ns+"/demo"), "giving up after 5 retries")
	for i := 1; i <= maxRetries; i++ {
		if n := out.Count("FAILED", fmt.Sprintf("retry %d/5", i)); n != 1 {
			t.Errorf("retry %d/5 appears %d times; want once:\n%s", i, n, out.String())
		}
	}
	if _, err := scene.Annotate(ctx, cs, ns, "demo", failAnnotation, nil); err != nil {
		t.Fatal(err)
	}
	out.Wait(t, 2, show.Prefix("worker1", "sync", ns+"/demo"))
}

// 情境：三個 worker 並行處理一陣密集的變化；每個 Pod 在最後一個變化之後都再同步一次，看到的是最新的狀態；
// 同步的不只一個 worker。
//
// The story: three workers in parallel take a burst of changes; every pod is
// synced once more after its last change, and sees its latest state; more
// than one worker syncs.
func TestControllerWorkers(t *testing.T) {
	ctx := t.Context()
	c := testenv.Plain(t)
	cs := c.Client()
	ns := c.Namespace(t)
	for _, name := range []string{"a", "b", "c"} {
		testenv.CreatePod(t, cs, ns, name, nil)
	}
	out := startStepOn(t, cs, ns, options{controller: true, workers: 3})
	out.Wait(t, 1, "starting 3 worker(s)")
	if _, err := scene.Burst(ctx, cs, ns, 9); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"a", "b", "c"} {
		// 第一次是初始清單的同步，第二次是 burst 拿掉標籤之後。 / The first is the initial list's sync, the second after the burst removed its label.
		out.Wait(t, 2, " sync      "+ns+"/"+name+" ", "labels=<none>")
	}
	// 真的有不只一個 worker 在同步：三個 key 同時在佇列裡時，每一次 Add 叫醒一個等著的 worker。一陣 burst
	// 之後還只看到一個，就再來一陣（最多十陣）；只有一個 worker 的控制器永遠過不了。
	// More than one worker really synced: with three keys queued at once, each Add wakes a waiting worker. If one
	// burst shows only one, another follows (ten at most); a controller with a single worker never passes.
	for round := 0; len(syncingWorkers(out.String())) < 2; round++ {
		if round == 10 {
			t.Fatalf("after %d bursts only %v synced; want more than one of the 3 workers\n%s", round, syncingWorkers(out.String()), out.String())
		}
		before := out.Count(" sync      ")
		if _, err := scene.Burst(ctx, cs, ns, 9); err != nil {
			t.Fatal(err)
		}
		out.Wait(t, before+3, " sync      ")
	}
}

// syncingWorkers 是輸出裡做過同步的 worker（worker1、worker2……）。 / syncingWorkers is the workers that synced in the output (worker1, worker2, ...).
func syncingWorkers(out string) []string {
	seen := map[string]bool{}
	var workers []string
	for _, m := range regexp.MustCompile(`(?m)^(worker\d+) +sync `).FindAllStringSubmatch(out, -1) {
		if !seen[m[1]] {
			seen[m[1]] = true
			workers = append(workers, m[1])
		}
	}
	return workers
}
