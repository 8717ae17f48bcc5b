package main

import (
	"context"
	"io"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensions "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"

	"github.com/informer-walkthrough/informer-walkthrough/internal/golden"
	"github.com/informer-walkthrough/informer-walkthrough/internal/pagetest"
	"github.com/informer-walkthrough/informer-walkthrough/internal/scene"
	"github.com/informer-walkthrough/informer-walkthrough/internal/show"
	"github.com/informer-walkthrough/informer-walkthrough/internal/testenv"
	labv1alpha1 "github.com/informer-walkthrough/informer-walkthrough/step06-custom-resource/apis/lab/v1alpha1"
	"github.com/informer-walkthrough/informer-walkthrough/step06-custom-resource/generated/clientset/versioned"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// startStep 以 cfg 執行這一步，輸出收進 Output。 / startStep runs this step with cfg, collecting its output.
func startStep(t *testing.T, cfg *rest.Config, ns string, opts options) *testenv.Output {
	t.Helper()
	if opts.workers == 0 {
		opts.workers = 1
	}
	out, _ := testenv.Start(t, func(ctx context.Context, out io.Writer) error {
		return run(ctx, cfg, ns, opts, out)
	})
	return out
}

func tallyClient(t testing.TB, c *testenv.Cluster) versioned.Interface {
	t.Helper()
	return versioned.NewForConfigOrDie(c.Config())
}

// removeCRD 刪掉 CRD（連同每一個 PodTally），等到它真的不見；在 t.Cleanup 裡呼叫時，ctx 不能是已經取消的 t.Context()。
// removeCRD deletes the CRD (and every PodTally with it) and waits until it is gone; called from t.Cleanup, its ctx
// must not be t.Context(), which is cancelled by then.
func removeCRD(ctx context.Context, t testing.TB, c *testenv.Cluster) {
	t.Helper()
	crds := apiextensions.NewForConfigOrDie(c.Config()).ApiextensionsV1().CustomResourceDefinitions()
	name := wantCRD().Name
	if err := crds.Delete(ctx, name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
		t.Fatal(err)
	}
	testenv.Poll(t, "CRD "+name+" to be gone", func() bool {
		_, err := crds.Get(ctx, name, metav1.GetOptions{})
		return apierrors.IsNotFound(err)
	})
}

// tallyStatus 等到伺服器上的 tally 滿足 ok。 / tallyStatus waits until the server's tally satisfies ok.
func tallyStatus(t testing.TB, c *testenv.Cluster, ns, name, what string, ok func(*labv1alpha1.PodTally) bool) *labv1alpha1.PodTally {
	t.Helper()
	var got *labv1alpha1.PodTally
	testenv.Poll(t, "tally "+ns+"/"+name+": "+what, func() bool {
		var err error
		got, err = tallyClient(t, c).LabV1alpha1().PodTallies(ns).Get(t.Context(), name, metav1.GetOptions{})
		return err == nil && ok(got)
	})
	return got
}

func countIs(n int32) func(*labv1alpha1.PodTally) bool {
	return func(t *labv1alpha1.PodTally) bool {
		return t.Status.Count == n && t.Status.ObservedGeneration == t.Generation
	}
}

// 情境：README 的示範，在一個剛建好的叢集上：CRD 還不存在，這一步安裝它、建立 app-demo，
// 數到 before；scene demo 建立 demo（2）、加標籤（不變，不寫）、刪除它（1）。每次寫 status 都以
// generation 沒變的更新回來，被過濾掉。頁面開著，也看到同樣的事件。
//
// The story: the README's demo on a fresh cluster: the CRD does not exist
// yet, the step installs it, creates app-demo and counts before; scene demo
// creates demo (2), labels it (no change, nothing written), deletes it (1).
// Each status write comes back as an update with the same generation, and is
// filtered out. The live page is open and sees the same events.
func TestDemo(t *testing.T) {
	c := testenv.Realistic(t)
	cs := c.Client()
	ns := "default"
	removeCRD(t.Context(), t, c)
	testenv.BeforePod(t, cs, ns)
	opts := options{workers: 1, demoTally: true, name: testenv.InformerName(t)}
	out, lv, _ := testenv.StartLiveConfig(t, c, ns, page(options{}), "demo.recording.jsonl", func(ctx context.Context, cfg *rest.Config, out io.Writer) error {
		return run(ctx, cfg, ns, opts, out)
	})
	echo := func(n int, change string) {
		out.Wait(t, n, show.Prefix("tallies", "OnUpdate", "default/app-demo"), "generation 1 unchanged (status count "+change+"): skipped")
	}
	out.Wait(t, 1, "watching from there")
	echo(1, "0 -> 1")
	testenv.DemoScene(t, cs, ns, func(change string) {
		switch change {
		case "created":
			echo(1, "1 -> 2")
		case "labelled":
			out.Wait(t, 1, show.Prefix("worker1", "sync", "default/app-demo"), "status up to date")
		case "deleted":
			echo(1, "2 -> 1")
		}
	})
	got := out.String()
	testenv.WantOrder(t, got,
		"-- installed CRD podtallies.lab.informer-walkthrough.github.io; waiting until it is Established",
		"-- created PodTally default/app-demo (selector app=demo)",
		show.Prefix("tallies", "OnAdd", "default/app-demo"),
		show.Prefix("pods", "OnAdd", "default/before"),
		"watching from there",
		show.Event{Source: "worker1", What: "status", Key: "default/app-demo", Detail: "UpdateStatus: count 0 -> 1, observedGeneration 0 -> 1"}.Text(),
		show.Prefix("pods", "OnDelete", "default/demo"),
	)
	golden.Check(t, "demo", golden.StripVersions(got))
	tallyStatus(t, c, ns, "app-demo", "count 1, pods [before]", func(p *labv1alpha1.PodTally) bool {
		return countIs(1)(p) && strings.Join(p.Status.Pods, ",") == "before" && meta.IsStatusConditionTrue(p.Status.Conditions, "Ready")
	})
	t.Run("page", func(t *testing.T) {
		pagetest.CheckPage(t, pagetest.Page(t, lv.URL(), out.String()), out.String, "demo")
	})
}

// playScene 是不需要節點的小場景：兩個 Pod、一個標籤的變化、一個刪除，每一步之後等 status 的回音。
//
// playScene is a small scene that needs no node: two pods, one label change,
// one delete, waiting for the status echo after each.
func playScene(t *testing.T, c *testenv.Cluster, ns string, out *testenv.Output) {
	t.Helper()
	cs := c.Client()
	echo := func(change string) {
		out.Wait(t, 1, show.Prefix("tallies", "OnUpdate", ns+"/app-demo"), "(status count "+change+"): skipped")
	}
	out.Wait(t, 1, "watching from there")
	// 先等第一次寫入（observedGeneration 0 -> 1）的回音：它與下一個 Pod 的 OnAdd 來自兩個 informer，順序不固定。
	// Wait for the first write's echo (observedGeneration 0 -> 1) first: it and the next pod's OnAdd come from two informers, in no fixed order.
	out.Wait(t, 1, show.Prefix("tallies", "OnUpdate", ns+"/app-demo"), "(status changed): skipped")
	testenv.CreatePod(t, cs, ns, "one", map[string]string{"app": "demo"})
	echo("0 -> 1")
	testenv.CreatePod(t, cs, ns, "two", map[string]string{"app": "other"})
	out.Wait(t, 1, show.Prefix("pods", "OnAdd", ns+"/two"), "no tally selects it")
	if _, err := scene.Label(t.Context(), cs, ns, "two", "app", new("demo")); err != nil {
		t.Fatal(err)
	}
	echo("1 -> 2")
	if err := scene.DeleteNow(t.Context(), cs, ns, "one"); err != nil {
		t.Fatal(err)
	}
	echo("2 -> 1")
}

// 情境：同一個小情境，一次用產生的 informer，一次用 dynamicinformer：除了說明用的幾行，輸出一字不差。
//
// The story: the same small scene, once through the generated informer and
// once through dynamicinformer: apart from lines of narration, the output is
// the same, word for word.
func TestDynamicSeesTheSameEvents(t *testing.T) {
	c := testenv.Plain(t)
	var outputs []string
	for _, dynamic := range []bool{false, true} {
		ns := c.Namespace(t)
		out := startStep(t, c.Config(), ns, options{dynamic: dynamic, demoTally: true})
		playScene(t, c, ns, out)
		var lines []string
		for line := range strings.Lines(out.String()) {
			// 說明用的三行不比：哪一次安裝了 CRD 看測試的順序，哪一種 informer 是刻意不同的。
			// Three lines of narration are left out: which run installed the CRD depends on test order, and the informer differs on purpose.
			if !strings.HasPrefix(line, "-- tallies in namespace") && !strings.HasPrefix(line, "-- installed CRD") && !strings.HasPrefix(line, "-- CRD ") {
				lines = append(lines, strings.ReplaceAll(line, ns, "NS"))
			}
		}
		outputs = append(outputs, strings.Join(lines, ""))
		if !strings.Contains(out.String(), map[bool]string{false: "through the generated informer", true: "through dynamicinformer"}[dynamic]) {
			t.Errorf("dynamic=%t: the narration does not name the informer:\n%s", dynamic, out.String())
		}
	}
	if outputs[0] != outputs[1] {
		t.Errorf("generated and dynamic differ\n--- generated\n%s--- dynamic\n%s", outputs[0], outputs[1])
	}
	golden.Check(t, "scene", outputs[0])
}

// 情境：改 spec 會讓 generation 加一，tally 進佇列，status 的 observedGeneration 跟上；選擇器解析失敗的
// tally 得到 Ready=False、原因 BadSelector，控制器照常數其他的 tally。
//
// The story: a change of spec adds one to generation, queues the tally and
// moves status's observedGeneration along; a tally whose selector does not
// parse gets Ready=False with reason BadSelector, and the controller goes on
// counting the others.
func TestSpecChangesAndBadSelectors(t *testing.T) {
	c := testenv.Plain(t)
	ns := c.Namespace(t)
	tallies := tallyClient(t, c).LabV1alpha1().PodTallies(ns)
	testenv.CreatePod(t, c.Client(), ns, "web", map[string]string{"app": "demo", "tier": "web"})
	out := startStep(t, c.Config(), ns, options{demoTally: true})
	tallyStatus(t, c, ns, "app-demo", "count 1", countIs(1))

	bad := &labv1alpha1.PodTally{ObjectMeta: metav1.ObjectMeta{Name: "bad", Namespace: ns}, Spec: labv1alpha1.PodTallySpec{Selector: "app in ("}}
	if _, err := tallies.Create(t.Context(), bad, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	got := tallyStatus(t, c, ns, "bad", "Ready=False BadSelector", func(p *labv1alpha1.PodTally) bool {
		cond := meta.FindStatusCondition(p.Status.Conditions, "Ready")
		return cond != nil && cond.Status == metav1.ConditionFalse && cond.Reason == "BadSelector" && p.Status.ObservedGeneration == 1
	})
	if cond := meta.FindStatusCondition(got.Status.Conditions, "Ready"); !strings.Contains(cond.Message, "app in (") && !strings.Contains(cond.Message, "parse") {
		t.Errorf("the condition's message does not say what is wrong: %q", cond.Message)
	}

	demo, err := tallies.Get(t.Context(), "app-demo", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	demo.Spec.Selector = "tier=db"
	if _, err := tallies.Update(t.Context(), demo, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	out.Wait(t, 1, show.Prefix("tallies", "OnUpdate", ns+"/app-demo"), `generation 1 -> 2, selector "app=demo" -> "tier=db": queued`)
	tallyStatus(t, c, ns, "app-demo", "count 0 at generation 2", func(p *labv1alpha1.PodTally) bool {
		return p.Status.ObservedGeneration == 2 && p.Status.Count == 0
	})
	testenv.CreatePod(t, c.Client(), ns, "db", map[string]string{"tier": "db"})
	tallyStatus(t, c, ns, "app-demo", "count 1 (db)", countIs(1))
}

// 情境：--stale-write 從記住的舊複本寫 status：第一次成功，之後每次都是 409 Conflict，重新排入佇列也救不了
// （重新排入之後讀的還是同一份舊複本），五次之後放棄，伺服器上的數字是錯的。加上 --retry-on-conflict：
// 衝突一次，從 API server 重新讀，寫入成功。
//
// The story: --stale-write writes status from a remembered old copy: the
// first write succeeds, every later one is 409 Conflict, and requeueing
// cannot help (the next try reads the same old copy); after five it gives up,
// and the server's count is wrong. With --retry-on-conflict: one conflict, a
// fresh read from the API server, and the write goes through.
func TestStaleWrites(t *testing.T) {
	c := testenv.Plain(t)
	t.Run("stale", func(t *testing.T) {
		ns := c.Namespace(t)
		testenv.CreatePod(t, c.Client(), ns, "one", map[string]string{"app": "demo"})
		out := startStep(t, c.Config(), ns, options{demoTally: true, staleWrite: true})
		tallyStatus(t, c, ns, "app-demo", "count 1", countIs(1))
		testenv.CreatePod(t, c.Client(), ns, "two", map[string]string{"app": "demo"})
		out.Wait(t, 1, show.Prefix("worker1", "FAILED", ns+"/app-demo"), "409 Conflict", "giving up after 5 retries")
		if n := out.Count("409 Conflict"); n != maxRetries+1 {
			t.Errorf("%d conflicts; want %d (the first try and %d retries):\n%s", n, maxRetries+1, maxRetries, out.String())
		}
		if got := tallyStatus(t, c, ns, "app-demo", "readable", func(*labv1alpha1.PodTally) bool { return true }); got.Status.Count != 1 {
			t.Errorf("the server's count is %d; want the stale 1 (no write went through)", got.Status.Count)
		}
	})
	t.Run("retry-on-conflict", func(t *testing.T) {
		ns := c.Namespace(t)
		testenv.CreatePod(t, c.Client(), ns, "one", map[string]string{"app": "demo"})
		out := startStep(t, c.Config(), ns, options{demoTally: true, staleWrite: true, retryOnConflict: true})
		tallyStatus(t, c, ns, "app-demo", "count 1", countIs(1))
		testenv.CreatePod(t, c.Client(), ns, "two", map[string]string{"app": "demo"})
		tallyStatus(t, c, ns, "app-demo", "count 2", countIs(2))
		testenv.WantOrder(t, out.String(),
			show.Prefix("worker1", "status", ns+"/app-demo"), "UpdateStatus from the kept copy: count 0 -> 2",
			show.Prefix("worker1", "conflict", ns+"/app-demo"), "reading it again from the API server",
			show.Prefix("worker1", "status", ns+"/app-demo"), "UpdateStatus: count 1 -> 2")
		if out.Count("FAILED") != 0 {
			t.Errorf("a sync failed although RetryOnConflict re-read the tally:\n%s", out.String())
		}
	})
}

// 情境：錯誤的輸入，各得到一行錯誤：CRD 以另一個形狀存在（沒有 status 子資源）、API server 拒絕安裝 CRD
// （沒有權限的使用者）。最後把 CRD 刪掉，下一個測試重新安裝。
//
// The story: bad input, one line each: the CRD present in another shape (no
// status subresource), the API server refusing the CRD (a user without
// rights). The CRD is removed at the end; the next test installs it again.
func TestCRDBadInput(t *testing.T) {
	c := testenv.Plain(t)
	ns := c.Namespace(t)
	crds := apiextensions.NewForConfigOrDie(c.Config()).ApiextensionsV1().CustomResourceDefinitions()
	t.Cleanup(func() { removeCRD(context.Background(), t, c) })

	removeCRD(t.Context(), t, c)
	other := wantCRD()
	other.Spec.Versions[0].Subresources = nil
	if _, err := crds.Create(t.Context(), other, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	err := run(t.Context(), c.Config(), ns, options{workers: 1}, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "already exists in another shape (v1alpha1 has no status subresource)") {
		t.Errorf("another shape: err = %v", err)
	}

	removeCRD(t.Context(), t, c)
	nobody := c.Config()
	nobody.Impersonate = rest.ImpersonationConfig{UserName: "nobody"}
	err = run(t.Context(), nobody, ns, options{workers: 1}, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "the API server refused CRD") && !strings.Contains(err.Error(), "forbidden") {
		t.Errorf("refused: err = %v", err)
	}
	if err != nil && strings.Contains(err.Error(), "\n") {
		t.Errorf("the error is more than one line: %q", err)
	}
}

// 情境：shapeDiff 認得出每一種不同；相同的 CRD 沒有差異。這是純函式，不需要叢集。
//
// The story: shapeDiff tells each kind of difference; the same CRD shows none.
// A pure function, no cluster needed.
func TestShapeDiff(t *testing.T) {
	for name, change := range map[string]func(*apiextensionsv1.CustomResourceDefinition){
		"":                        func(*apiextensionsv1.CustomResourceDefinition) {},
		"group other.example.com": func(c *apiextensionsv1.CustomResourceDefinition) { c.Spec.Group = "other.example.com" },
		"v1alpha1 is not served":  func(c *apiextensionsv1.CustomResourceDefinition) { c.Spec.Versions[0].Served = false },
		"v1alpha1 has another schema": func(c *apiextensionsv1.CustomResourceDefinition) {
			c.Spec.Versions[0].Schema.OpenAPIV3Schema.Required = nil
		},
		"no version v1alpha1":                func(c *apiextensionsv1.CustomResourceDefinition) { c.Spec.Versions[0].Name = "v1" },
		"v1alpha1 has no status subresource": func(c *apiextensionsv1.CustomResourceDefinition) { c.Spec.Versions[0].Subresources = nil },
	} {
		got := wantCRD()
		change(got)
		if diff := shapeDiff(wantCRD(), got); (name == "" && diff != "") || !strings.HasPrefix(diff, name) {
			t.Errorf("shapeDiff = %q; want it to start with %q", diff, name)
		}
	}
}

func apiextensionsFor(c *testenv.Cluster) apiextensions.Interface {
	return apiextensions.NewForConfigOrDie(c.Config())
}
