package main

import (
	"context"
	"io"
	"regexp"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	clientfeatures "k8s.io/client-go/features"
	clientfeaturestesting "k8s.io/client-go/features/testing"
	"k8s.io/client-go/kubernetes"

	"github.com/informer-walkthrough/informer-walkthrough/internal/cli"
	"github.com/informer-walkthrough/informer-walkthrough/internal/golden"
	"github.com/informer-walkthrough/informer-walkthrough/internal/pagetest"
	"github.com/informer-walkthrough/informer-walkthrough/internal/scene"
	"github.com/informer-walkthrough/informer-walkthrough/internal/show"
	"github.com/informer-walkthrough/informer-walkthrough/internal/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// startStep 像 go run ./step02-listwatch-from-client --trace -n ns -l label 一樣執行這一步：
// 經過 --kubeconfig 與共用的 cli.Connect，追蹤行與事件行寫進同一個輸出。
//
// startStep runs this step as go run ./step02-listwatch-from-client --trace
// -n ns -l label would: through --kubeconfig and the shared cli.Connect, with
// trace lines and event lines in one output.
func startStep(t *testing.T, ns, label, field string) *testenv.Output {
	t.Helper()
	out, _ := startStepOn(t, testenv.Plain(t), ns, label, field, "ignored.recording.jsonl")
	return out
}

// startStepOn 跟 startStep 一樣，但在指定的叢集上執行，即時頁面開著（跟 --ui 同一條路），
// 事件錄進 testdata/<record>（-update 時）。
//
// startStepOn is startStep on the given cluster, with the live page on (the
// path --ui takes), the events recorded to testdata/<record> (with -update).
func startStepOn(t *testing.T, c *testenv.Cluster, ns, label, field, record string) (*testenv.Output, *cli.Live) {
	t.Helper()
	labelSelector, err := labels.Parse(label)
	if err != nil {
		t.Fatal(err)
	}
	fieldSelector, err := fields.ParseSelector(field)
	if err != nil {
		t.Fatal(err)
	}
	kubeconfig := c.Kubeconfig(t)
	out, lv, _ := testenv.StartLive(t, c, ns, page(), record, func(ctx context.Context, _ kubernetes.Interface, out io.Writer) error {
		env, err := cli.Connect(ctx, &cli.Flags{Kubeconfig: kubeconfig, Namespace: ns, Trace: true}, true, out, out)
		if err != nil {
			return err
		}
		return run(ctx, env.Client, env.Namespace, fieldSelector, labelSelector, out)
	})
	return out, lv
}

// 情境：namespace 裡有一個符合 app=demo 的 Pod 與一個不符合的。以 -l app=demo 啟動後，
// 再建立、改標籤、刪除 "demo"。--trace 顯示 Reflector 用一個串流式的 WatchList 請求
// （sendInitialEvents=true）同時取得初始狀態與後續事件，而選擇器就在那個請求上。
//
// The story: the namespace holds one pod matching app=demo and one that does
// not. Started with -l app=demo, the step sees "demo" created, relabelled and
// deleted. --trace shows the reflector getting the initial state and the
// events through one streaming WatchList request (sendInitialEvents=true), and
// the selector is on that request.
func TestDemo(t *testing.T) {
	c := testenv.Realistic(t)
	cs := c.Client()
	ns := "default"
	testenv.RunningPod(t, cs, ns, "before", map[string]string{"app": "demo"})
	testenv.RunningPod(t, cs, ns, "other", map[string]string{"app": "other"})
	for _, name := range []string{"before", "other"} {
		t.Cleanup(func() { _ = scene.DeleteNow(context.Background(), cs, ns, name) })
	}

	out, lv := startStepOn(t, c, ns, "app=demo", "", "demo.recording.jsonl")
	out.Wait(t, 1, "Replace carried")
	testenv.DemoScene(t, cs, ns, func(change string) {
		out.Wait(t, 1, map[string]string{"created": "phase=Running", "labelled": "tier=web", "deleted": "Delete "}[change], " default/demo ")
	})

	got := out.String()
	if strings.Contains(got, "default/other") {
		t.Errorf("a pod outside the selector reached the store:\n%s", got)
	}
	if !regexp.MustCompile(`(?m)^trace: GET /api/v1/namespaces/default/pods\?.*labelSelector=app%3Ddemo.*sendInitialEvents=true.*watch=true -> 200$`).MatchString(got) {
		t.Errorf("no streaming WatchList request carrying the selector in the trace:\n%s", got)
	}
	golden.Check(t, "demo", golden.StripVersions(got))
	// --trace 的行直接寫進輸出，不是事件；頁面上的是其餘每一行。
	// --trace's lines go straight to the output and are no events; the page has every other line.
	t.Run("page", func(t *testing.T) {
		lines := func() string { return golden.DropTrace(out.String()) }
		pagetest.CheckPage(t, pagetest.Page(t, lv.URL(), lines()), lines, "demo")
	})
}

// 情境：關掉 WatchList（KUBE_FEATURE_WatchListClient=false 的效果），Reflector 改回
// 傳統的 LIST 加 WATCH。兩個請求都帶著同樣的標籤與欄位選擇器，那是 optionsModifier
// 套上去的，Reflector 自己從來沒有設定選擇器。
//
// The story: with WatchList off (what KUBE_FEATURE_WatchListClient=false
// does), the reflector falls back to a classic LIST then WATCH. Both requests
// carry the same label and field selectors: the optionsModifier put them
// there; the reflector never set a selector itself.
func TestSelectorOnListAndWatch(t *testing.T) {
	clientfeaturestesting.SetFeatureDuringTest(t, clientfeatures.WatchListClient, false)
	c := testenv.Plain(t)
	cs, ns := c.Client(), c.Namespace(t)
	testenv.CreatePod(t, cs, ns, "match-1", map[string]string{"app": "demo"})
	testenv.CreatePod(t, cs, ns, "miss-1", map[string]string{"app": "other"})

	out := startStep(t, ns, "app=demo", "status.phase=Pending")
	out.Wait(t, 1, "Replace carried")
	out.Wait(t, 1, "watch=true -> 200")
	testenv.CreatePod(t, cs, ns, "miss-2", map[string]string{"app": "other"})
	testenv.CreatePod(t, cs, ns, "match-2", map[string]string{"app": "demo"})
	out.Wait(t, 1, "Add       "+ns+"/match-2")

	got := out.String()
	for _, want := range []string{
		show.Prefix("store", "Replace", "") + ns + "/match-1",
		show.Prefix("store", "Add", "") + ns + "/match-2",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "/miss-") {
		t.Errorf("a pod outside the selector reached the store:\n%s", got)
	}
	list := regexp.MustCompile(`(?m)^trace: GET /api/v1/namespaces/` + ns + `/pods\?fieldSelector=status.phase%3DPending&labelSelector=app%3Ddemo&limit=500&resourceVersion=0 -> 200$`)
	watch := regexp.MustCompile(`(?m)^trace: GET /api/v1/namespaces/` + ns + `/pods\?allowWatchBookmarks=true&fieldSelector=status.phase%3DPending&labelSelector=app%3Ddemo&resourceVersion=\d+&timeoutSeconds=\d+&watch=true -> 200$`)
	if !list.MatchString(got) || !watch.MatchString(got) {
		t.Errorf("want a LIST and a WATCH request, both with the selectors, in the trace:\n%s", got)
	}
	if strings.Contains(got, "sendInitialEvents") {
		t.Errorf("WatchList was switched off, yet a sendInitialEvents request was made:\n%s", got)
	}
}

// 情境：有欄位選擇器 status.phase=Pending 時，Pod 變成 Running 就離開了選擇器：watch 送來的是
// DELETED，帶著它最後一次符合選擇器的樣子（phase=Pending），Store 收到 Delete，而這個 Pod 在伺服器上還好好的。
//
// The story: with the field selector status.phase=Pending, a pod that
// becomes Running leaves the selector: the watch sends DELETED carrying the
// pod as it last matched (phase=Pending), the Store gets a Delete, and the
// pod is still there on the server.
func TestLeavingTheSelectorIsADelete(t *testing.T) {
	c := testenv.Plain(t)
	cs, ns := c.Client(), c.Namespace(t)
	testenv.CreatePod(t, cs, ns, "moves", map[string]string{"app": "demo"})
	out := startStep(t, ns, "app=demo", "status.phase=Pending")
	out.Wait(t, 1, "Replace carried")
	pod, err := cs.CoreV1().Pods(ns).Get(t.Context(), "moves", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pod.Status.Phase = corev1.PodRunning
	if _, err := cs.CoreV1().Pods(ns).UpdateStatus(t.Context(), pod, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	out.Wait(t, 1, show.Prefix("store", "Delete", ns+"/moves"), "phase=Pending")
	if _, err := cs.CoreV1().Pods(ns).Get(t.Context(), "moves", metav1.GetOptions{}); err != nil {
		t.Errorf("the pod should still exist after the Delete the selector caused: %v", err)
	}
}

// 情境：閉包套用在呼叫端傳入的任何 ListOptions 上。直接呼叫四個方法（現行的
// ListWithContext/WatchWithContext，與已棄用的 List/Watch，即 ListFunc/WatchFunc），
// 傳入沒有選擇器的選項，四個請求都帶著選擇器。
//
// The story: the closure applies to whatever ListOptions the caller passes.
// Call all four methods directly (today's ListWithContext/WatchWithContext
// and the deprecated List/Watch, that is ListFunc/WatchFunc) with options that
// carry no selector: all four requests carry it.
func TestOptionsModifierAppliesToEveryCall(t *testing.T) {
	ctx := t.Context()
	c := testenv.Plain(t)
	ns := c.Namespace(t)
	out := &testenv.Output{}
	cfg := c.Config()
	cfg.Wrap(cli.Tracer(out))
	traced := kubernetes.NewForConfigOrDie(cfg)
	lw := newPodListWatch(traced.CoreV1().RESTClient(), ns, fields.Everything(), labels.SelectorFromSet(labels.Set{"app": "demo"}))

	if _, err := lw.ListWithContext(ctx, metav1.ListOptions{}); err != nil {
		t.Fatal(err)
	}
	w, err := lw.WatchWithContext(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w.Stop()
	//lint:ignore SA1019 刻意呼叫已棄用的方法，證明舊欄位也套用了閉包。 / Deprecated on purpose: the old fields apply the closure too.
	if _, err := lw.List(metav1.ListOptions{}); err != nil {
		t.Fatal(err)
	}
	//lint:ignore SA1019 同上：刻意呼叫已棄用的方法。 / As above: deprecated on purpose.
	w, err = lw.Watch(metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w.Stop()

	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 4 {
		t.Fatalf("want 4 traced requests, got:\n%s", out.String())
	}
	for i, line := range lines {
		if !strings.Contains(line, "labelSelector=app%3Ddemo") {
			t.Errorf("request %d has no selector: %s", i+1, line)
		}
		if isWatch := strings.Contains(line, "watch=true"); isWatch != (i%2 == 1) {
			t.Errorf("request %d: watch=%v, want %v: %s", i+1, isWatch, i%2 == 1, line)
		}
	}
}

// 錯誤的選擇器在送出任何請求之前就變成一行錯誤：這裡的 kubeconfig 指向一個
// 不存在的檔案，如果程式先連線，錯誤訊息會是 kubeconfig 的問題。
//
// A malformed selector is one error line before any request: the kubeconfig
// here points at a missing file, so had the program connected first the error
// would be about the kubeconfig.
func TestBadSelectors(t *testing.T) {
	bin := testenv.Build(t)
	testenv.Fails(t, bin, "step02-listwatch-from-client: flag provided but not defined: -bogus (see -h)", "--bogus")
	testenv.Fails(t, bin, `bad --label-selector "app in (web"`, "--kubeconfig", "/nonexistent", "-l", "app in (web")
	testenv.Fails(t, bin, `bad --field-selector "phase"`, "--kubeconfig", "/nonexistent", "--field-selector", "phase")
}

// Ctrl-C 讓這一步以結束碼 0 結束。
//
// Ctrl-C ends this step with exit code 0.
func TestCtrlC(t *testing.T) {
	c := testenv.Plain(t)
	testenv.Interrupt(t, testenv.Build(t), "Replace carried", "--kubeconfig", c.Kubeconfig(t), "-n", c.Namespace(t))
	// --ui 與 --record：網址、頁面、Ctrl-C 之後埠關了，錄製檔跟印出的一樣。 / --ui and --record: the URL, the page, the port closed after Ctrl-C, the recording equal to the output.
	testenv.InterruptLive(t, testenv.Build(t), "Replace carried", "--kubeconfig", c.Kubeconfig(t), "-n", c.Namespace(t))
}
