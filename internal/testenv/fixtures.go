package testenv

import (
	"context"
	"fmt"
	"testing"

	"golang.org/x/sync/errgroup"
	"k8s.io/client-go/kubernetes"

	"github.com/informer-walkthrough/informer-walkthrough/internal/scene"
)

// CreatePod 建立一個帶有標籤的 Pod；失敗時讓測試停止。
//
// CreatePod creates a pod with the given labels and stops the test on failure.
func CreatePod(t testing.TB, cs kubernetes.Interface, ns, name string, labels map[string]string) {
	t.Helper()
	if _, err := scene.Create(t.Context(), cs, ns, name, labels); err != nil {
		t.Fatal(err)
	}
}

// RunningPod 建立一個 Pod，並等到它 Running（叢集有節點時；見 scene.Settle）。
//
// RunningPod creates a pod and waits until it is Running (when the cluster
// has a node; see scene.Settle).
func RunningPod(t testing.TB, cs kubernetes.Interface, ns, name string, labels map[string]string) {
	t.Helper()
	if _, err := scene.CreateRunning(t.Context(), cs, scene.Pod(ns, name, labels), WaitTimeout, func(s string) { t.Log(s) }); err != nil {
		t.Fatal(err)
	}
}

// BeforePod 建立 README 一開始就有的 "before"（app=demo），等它 Running；測試結束時刪除它。
//
// BeforePod creates the "before" pod (app=demo) the READMEs start with and
// waits until it is Running; it is deleted when the test ends.
func BeforePod(t testing.TB, cs kubernetes.Interface, ns string) {
	t.Helper()
	RunningPod(t, cs, ns, "before", map[string]string{"app": "demo"})
	t.Cleanup(func() { _ = scene.DeleteNow(context.Background(), cs, ns, "before") })
}

// DemoScene 演出 README 的那一段，也就是 scripts/scene.sh demo：建立 "demo"（app=demo）、加上 tier=web、
// 刪除它。每個變化走完之後（叢集有節點時：Running、消失）呼叫 waitAfter（"created"、"labelled"、
// "deleted"），讓步驟先印完它的那幾行，輸出的順序因此固定。
//
// DemoScene plays the README's scene, what scripts/scene.sh demo does:
// create "demo" (app=demo), label it tier=web, delete it. Once each change has
// settled (with a node: Running, gone) it calls waitAfter ("created",
// "labelled", "deleted") so the step prints its lines first, which fixes the
// output's order.
func DemoScene(t testing.TB, cs kubernetes.Interface, ns string, waitAfter func(change string)) {
	t.Helper()
	RunningPod(t, cs, ns, "demo", map[string]string{"app": "demo"})
	waitAfter("created")
	if _, err := scene.Label(t.Context(), cs, ns, "demo", "tier", new("web")); err != nil {
		t.Fatal(err)
	}
	waitAfter("labelled")
	if err := scene.Delete(t.Context(), cs, ns, "demo"); err != nil {
		t.Fatal(err)
	}
	if err := scene.Settle(t.Context(), cs, ns, "demo", WaitTimeout); err != nil {
		t.Fatal(err)
	}
	waitAfter("deleted")
}

// DemoAfter 是 OneChangeAtATime 的每個變化之後，demo 那一行（show.Pod 的描述）裡要等的片段。
//
// DemoAfter is, for each change of OneChangeAtATime, the part of demo's line
// (show.Pod's description) to wait for.
var DemoAfter = map[string]string{
	"created":   "phase=Pending labels=",
	"scheduled": "phase=Pending node=",
	"running":   "phase=Running",
	"labelled":  "tier=web",
}

// OneChangeAtATime 在擬真叢集上建立 "demo"（app=demo）並加上 tier=web，但讓每個變化單獨到達：
// kube-scheduler 與 kwok 先暫停，再一個一個放開，每個變化之後呼叫 waitAfter（"created"、"scheduled"、
// "running"、"labelled"）。否則幾個變化可能合併成一次同步，golden file 就不固定。測試結束時刪除 demo。
//
// OneChangeAtATime creates "demo" (app=demo) on the realistic cluster and
// labels it tier=web, letting each change arrive on its own: kube-scheduler
// and kwok are paused, then released one at a time, with waitAfter
// ("created", "scheduled", "running", "labelled") called after each.
// Otherwise changes could merge into one sync and a golden file would not be
// fixed. demo is deleted when the test ends.
func (c *Cluster) OneChangeAtATime(t testing.TB, ns string, waitAfter func(change string)) {
	t.Helper()
	cs := c.Client()
	resumeScheduler, resumeKwok := c.Pause(t, "kube-scheduler"), c.Pause(t, "kwok")
	CreatePod(t, cs, ns, "demo", map[string]string{"app": "demo"})
	t.Cleanup(func() { _ = scene.DeleteNow(context.Background(), cs, ns, "demo") })
	waitAfter("created")
	resumeScheduler()
	waitAfter("scheduled")
	resumeKwok()
	waitAfter("running")
	if _, err := scene.Label(t.Context(), cs, ns, "demo", "tier", new("web")); err != nil {
		t.Fatal(err)
	}
	waitAfter("labelled")
}

// ManyPods 用幾個並行的請求建立 n 個 Pod（pod-0000…），名字依序回傳；用在測頁面與步驟扛不扛得住的測試。
//
// ManyPods creates n pods (pod-0000…) with a few requests in parallel and
// returns their names in order; for tests of whether the page and the step
// hold up.
func ManyPods(t testing.TB, c *Cluster, ns string, n int) []string {
	t.Helper()
	cfg := c.Config()
	cfg.QPS, cfg.Burst = 1000, 1000
	cs := kubernetes.NewForConfigOrDie(cfg)
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("pod-%04d", i)
	}
	g, ctx := errgroup.WithContext(t.Context())
	g.SetLimit(8)
	for _, name := range names {
		g.Go(func() error {
			_, err := scene.Create(ctx, cs, ns, name, map[string]string{"app": "many"})
			return err
		})
	}
	if err := g.Wait(); err != nil {
		t.Fatal(err)
	}
	return names
}
