package main

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"

	"github.com/informer-walkthrough/informer-walkthrough/internal/golden"
	"github.com/informer-walkthrough/informer-walkthrough/internal/pagetest"
	"github.com/informer-walkthrough/informer-walkthrough/internal/scene"
	"github.com/informer-walkthrough/informer-walkthrough/internal/show"
	"github.com/informer-walkthrough/informer-walkthrough/internal/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// startStep 在 namespace ns 上執行這一步，就像 go run ./step01-listwatcher -n ns。
//
// startStep runs this step on namespace ns, as go run ./step01-listwatcher -n ns
// would.
func startStep(t *testing.T, ns string, opts watchOptions) (*testenv.Output, func()) {
	return startStepOn(t, testenv.Plain(t), ns, opts)
}

// startStepOn 跟 startStep 一樣，但在指定的叢集上執行。
//
// startStepOn is startStep on the given cluster.
func startStepOn(t *testing.T, c *testenv.Cluster, ns string, opts watchOptions) (*testenv.Output, func()) {
	cs := c.Client()
	return testenv.Start(t, func(ctx context.Context, out io.Writer) error {
		return run(ctx, cs, ns, opts, out)
	})
}

// 情境：在擬真叢集上先有一個 Running 的 Pod，步驟開始後再建立、改標籤、刪除另一個。
// 初始清單裡有第一個 Pod；watch 依序送出新 Pod 生命週期裡的事件：ADDED（Pending）、
// MODIFIED（scheduler 綁定節點）、MODIFIED（kwok 回報 Running）、MODIFIED（新標籤）、
// MODIFIED ×2（API server 設下 deletionTimestamp，kwok 以 0 秒寬限期刪除）、DELETED。
// 輸出就是 README 展示的那一段。
//
// The story: on the realistic cluster one pod is Running, then after the step
// starts another is created, relabelled and deleted. The initial list holds
// the first pod; the watch delivers the new pod's life in order: ADDED
// (Pending), MODIFIED (the scheduler binds it to the node), MODIFIED (kwok
// reports Running), MODIFIED (the new label), MODIFIED ×2 (the API server sets
// deletionTimestamp, kwok deletes with grace period 0), DELETED. The output is
// the one the README shows.
func TestDemo(t *testing.T) {
	c := testenv.Realistic(t)
	cs := c.Client()
	ns := "default"
	testenv.BeforePod(t, cs, ns)

	// 即時頁面開著（跟 --ui 同一條路）：印出的文字跟 golden file 一樣，頁面也看到同樣的事件。
	// The live page is on (the path --ui takes): the text is the golden file's, and the page sees the same events.
	out, lv, stop := testenv.StartLive(t, c, ns, page(), "demo.recording.jsonl", func(ctx context.Context, cs kubernetes.Interface, out io.Writer) error {
		return run(ctx, cs, ns, watchOptions{}, out)
	})
	out.Wait(t, 1, "watching from there")
	testenv.DemoScene(t, cs, ns, func(change string) {
		out.Wait(t, 1, map[string]string{"created": "phase=Running", "labelled": "tier=web", "deleted": "DELETED"}[change], " default/demo ")
	})
	stop()

	got := out.String()
	testenv.WantOrder(t, got,
		show.Event{Source: "list", What: "EXISTS", Key: "default/before", Detail: "phase=Running node=kwok-node-0 labels=app=demo"}.Text(),
		show.Event{Source: "watch", What: "ADDED", Key: "default/demo", Detail: "phase=Pending labels=app=demo"}.Text(),
		show.Event{Source: "watch", What: "MODIFIED", Key: "default/demo", Detail: "phase=Pending node=kwok-node-0 labels=app=demo"}.Text(),
		show.Event{Source: "watch", What: "MODIFIED", Key: "default/demo", Detail: "phase=Running node=kwok-node-0 labels=app=demo"}.Text(),
		show.Event{Source: "watch", What: "MODIFIED", Key: "default/demo", Detail: "phase=Running node=kwok-node-0 labels=app=demo,tier=web"}.Text(),
		show.Event{Source: "watch", What: "MODIFIED", Key: "default/demo", Detail: "phase=Running node=kwok-node-0 labels=app=demo,tier=web (deleting)"}.Text(),
		show.Event{Source: "watch", What: "MODIFIED", Key: "default/demo", Detail: "phase=Running node=kwok-node-0 labels=app=demo,tier=web (deleting)"}.Text(),
		show.Prefix("watch", "DELETED", "")+"default/demo",
	)
	golden.Check(t, "demo", golden.StripVersions(got))
	t.Run("page", func(t *testing.T) {
		pagetest.CheckPage(t, pagetest.Page(t, lv.URL(), out.String()), out.String, "demo")
	})
}

// 情境：伺服器每秒就結束一次 watch。每次重新 watch 都從最後看到的 resourceVersion
// 接續，所以跨越好幾次重新 watch 的變化，每個都剛好出現一次，順序不變。
//
// The story: the server ends each watch after one second. Every re-watch
// continues from the last resourceVersion seen, so changes spread over several
// re-watches each appear exactly once, in order.
func TestWatchResumesWithoutLossOrRepeats(t *testing.T) {
	c := testenv.Plain(t)
	cs, ns := c.Client(), c.Namespace(t)
	out, stop := startStep(t, ns, watchOptions{timeoutSeconds: 1})
	out.Wait(t, 1, "watching from there")

	names := []string{"p0", "p1", "p2", "p3"}
	for i, name := range names {
		// 等到 watch 又被關閉一次，讓每個變化落在不同的 watch 裡。
		// Wait for one more closed watch, so each change lands in a different watch.
		out.Wait(t, i+1, "watch closed")
		testenv.CreatePod(t, cs, ns, name, nil)
		out.Wait(t, 1, "ADDED     "+ns+"/"+name)
	}
	stop()

	got := out.String()
	for _, name := range names {
		if n := strings.Count(got, "ADDED     "+ns+"/"+name+" "); n != 1 {
			t.Errorf("pod %s was ADDED %d times; want exactly once\n%s", name, n, got)
		}
	}
	var want []string
	for _, name := range names {
		want = append(want, "ADDED     "+ns+"/"+name)
	}
	testenv.WantOrder(t, got, want...)
}

// 情境：要求 bookmark 時，伺服器在 watch 逾時前兩秒送來一個 BOOKMARK：
// 沒有物件變化，只有較新的 resourceVersion，下一次 watch 就從那裡開始。
//
// The story: with bookmarks requested, the server sends a BOOKMARK two
// seconds before the watch times out: no object changed, only a newer
// resourceVersion, where the next watch then starts.
func TestBookmarks(t *testing.T) {
	c := testenv.Plain(t)
	cs, ns := c.Client(), c.Namespace(t)
	out, _ := startStep(t, ns, watchOptions{timeoutSeconds: 4, bookmarks: true})
	out.Wait(t, 1, "watching from there")
	testenv.CreatePod(t, cs, ns, "marked", nil)
	out.Wait(t, 1, "watch    BOOKMARK ")
	out.Wait(t, 1, "watch closed")
	testenv.WantOrder(t, out.String(), "ADDED     "+ns+"/marked", "BOOKMARK", "-- watch closed")
}

// 情境：標籤選擇器交給伺服器過濾，List 與 Watch 都只看得到符合的 Pod。
// （這一步還沒有選擇器旗標；這裡直接把選擇器放進 ListOptions，step02 再把它包成閉包。）
//
// The story: the server filters by label selector, so List and Watch both see
// only matching pods. (This step has no selector flag yet; here the selector
// goes straight into ListOptions, and step02 wraps it in a closure.)
func TestSelectorIsServerSide(t *testing.T) {
	ctx := t.Context()
	c := testenv.Plain(t)
	cs, ns := c.Client(), c.Namespace(t)
	lw := &podListWatcher{client: cs, namespace: ns}
	for name, app := range map[string]string{"keep": "demo", "skip": "other"} {
		testenv.CreatePod(t, cs, ns, name, map[string]string{"app": app})
	}
	pods, err := lw.ListWithContext(ctx, metav1.ListOptions{LabelSelector: "app=demo"})
	if err != nil {
		t.Fatal(err)
	}
	list := pods.(*corev1.PodList)
	if len(list.Items) != 1 || list.Items[0].Name != "keep" {
		t.Fatalf("List with app=demo returned %v; want only keep", list.Items)
	}

	w, err := lw.WatchWithContext(ctx, metav1.ListOptions{LabelSelector: "app=demo", ResourceVersion: list.ResourceVersion})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	// 先建立不符合的，再建立符合的：watch 的第一個事件必須是符合的那個。
	// The non-matching pod first, then the matching one: the watch's first event must be the matching one.
	testenv.CreatePod(t, cs, ns, "skip-too", map[string]string{"app": "other"})
	testenv.CreatePod(t, cs, ns, "keep-too", map[string]string{"app": "demo"})
	select {
	case ev := <-w.ResultChan():
		if p, ok := ev.Object.(*corev1.Pod); !ok || ev.Type != watch.Added || p.Name != "keep-too" {
			t.Fatalf("first watch event with app=demo: %s %v; want ADDED keep-too", ev.Type, ev.Object)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("no watch event for keep-too")
	}
}

// 情境：API server 重新啟動（etcd 保留），停機期間有一個 Pod 被刪、一個被建立。
// watch 結束；重新連上之後，從重新啟動前的 resourceVersion 開始的 watch 得到 410：
// 新的 API server 的 watch cache 從 etcd 目前的 revision 開始，更舊的歷史它沒有。
// 於是重新 List：被刪的 Pod 不在清單裡（這一步沒有記憶，不會說它不見了），新的 Pod 在；
// 之後的變化照常出現。
//
// The story: the API server restarts (etcd kept), and during the outage one
// pod is deleted and one created. The watch ends; once connected again, the
// watch from the resourceVersion seen before the restart gets a 410: the new
// API server's watch cache starts at etcd's current revision and has no older
// history. So the step lists again: the deleted pod is not in the list (this
// step keeps no memory, so nothing says it is gone), the new one is; later
// changes show as before.
func TestAPIServerRestartGives410(t *testing.T) {
	ctx := t.Context()
	c := testenv.Realistic(t)
	cs := c.Client()
	ns := "default"
	for _, name := range []string{"before", "other"} {
		testenv.RunningPod(t, cs, ns, name, map[string]string{"app": "demo"})
		t.Cleanup(func() { _ = scene.DeleteNow(context.Background(), cs, ns, name) })
	}
	out, _ := startStepOn(t, c, ns, watchOptions{})
	out.Wait(t, 1, "watching from there")

	// kube-controller-manager、kube-scheduler 與 kwok 連的是另一個 API server 副本，不受這次重新啟動影響。
	// kube-controller-manager, kube-scheduler and kwok talk to another API server replica; this restart does not touch them.
	c.RestartAPIServer(t, func(other kubernetes.Interface) {
		if err := scene.DeleteNow(ctx, other, ns, "other"); err != nil {
			t.Fatal(err)
		}
		// 等這一步說它連不上，才讓 API server 回來，輸出裡一定有那一行。
		// Bring the API server back only once the step has said it cannot reach it, so the output always has that line.
		out.Wait(t, 1, "-- API server unreachable (")
	})
	out.Wait(t, 2, "watching from there")
	testenv.RunningPod(t, cs, ns, "after", map[string]string{"app": "demo"})
	t.Cleanup(func() { _ = scene.DeleteNow(context.Background(), cs, ns, "after") })
	out.Wait(t, 1, show.Prefix("watch", "MODIFIED", "default/after"), "phase=Running")

	got := out.String()
	testenv.WantOrder(t, got,
		"-- watch closed at resourceVersion=",
		"-- API server unreachable (",
		": 410 Gone (too old resource version: ",
		show.Prefix("list", "EXISTS", "default/before"),
		"-- list returned resourceVersion=",
		show.Prefix("watch", "ADDED", "default/after"),
		show.Event{Source: "watch", What: "MODIFIED", Key: "default/after", Detail: "phase=Running node=kwok-node-0"}.Text())
	if relist := got[strings.Index(got, "410 Gone"):]; strings.Contains(relist, "default/other") {
		t.Errorf("the pod deleted during the outage is in the relist:\n%s", got)
	}
	// 連不上時每秒一行，行數看重新啟動花多久；golden file 只留一行。
	// One line a second while unreachable, as many as the restart takes; the golden file keeps one.
	golden.Check(t, "restart", golden.CollapseRepeats(golden.StripVersions(got)))
}

// 情境：API server 一直連不上時，這一步每秒重試，時間到了就以一行說明結束，
// 告訴你怎麼把叢集帶回來。
//
// The story: while the API server stays unreachable, the step retries every
// second, and when time is up it ends with one line that says how to bring the
// cluster back.
func TestGivesUpWhenTheAPIServerIsGone(t *testing.T) {
	defer func(d time.Duration) { giveUpAfter = d }(giveUpAfter)
	giveUpAfter = 2 * time.Second
	cfg := testenv.Plain(t).Config()
	cfg.Host = "https://127.0.0.1:1"
	var out testenv.Output
	err := run(t.Context(), kubernetes.NewForConfigOrDie(cfg), "default", watchOptions{}, &out)
	if err == nil || !strings.Contains(err.Error(), "the API server went away") || !strings.Contains(err.Error(), "scripts/cluster-up.sh") {
		t.Fatalf("err = %v; want the one line that says the API server went away and how to bring it back", err)
	}
	if n := out.Count("-- API server unreachable (connect: connection refused); retrying in 1s"); n < 2 {
		t.Errorf("want at least two retry lines, got %d:\n%s", n, out.String())
	}
}

// 情境（單元測試，沒有伺服器）：watch 以 410 Gone 失敗時，迴圈重新 List，
// 不論 410 是串流裡的一個 ERROR 事件（kube-apiserver 的做法，上面的測試已連到真實的伺服器驗證過），
// 還是請求本身的錯誤（其他伺服器或代理可能這樣回）。
//
// The story (a unit test, no server in it): when the watch fails with 410
// Gone, the loop lists again, whether the 410 is an ERROR event in the stream
// (what kube-apiserver sends; the test above checks it against the real
// server) or the request's own error (what another server or a proxy may
// answer).
func TestRelistOnGone(t *testing.T) {
	gone := apierrors.NewResourceExpired("too old resource version: 1 (5)")
	for name, firstWatch := range map[string]func() (watch.Interface, error){
		"request error": func() (watch.Interface, error) { return nil, gone },
		"error event": func() (watch.Interface, error) {
			w := watch.NewFake()
			go w.Error(&gone.ErrStatus)
			return w, nil
		},
	} {
		t.Run(name, func(t *testing.T) {
			lists, watches := 0, 0
			lw := &cache.ListWatch{
				ListWithContextFunc: func(context.Context, metav1.ListOptions) (runtime.Object, error) {
					lists++
					return &corev1.PodList{ListMeta: metav1.ListMeta{ResourceVersion: "5"}}, nil
				},
				WatchFuncWithContext: func(context.Context, metav1.ListOptions) (watch.Interface, error) {
					watches++
					if watches == 1 {
						return firstWatch()
					}
					return watch.NewFake(), nil
				},
			}
			out, stop := testenv.Start(t, func(ctx context.Context, out io.Writer) error {
				return listAndWatch(ctx, lw, watchOptions{}, out)
			})
			out.Wait(t, 2, "watching from there")
			stop()
			if !strings.Contains(out.String(), "watch from resourceVersion=5: 410 Gone (too old resource version: 1 (5)); listing again") {
				t.Errorf("no 410 note in output:\n%s", out.String())
			}
			if lists != 2 {
				t.Errorf("listed %d times; want 2 (the first list and one after 410 Gone)", lists)
			}
		})
	}
}

// 不認得的旗標只印一行錯誤、結束碼不是 0；Ctrl-C 讓這一步以結束碼 0 結束。
//
// An unknown flag prints one error line and exits non-zero; Ctrl-C ends this
// step with exit code 0.
func TestCommandLine(t *testing.T) {
	c := testenv.Plain(t)
	bin := testenv.Build(t)
	testenv.Fails(t, bin, "step01-listwatcher: flag provided but not defined: -bogus (see -h)", "--bogus")
	testenv.Interrupt(t, bin, "watching from there", "--kubeconfig", c.Kubeconfig(t), "-n", c.Namespace(t))
	// --ui 與 --record：網址、頁面、Ctrl-C 之後埠關了，錄製檔跟印出的一樣。 / --ui and --record: the URL, the page, the port closed after Ctrl-C, the recording equal to the output.
	testenv.InterruptLive(t, bin, "watching from there", "--kubeconfig", c.Kubeconfig(t), "-n", c.Namespace(t))
}
