package main

import (
	"context"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp/kb"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"

	"github.com/informer-walkthrough/informer-walkthrough/internal/browser"
	"github.com/informer-walkthrough/informer-walkthrough/internal/cli"
	"github.com/informer-walkthrough/informer-walkthrough/internal/golden"
	"github.com/informer-walkthrough/informer-walkthrough/internal/pagetest"
	"github.com/informer-walkthrough/informer-walkthrough/internal/scene"
	"github.com/informer-walkthrough/informer-walkthrough/internal/show"
	"github.com/informer-walkthrough/informer-walkthrough/internal/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// startStepOn 用指定的 clientset 執行這一步，輸出收進 Output。
//
// startStepOn runs this step with the given clientset, collecting its
// output.
func startStepOn(t *testing.T, cs kubernetes.Interface, ns string, opts options) *testenv.Output {
	t.Helper()
	if opts.workers == 0 {
		opts.workers = 1
	}
	out, _ := testenv.Start(t, func(ctx context.Context, out io.Writer) error {
		return run(ctx, cs, ns, opts, out)
	})
	return out
}

// tracedClient 回傳一個 clientset，它發出的每個請求都以 --trace 的格式記進 trace。
//
// tracedClient returns a clientset that records every request it makes in
// trace, in --trace's format.
func tracedClient(t *testing.T, c *testenv.Cluster, trace io.Writer) kubernetes.Interface {
	t.Helper()
	cfg := c.Config()
	cfg.Wrap(cli.Tracer(trace))
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

// demo 演出 README 的情境，每個變化之後等 printer 印出對應的那一行。
//
// demo plays the README's scene and waits after each change for printer's
// matching line.
func demo(t *testing.T, cs kubernetes.Interface, ns string, out *testenv.Output) {
	t.Helper()
	testenv.DemoScene(t, cs, ns, func(change string) {
		want := map[string]string{"created": "phase Pending -> Running", "labelled": "tier=web", "deleted": "final state:"}[change]
		out.Wait(t, 1, "printer  ", " "+ns+"/demo ", want)
	})
}

// 情境：README 的導覽。一個 Pod 已經存在；工廠啟動、同步；晚到的處理函式拿到補送的合成 OnAdd 後被移除；
// lister 從快取回應；然後 "demo" 被建立、加標籤、刪除，printer 看到每一個變化，late 一個都沒看到。
//
// The story: the README's tour. One pod exists; the factory starts and
// syncs; the late handler gets its synthetic adds and is removed; the lister
// answers from the cache; then "demo" is created, labelled and deleted, and
// printer sees every change while late sees none.
func TestDemo(t *testing.T) {
	c := testenv.Realistic(t)
	cs := c.Client()
	ns := "default"
	testenv.BeforePod(t, cs, ns)

	// 即時頁面開著（跟 --ui 同一條路）：印出的文字跟 golden file 一樣，頁面也看到同樣的事件。
	// The live page is on (the path --ui takes): the text is the golden file's, and the page sees the same events.
	opts := options{workers: 1, name: testenv.InformerName(t)}
	out, lv, _ := testenv.StartLive(t, c, ns, page(opts), "demo.recording.jsonl", func(ctx context.Context, cs kubernetes.Interface, out io.Writer) error {
		return run(ctx, cs, ns, opts, out)
	})
	out.Wait(t, 1, "watching from there")
	demo(t, cs, ns, out)

	got := out.String()
	testenv.WantOrder(t, got,
		"(the same Indexer: true)",
		show.Event{Source: "printer", What: "OnAdd", Key: "default/before", Detail: "phase=Running node=kwok-node-0 labels=app=demo (initial list)"}.Text(),
		"-- WaitForCacheSyncWithContext: Synced=map[*v1.Pod:true]; printer's registration HasSynced=true",
		show.Event{Source: "late", What: "OnAdd", Key: "default/before", Detail: "phase=Running node=kwok-node-0 labels=app=demo (initial list)"}.Text(),
		"RemoveEventHandler",
		`Get("before"): phase=Running node=kwok-node-0 labels=app=demo, 0 managedFields entries`,
		"watching from there",
		show.Event{Source: "printer", What: "OnAdd", Key: "default/demo", Detail: "phase=Pending labels=app=demo"}.Text(),
		show.Event{Source: "printer", What: "OnDelete", Key: "default/demo", Detail: "final state: phase=Running"}.Text(),
	)
	if n := strings.Count(got, "\nlate "); n != 1 {
		t.Errorf("the late handler printed %d lines; want 1 (its synthetic add), nothing after RemoveEventHandler:\n%s", n, got)
	}
	golden.Check(t, "demo", golden.StripVersions(got))
	t.Run("page", func(t *testing.T) {
		pagetest.CheckPage(t, pagetest.Page(t, lv.URL(), out.String()), out.String, "demo")
	})
}

// 情境：兩個處理函式、一個晚到的處理函式、lister 的讀取，全部共用一個 informer。
// 伺服器只收到一個請求：一條帶著 -l 選擇器的串流式 watch。不符合選擇器的 Pod 從來沒到過；
// 快取裡的 Pod 沒有 managedFields（Transform 丟掉了），伺服器上的有。
//
// The story: two handlers, a late handler and the lister's reads all share
// one informer. The server gets one request: one streaming watch carrying the
// -l selector. A pod the selector does not match never arrives; the cached
// pods have no managedFields (the Transform dropped them), the server's do.
func TestOneWatchForEveryone(t *testing.T) {
	ctx := t.Context()
	c := testenv.Plain(t)
	ns := c.Namespace(t)
	trace := &testenv.Output{}
	out := startStepOn(t, tracedClient(t, c, trace), ns, options{selector: "app=demo", slow: 10 * time.Millisecond})
	out.Wait(t, 1, "watching from there")
	testenv.CreatePod(t, c.Client(), ns, "other", map[string]string{"app": "other"})
	testenv.CreatePod(t, c.Client(), ns, "demo", map[string]string{"app": "demo"})
	out.Wait(t, 1, show.Prefix("printer", "OnAdd", ns+"/demo"))
	out.Wait(t, 1, show.Prefix("slow", "OnAdd", ns+"/demo"))

	// 同一條 watch 上的事件依序到達："other" 先建立，它若符合選擇器，會比 demo 先出現。
	// Events on one watch arrive in order: "other" was created first, so had it matched it would have come before demo.
	if n := out.Count(ns + "/other "); n != 0 {
		t.Errorf("a pod outside the selector reached a handler:\n%s", out.String())
	}
	lines := strings.Split(strings.TrimSpace(trace.String()), "\n")
	watch := regexp.MustCompile(`^trace: GET /api/v1/namespaces/` + ns + `/pods\?.*labelSelector=app%3Ddemo.*sendInitialEvents=true.*watch=true -> 200$`)
	if len(lines) != 1 || !watch.MatchString(lines[0]) {
		t.Errorf("want exactly one request, the streaming watch with the selector; the trace:\n%s", trace.String())
	}
	pod, err := c.Client().CoreV1().Pods(ns).Get(ctx, "demo", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(pod.ManagedFields) == 0 {
		t.Fatal("the server's pod has no managedFields; the Transform test below would prove nothing")
	}
	lister := factoryLister(t, c, ns, options{})
	if cached, err := lister.Get("demo"); err != nil || len(cached.ManagedFields) != 0 {
		t.Errorf("the cached pod: %v, %d managedFields entries; want it, with none", err, len(cached.ManagedFields))
	}
	lister = factoryLister(t, c, ns, options{keepManagedFields: true})
	if cached, err := lister.Get("demo"); err != nil || len(cached.ManagedFields) != len(pod.ManagedFields) {
		t.Errorf("without the Transform: %v, %d managedFields entries; want %d", err, len(cached.ManagedFields), len(pod.ManagedFields))
	}
}

// 情境：慢的處理函式卡在某個事件上（由測試擋住），printer 照樣看完整個情境；
// 放開之後，慢的那個依序補上每一個事件，落後的數目一路降到 0。這也證明 informer 同步了，
// 不代表每個處理函式都已經收到初始清單。
//
// The story: the slow handler is stuck in an event (the test holds it), and
// printer still sees the whole scene; once released, the slow one catches up
// with every event in order, its lag falling to 0. It also shows that the
// informer having synced does not mean every handler has had the initial
// list.
func TestDemoSlowHandler(t *testing.T) {
	c := testenv.Realistic(t)
	cs := c.Client()
	ns := "default"
	testenv.BeforePod(t, cs, ns)

	// 第一個事件（初始清單）等到導覽印出就緒的那一行；第二個等到 printer 看完整個情境。
	// 這正是 README 的時序：--slow-handler 3s，等 slow 印出 before 之後才跑 scene.sh demo。
	// The first event (the initial list) waits for the tour's ready line; the
	// second waits until printer has seen the whole scene. That is the
	// README's timing: --slow-handler 3s, with scene.sh demo run after slow
	// has printed before.
	gates := []chan struct{}{make(chan struct{}), make(chan struct{})}
	calls := 0
	opts := options{slowWait: func(ctx context.Context) bool {
		if calls < len(gates) {
			select {
			case <-gates[calls]:
			case <-ctx.Done():
			}
		}
		calls++
		return ctx.Err() == nil
	}}
	opts.workers, opts.name = 1, testenv.InformerName(t)
	out, lv, _ := testenv.StartLive(t, c, ns, page(opts), "slow.recording.jsonl", func(ctx context.Context, cs kubernetes.Interface, out io.Writer) error {
		return run(ctx, cs, ns, opts, out)
	})
	out.Wait(t, 1, "watching from there")
	close(gates[0])
	out.Wait(t, 1, show.Prefix("slow", "OnAdd", "default/before"), "[0 behind printer]")
	demo(t, cs, ns, out)
	close(gates[1])
	out.Wait(t, 1, show.Prefix("slow", "OnDelete", "default/demo"), "[0 behind printer]")

	got := out.String()
	testenv.WantOrder(t, got,
		"slow's registration HasSynced=false",
		show.Prefix("printer", "OnDelete", "default/demo"),
		show.Event{Source: "slow", What: "OnAdd", Key: "default/demo", Detail: "phase=Pending labels=app=demo [6 behind printer]"}.Text(),
	)
	golden.Check(t, "slow", golden.StripVersions(got))

	// 頁面上：最後兩個處理函式都不落後；拉回 slow 收到 demo 的那一刻，它落後 printer 6 個事件，
	// printer 一個都不落後。按 End 回到最新。
	// On the page: at the end neither handler lags; pulled back to the moment
	// slow got demo, slow is 6 events behind printer and printer is not
	// behind at all. End brings it back to the latest.
	t.Run("page", func(t *testing.T) {
		b := pagetest.Page(t, lv.URL(), out.String())
		pagetest.CheckPage(t, b, out.String, "slow")
		backlogs := func() string {
			return "slow=" + pagetest.DOM(t, b, `[data-listener="slow"]`, "data-backlog") +
				" printer=" + pagetest.DOM(t, b, `[data-listener="printer"]`, "data-backlog")
		}
		if got := backlogs(); got != "slow=0 printer=0" {
			t.Errorf("at the end the page shows backlogs %s; want slow=0 printer=0", got)
		}
		at := browser.Eval[int](t, b, `LV.app.timeline.events.findIndex(e => e.source === "slow" && e.key.endsWith("/demo")) + 1`)
		if at == 0 {
			t.Fatal("the page has no event of slow for demo")
		}
		// 像拉動滑桿的人那樣：設定值，送出 input 事件。 / As someone dragging the slider: set the value, fire input.
		browser.Eval[bool](t, b, `(() => { const s = document.getElementById("slider"); s.value = `+strconv.Itoa(at)+`; s.dispatchEvent(new Event("input")); return true; })()`)
		b.Wait(t, "the page to show the moment slow got demo", `document.body.dataset.cursor === "`+strconv.Itoa(at)+`"`, `document.body.dataset.cursor`)
		if got := backlogs(); got != "slow=6 printer=0" {
			t.Errorf("pulled back to slow's first demo event, the page shows backlogs %s; want slow=6 printer=0", got)
		}
		b.Key(t, kb.End)
		b.Wait(t, "End to bring the page back to the latest", `document.body.dataset.cursor === document.body.dataset.total`, `document.body.dataset.cursor`)
		if got := backlogs(); got != "slow=0 printer=0" {
			t.Errorf("back at the end the page shows backlogs %s; want slow=0 printer=0", got)
		}
	})
}

// 情境：最常見的錯誤。還沒向工廠要 informer 之前就呼叫 Start，之後沒再呼叫：同一個 namespace 裡，
// 寫對的那一份看到新的 Pod，寫錯的那一份什麼都沒看到，也沒發出任何請求。
//
// The story: the most common mistake. Start is called before the informer is
// asked for, and not again: in the same namespace the correct program sees a
// new pod, while the mistaken one sees nothing and makes no request at all.
func TestStartTooEarly(t *testing.T) {
	c := testenv.Plain(t)
	ns := c.Namespace(t)
	trace := &testenv.Output{}
	mistaken := startStepOn(t, tracedClient(t, c, trace), ns, options{startTooEarly: true})
	mistaken.Wait(t, 1, "nothing is watching from there")
	correct := startStepOn(t, c.Client(), ns, options{})
	correct.Wait(t, 1, "watching from there")
	testenv.CreatePod(t, c.Client(), ns, "demo", nil)
	correct.Wait(t, 1, show.Prefix("printer", "OnAdd", ns+"/demo"))

	testenv.WantOrder(t, mistaken.String(),
		"factory.StartWithContext called before any informer was requested: it started nothing",
		"Synced=map[] (no informer was started",
		"printer's registration HasSynced=false",
	)
	if n := mistaken.Count("printer "); n != 0 {
		t.Errorf("the mistaken program got events:\n%s", mistaken.String())
	}
	if trace.String() != "" {
		t.Errorf("the mistaken program made requests:\n%s", trace.String())
	}
}

// 情境：API server 停機期間，一個 Pod 被刪除。恢復之後 watch 不能從舊的 resourceVersion 接續，
// informer 重新 List，刪除以墓碑的形式到達：DeletedPod 的 FinalStateUnknown 不是 nil，
// OptionalObj 是快取裡最後的狀態，GetKey 照樣可靠。
//
// The story: a pod is deleted while the API server is down. Afterwards the
// watch cannot resume from the old resourceVersion, the informer lists again,
// and the delete arrives as a tombstone: the DeletedPod's FinalStateUnknown
// is set, OptionalObj is the last state in the cache, and GetKey still works.
func TestTombstoneThroughDeletedObject(t *testing.T) {
	ctx := t.Context()
	c := testenv.Plain(t)
	ns := c.Namespace(t)
	testenv.CreatePod(t, c.Client(), ns, "goes", map[string]string{"app": "x"})
	out := startStepOn(t, c.Client(), ns, options{})
	out.Wait(t, 1, "watching from there")
	c.RestartAPIServer(t, func(other kubernetes.Interface) {
		if err := scene.Delete(ctx, other, ns, "goes"); err != nil {
			t.Fatal(err)
		}
	})
	out.Wait(t, 1, show.Prefix("printer", "OnDelete", ns+"/goes"), "tombstone; last known, maybe stale: phase=Pending labels=app=x")
}

// 情境：--mutate-cache 直接改了快取裡的 Pod。開著 KUBE_CACHE_MUTATION_DETECTOR=true，
// 偵測器在一秒內發現，印出差異並 panic；沒開時，沒有人發現。
//
// The story: --mutate-cache changes a cached pod in place. With
// KUBE_CACHE_MUTATION_DETECTOR=true the detector notices within a second,
// prints the difference and panics; without it, nobody notices.
func TestMutationDetector(t *testing.T) {
	ctx := t.Context()
	c := testenv.Plain(t)
	ns := c.Namespace(t)
	testenv.CreatePod(t, c.Client(), ns, "before", map[string]string{"app": "demo"})
	bin := testenv.Build(t)
	kubeconfig := c.Kubeconfig(t)

	runCtx, cancel := context.WithTimeout(ctx, testenv.WaitTimeout)
	defer cancel()
	cmd := exec.CommandContext(runCtx, bin, "--kubeconfig", kubeconfig, "-n", ns, "--mutate-cache")
	cmd.Env = append(os.Environ(), "KUBE_CACHE_MUTATION_DETECTOR=true")
	got, err := cmd.CombinedOutput()
	if runCtx.Err() != nil {
		t.Fatalf("the detector did not stop the program within %s:\n%s", testenv.WaitTimeout, got)
	}
	if err == nil {
		t.Fatalf("the program exited 0 after mutating the cache:\n%s", got)
	}
	testenv.WantOrder(t, string(got),
		"mutated "+ns+"/before in the cache without DeepCopy",
		"CACHE *v1.Pod[", "] ALTERED!",
		"panic: cache *v1.Pod modified",
	)

	quiet := testenv.Interrupt(t, bin, "watching from there", "--kubeconfig", kubeconfig, "-n", ns, "--mutate-cache")
	if strings.Contains(quiet, "ALTERED") {
		t.Errorf("without KUBE_CACHE_MUTATION_DETECTOR the detector ran:\n%s", quiet)
	}
}

// 錯誤的旗標在送出任何請求之前就變成一行錯誤；沒有 kubeconfig 也是一行；Ctrl-C 以結束碼 0 結束。
//
// A bad flag is one error line before any request; so is a missing
// kubeconfig; Ctrl-C exits 0.
func TestCommandLine(t *testing.T) {
	bin := testenv.Build(t)
	testenv.Fails(t, bin, "step05-shared-informer: flag provided but not defined: -bogus (see -h)", "--bogus")
	testenv.Fails(t, bin, "--workers must be at least 1", "--kubeconfig", "/nonexistent", "--workers", "0")
	testenv.Fails(t, bin, "--workers needs --controller", "--kubeconfig", "/nonexistent", "--workers", "3")
	testenv.Fails(t, bin, `bad --label-selector "app in (": `, "--kubeconfig", "/nonexistent", "-l", "app in (")
	testenv.Fails(t, bin, "--controller runs the controller alone", "--kubeconfig", "/nonexistent", "--controller", "--slow-handler", "1s")
	testenv.Fails(t, bin, `unexpected argument "extra"`, "--kubeconfig", "/nonexistent", "extra")
	testenv.Fails(t, bin, "reading kubeconfig", "--kubeconfig", "/nonexistent")
	c := testenv.Plain(t)
	testenv.Interrupt(t, bin, "watching from there", "--kubeconfig", c.Kubeconfig(t), "-n", c.Namespace(t))
	testenv.Interrupt(t, bin, "watching from there", "--kubeconfig", c.Kubeconfig(t), "-n", c.Namespace(t), "--controller")
	// --ui 與 --record：網址、頁面、Ctrl-C 之後埠關了，錄製檔跟印出的一樣。 / --ui and --record: the URL, the page, the port closed after Ctrl-C, the recording equal to the output.
	testenv.InterruptLive(t, bin, "watching from there", "--kubeconfig", c.Kubeconfig(t), "-n", c.Namespace(t))
}

// factoryLister 用這一步的 newFactory 建立另一個工廠，等它同步，回傳它的 Pod lister。
//
// factoryLister builds another factory with this step's newFactory, waits
// for it to sync, and returns its pod lister.
func factoryLister(t *testing.T, c *testenv.Cluster, ns string, opts options) corelisters.PodNamespaceLister {
	t.Helper()
	ctx := t.Context()
	factory := newFactory(c.Client(), ns, opts)
	lister := factory.Core().V1().Pods().Lister()
	runCtx, cancel := context.WithCancel(ctx)
	t.Cleanup(func() {
		cancel()
		factory.Shutdown()
	})
	factory.StartWithContext(runCtx)
	if err := factory.WaitForCacheSyncWithContext(runCtx).AsError(); err != nil {
		t.Fatal(err)
	}
	return lister.Pods(ns)
}
