package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"

	"github.com/informer-walkthrough/informer-walkthrough/internal/browser"
	"github.com/informer-walkthrough/informer-walkthrough/internal/cli"
	"github.com/informer-walkthrough/informer-walkthrough/internal/golden"
	"github.com/informer-walkthrough/informer-walkthrough/internal/pagetest"
	"github.com/informer-walkthrough/informer-walkthrough/internal/scene"
	"github.com/informer-walkthrough/informer-walkthrough/internal/show"
	"github.com/informer-walkthrough/informer-walkthrough/internal/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }

func startStep(t *testing.T, ns string, opts options) *testenv.Output {
	t.Helper()
	return startStepOn(t, testenv.Plain(t), ns, opts)
}

// startStepOn 跟 startStep 一樣，但在指定的叢集上執行。
//
// startStepOn is startStep on the given cluster.
func startStepOn(t *testing.T, c *testenv.Cluster, ns string, opts options) *testenv.Output {
	t.Helper()
	cs := c.Client()
	out, _ := testenv.Start(t, func(ctx context.Context, out io.Writer) error {
		return run(ctx, cs, ns, opts, out)
	})
	return out
}

// demo 重現 README 的情境，等每個 informer 印出對應的處理函式呼叫；建立之後等的是含有
// created 的那一行（只有 API server 時是 OnAdd，擬真叢集上是變成 Running 的 OnUpdate）。
//
// demo plays the README's scene, waiting for every informer to print the
// matching handler call; after the create it waits for the line containing
// created (OnAdd with an API server alone, the OnUpdate to Running on the
// realistic cluster).
func demo(t *testing.T, cs kubernetes.Interface, ns, created string, outs ...*testenv.Output) {
	t.Helper()
	testenv.DemoScene(t, cs, ns, func(change string) {
		for _, out := range outs {
			out.Wait(t, 1, map[string]string{"created": created, "labelled": "tier=web", "deleted": "OnDelete "}[change], " "+ns+"/demo ")
		}
	})
}

// 情境：一個 Pod 已經存在；informer 同步之後，"demo" 被建立、加標籤、刪除。
// 處理函式依序被呼叫，每次呼叫之後自訂索引都反映了新的狀態。
//
// The story: one pod exists; after the informer syncs, "demo" is created,
// labelled and deleted. The handlers fire in order, and after each call the
// custom index reflects the new state.
func TestDemo(t *testing.T) {
	c := testenv.Realistic(t)
	cs := c.Client()
	ns := "default"
	testenv.BeforePod(t, cs, ns)

	// 即時頁面開著（跟 --ui 同一條路）：印出的文字跟 golden file 一樣，頁面也看到同樣的事件。
	// The live page is on (the path --ui takes): the text is the golden file's, and the page sees the same events.
	opts := options{constructor: "options", name: testenv.InformerName(t)}
	out, lv, _ := testenv.StartLive(t, c, ns, page(options{}), "demo.recording.jsonl", func(ctx context.Context, cs kubernetes.Interface, out io.Writer) error {
		return run(ctx, cs, ns, opts, out)
	})
	out.Wait(t, 1, "watching from there")
	demo(t, cs, ns, "phase Pending -> Running", out)

	got := out.String()
	testenv.WantOrder(t, got,
		show.Event{Source: "handler", What: "OnAdd", Key: "default/before", Detail: "phase=Running node=kwok-node-0 labels=app=demo (initial list)"}.Text(),
		"-- cache synced (HasSynced=true): ListKeys() = [default/before]",
		show.Prefix("handler", "OnAdd", "")+"default/demo             phase=Pending labels=app=demo\n-- index byApp: demo=[default/before default/demo]",
		show.Event{Source: "handler", What: "OnUpdate", Key: "default/demo", Detail: "nodeName set to kwok-node-0"}.Text(),
		show.Event{Source: "handler", What: "OnUpdate", Key: "default/demo", Detail: "phase Pending -> Running"}.Text(),
		show.Event{Source: "handler", What: "OnUpdate", Key: "default/demo", Detail: "labels app=demo -> app=demo,tier=web"}.Text(),
		show.Event{Source: "handler", What: "OnUpdate", Key: "default/demo", Detail: "deletionTimestamp set"}.Text(),
		show.Event{Source: "handler", What: "OnUpdate", Key: "default/demo", Detail: "deletion grace period 30s -> 0s"}.Text(),
		show.Prefix("handler", "OnDelete", "")+"default/demo",
		"-- index byApp: demo=[default/before]",
	)
	golden.Check(t, "demo", golden.StripVersions(got))
	t.Run("page", func(t *testing.T) {
		pagetest.CheckPage(t, pagetest.Page(t, lv.URL(), out.String()), out.String, "demo")
	})
	// client-go 自己的 informer metrics（有名字的 informer 才有）：處理過的批次，與 store 看到的 resourceVersion。
	// client-go's own informer metrics (named informers only): the batches processed, and the resourceVersion the store saw.
	t.Run("metrics", func(t *testing.T) {
		who := `name="` + t.Name()[:len("TestDemo")] + `",resource="pods"`
		if n := testenv.Metric(t, lv.URL(), "informer_processing_latency_seconds_count", who); n < 1 {
			t.Errorf("informer_processing_latency_seconds_count{%s} = %v; the informer processed the whole scene", who, n)
		}
		if rv := testenv.Metric(t, lv.URL(), "informer_store_resource_version", who); rv <= 0 {
			t.Errorf("informer_store_resource_version{%s} = %v; want the last resourceVersion seen", who, rv)
		}
	})
}

// 情境：叢集來的字串在頁面上只是文字。按頁面上的 Annotate，給 Pod 一個看起來像 HTML 的 annotation：
// 叢集存下的就是那串字，頁面把它原樣顯示成文字，不產生任何元素、不執行任何程式，主控台沒有錯誤。
//
// The story: strings from the cluster are only text on the page. The page's
// Annotate button gives a pod an annotation that looks like HTML: the
// cluster stores those characters, and the page shows them as they are, as
// text, making no element, running nothing, with a clean console.
func TestPageShowsClusterStringsAsText(t *testing.T) {
	c := testenv.Plain(t)
	cs, ns := c.Client(), c.Namespace(t)
	testenv.CreatePod(t, cs, ns, "hostile", map[string]string{"app": "demo"})
	out, lv, _ := testenv.StartLive(t, c, ns, page(options{}), "", func(ctx context.Context, cs kubernetes.Interface, out io.Writer) error {
		return run(ctx, cs, ns, options{constructor: "options"}, out)
	})
	out.Wait(t, 1, "watching from there")
	b := pagetest.Page(t, lv.URL(), out.String())

	const hostile = `<img src=x onerror="document.title='pwned'">`
	b.Type(t, "#scene-name", "hostile")
	b.Type(t, "#scene-labels", "informer-lab/note="+hostile)
	b.Click(t, `#scene-form button[data-args="annotate"]`)
	b.Wait(t, "the scene to answer", `document.getElementById("scene-said").dataset.status === "200"`, `document.getElementById("scene-said").textContent`)
	out.Wait(t, 1, show.Prefix("handler", "OnUpdate", ns+"/hostile"))

	pod, err := cs.CoreV1().Pods(ns).Get(t.Context(), "hostile", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := pod.Annotations["informer-lab/note"]; got != hostile {
		t.Fatalf("the pod's annotation is %q; want %q", got, hostile)
	}
	if said := browser.Eval[string](t, b, `document.getElementById("scene-said").textContent`); !strings.Contains(said, hostile) {
		t.Errorf("the page's answer %q does not show the annotation as text", said)
	}
	if n := browser.Eval[int](t, b, `document.querySelectorAll("img").length`); n != 0 {
		t.Errorf("the page made %d <img> elements from the annotation", n)
	}
	if title := browser.Eval[string](t, b, `document.title`); strings.Contains(title, "pwned") {
		t.Errorf("the annotation ran as script: the title is %q", title)
	}
	pagetest.SamePage(t, b, out.String)
}

// 情境：兩個 informer 看同一個 namespace，一個用原始文章的 NewIndexerInformer，
// 一個用現行的 NewInformerWithOptions。同樣的變化，兩者印出一模一樣的處理函式呼叫與索引內容。
//
// The story: two informers watch one namespace, one built with the source
// article's NewIndexerInformer, one with today's NewInformerWithOptions. The
// same changes produce exactly the same handler calls and index contents.
func TestConstructorsBehaveTheSame(t *testing.T) {
	c := testenv.Plain(t)
	cs, ns := c.Client(), c.Namespace(t)
	testenv.CreatePod(t, cs, ns, "before", map[string]string{"app": "demo"})
	old := startStep(t, ns, options{constructor: "indexer"})
	now := startStep(t, ns, options{constructor: "options"})
	old.Wait(t, 1, "watching from there")
	now.Wait(t, 1, "watching from there")
	demo(t, cs, ns, "OnAdd ", old, now)

	strip := func(s string) string {
		s = strings.Replace(s, "NewIndexerInformer (deprecated)", "CONSTRUCTOR", 1)
		return strings.Replace(s, "NewInformerWithOptions", "CONSTRUCTOR", 1)
	}
	if a, b := strip(old.String()), strip(now.String()); a != b {
		t.Errorf("the two constructors differ\n--- NewIndexerInformer\n%s--- NewInformerWithOptions\n%s", a, b)
	}
}

// 情境：自訂索引跟著標籤走。Pod 從 app=a 改成 app=b，ByIndex 的答案隨之改變；
// 拿掉標籤，Pod 就不在這個索引裡。
//
// The story: the custom index follows the labels. A pod moves from app=a to
// app=b and ByIndex's answers change with it; without the label the pod leaves
// this index.
func TestIndexFollowsLabels(t *testing.T) {
	ctx := t.Context()
	c := testenv.Plain(t)
	cs, ns := c.Client(), c.Namespace(t)
	lw := cache.NewListWatchFromClient(cs.CoreV1().RESTClient(), "pods", ns, fields.Everything())
	indexer, informer := newInformer(lw, cache.ResourceEventHandlerFuncs{}, options{constructor: "options"})
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	go informer.RunWithContext(runCtx)
	if !cache.WaitForCacheSync(runCtx.Done(), informer.HasSynced) {
		t.Fatal("informer never synced")
	}

	byIndex := func(app string) []string {
		objs, err := indexer.ByIndex(byApp, app)
		if err != nil {
			t.Fatal(err)
		}
		var keys []string
		for _, o := range objs {
			keys = append(keys, show.Key(o.(*corev1.Pod)))
		}
		sort.Strings(keys)
		return keys
	}
	waitIndex := func(app string, want ...string) {
		t.Helper()
		testenv.Poll(t, fmt.Sprintf("ByIndex(%s, %s) = %v", byApp, app, want), func() bool {
			return reflect.DeepEqual(byIndex(app), want)
		})
	}

	testenv.CreatePod(t, cs, ns, "p1", map[string]string{"app": "a"})
	testenv.CreatePod(t, cs, ns, "p2", map[string]string{"app": "a"})
	waitIndex("a", ns+"/p1", ns+"/p2")
	if _, err := scene.Label(ctx, cs, ns, "p1", "app", new("b")); err != nil {
		t.Fatal(err)
	}
	waitIndex("a", ns+"/p2")
	waitIndex("b", ns+"/p1")
	if _, err := scene.Label(ctx, cs, ns, "p2", "app", nil); err != nil {
		t.Fatal(err)
	}
	waitIndex("a")
	if _, exists, _ := indexer.GetByKey(ns + "/p2"); !exists {
		t.Errorf("GetByKey(%s/p2): p2 left the cache, but only its label went away", ns)
	}
}

// 情境：設定 --resync 之後，即使什麼都沒變，OnUpdate 也會週期性地收到同一個
// resourceVersion 的物件。resync 只是把快取重新交給處理函式，不會重新 List：從第一次到第三次
// resync 之間，步驟的 client 沒有送出任何請求（跟 --trace 用的是同一個記錄器）。
//
// The story: with --resync, OnUpdate is called periodically with the same
// resourceVersion even though nothing changed. A resync hands the cache to
// the handler again; it does not list again: between the first and the
// third resync the step's client sends no request at all (counted by the
// tracer --trace uses).
func TestResync(t *testing.T) {
	c := testenv.Plain(t)
	ns := c.Namespace(t)
	testenv.CreatePod(t, c.Client(), ns, "quiet", nil)
	trace := &testenv.Output{}
	cfg := c.Config()
	cfg.Wrap(cli.Tracer(trace))
	cs := kubernetes.NewForConfigOrDie(cfg)
	out, _ := testenv.Start(t, func(ctx context.Context, out io.Writer) error {
		return run(ctx, cs, ns, options{constructor: "options", resync: time.Second}, out)
	})
	out.Wait(t, 1, "OnUpdate  "+ns+"/quiet ", "same resourceVersion")
	requests := trace.Count("trace: ")
	out.Wait(t, 3, "OnUpdate  "+ns+"/quiet ", "same resourceVersion")
	if after := trace.Count("trace: "); after != requests {
		t.Errorf("%d requests during two resyncs; want none:\n%s", after-requests, trace.String())
	}
	if requests == 0 {
		t.Errorf("the tracer saw no request at all, so it counts nothing:\n%s", trace.String())
	}
}

// 情境：API server 停機期間，透過同一個 etcd 上的另一個 API server，一個 Pod 被刪除、
// 一個被建立、一個改了標籤。恢復之後 informer 重新 List：刪除以墓碑的形式交給 OnDelete，
// 其餘的變化也都出現，快取與伺服器一致。
//
// The story: while the API server is down, through another API server on the
// same etcd, one pod is deleted, one created, one relabelled. Once it is back
// the informer lists again: the delete reaches OnDelete as a tombstone, the
// other changes show up too, and the cache matches the server.
func TestSurvivesAPIServerRestart(t *testing.T) {
	ctx := t.Context()
	c := testenv.Plain(t)
	cs, ns := c.Client(), c.Namespace(t)
	testenv.CreatePod(t, cs, ns, "stays", map[string]string{"app": "x"})
	testenv.CreatePod(t, cs, ns, "goes", map[string]string{"app": "x"})
	out := startStep(t, ns, options{constructor: "options"})
	out.Wait(t, 1, "watching from there")

	c.RestartAPIServer(t, func(other kubernetes.Interface) {
		if err := scene.Delete(ctx, other, ns, "goes"); err != nil {
			t.Fatal(err)
		}
		testenv.CreatePod(t, other, ns, "arrives", map[string]string{"app": "x"})
		if _, err := scene.Label(ctx, other, ns, "stays", "app", new("y")); err != nil {
			t.Fatal(err)
		}
	})

	out.Wait(t, 1, "OnDelete  "+ns+"/goes ", "tombstone: deleted while we were not watching")
	out.Wait(t, 1, "OnAdd     "+ns+"/arrives ")
	out.Wait(t, 1, "OnUpdate  "+ns+"/stays ", "labels app=x -> app=y")
	out.Wait(t, 1, "-- index byApp: x=["+ns+"/arrives] y=["+ns+"/stays]")
}

// 錯誤的 --constructor 在送出任何請求之前就變成一行錯誤；Ctrl-C 以 0 結束。
//
// A bad --constructor is one error line before any request; Ctrl-C exits 0.
func TestCommandLine(t *testing.T) {
	c := testenv.Plain(t)
	bin := testenv.Build(t)
	testenv.Fails(t, bin, "step03-indexer-informer: flag provided but not defined: -bogus (see -h)", "--bogus")
	testenv.Fails(t, bin, `--constructor must be options or indexer, not "shared"`, "--kubeconfig", "/nonexistent", "--constructor", "shared")
	testenv.Interrupt(t, bin, "watching from there", "--kubeconfig", c.Kubeconfig(t), "-n", c.Namespace(t))
	// --ui 與 --record：網址、頁面、Ctrl-C 之後埠關了，錄製檔跟印出的一樣。 / --ui and --record: the URL, the page, the port closed after Ctrl-C, the recording equal to the output.
	testenv.InterruptLive(t, bin, "watching from there", "--kubeconfig", c.Kubeconfig(t), "-n", c.Namespace(t))
}

// 情境：API server 在步驟執行中停掉又回來。Reflector 自己退避重試、撐過去；
// 步驟印出一行說它連不上（附上 scripts/cluster-up.sh 的提示），恢復後再印一行，之後的變化照常出現。
//
// The story: the API server goes away while the step runs, and comes back.
// The Reflector backs off and retries on its own and rides it out; the step
// says in one line that it cannot reach the server (with the
// scripts/cluster-up.sh hint), says another when it answers again, and later
// changes show as usual.
func TestSaysWhenTheAPIServerGoesAway(t *testing.T) {
	c := testenv.Plain(t)
	cs, ns := c.Client(), c.Namespace(t)
	bin := testenv.Build(t)
	out := &testenv.Output{}
	cmd := testenv.Command(bin, "--kubeconfig", c.Kubeconfig(t), "-n", ns)
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		_ = cmd.Wait()
	})
	out.Wait(t, 1, "watching from there")
	// 等到這一步說它連不上，才讓 API server 回來：Reflector 退避的時間可能比停機還長，
	// 那樣它根本沒試過連線，也就沒有什麼好說的。
	// Bring the API server back only once the step has said it cannot reach
	// it: the Reflector's backoff may outlast a short outage, and then it never
	// tried to connect and has nothing to say.
	c.RestartAPIServer(t, func(kubernetes.Interface) {
		out.Wait(t, 1, "-- API server unreachable (", "client-go keeps retrying with backoff (if the cluster is down: scripts/cluster-up.sh)")
	})
	out.Wait(t, 1, "-- API server answers again")
	testenv.CreatePod(t, cs, ns, "later", nil)
	out.Wait(t, 1, show.Prefix("handler", "OnAdd", ns+"/later"))
	if n := out.Count("-- API server unreachable ("); n != 1 {
		t.Errorf("the outage was reported %d times; want once however many retries it took:\n%s", n, out.String())
	}
}

// 情境：同一個 namespace 裡 200 個 Pod，以及另一個裡 2000 個，都帶著同一個 app 標籤。步驟同步所印出的輸出跟 Pod
// 的數目成正比：每個 Pod 的位元組數兩邊差不多，2000 個的總量比 200 個的十倍少一點（量到的是 9.9 倍）。大的索引桶子與大的快取只寫大小、
// 這次的變化與前幾個 key（GetByKey 也只讀前三個），所以沒有一行會隨著 Pod 變多而變長。
//
// The story: 200 pods in one namespace and 2000 in another, all with the
// same app label. What the step prints until it has synced grows with the
// pods: about as many bytes per pod either way, so 2000 pods print a little
// less than ten times what 200 do (9.9 times, measured). A big index bucket
// and a big cache show only their size, this change and their first keys
// (GetByKey reads the first three only), so no line grows with the pods.
func TestOutputGrowsLinearly(t *testing.T) {
	c := testenv.Plain(t)
	// 兩個 namespace 的名字一樣長（x-2 與 x-3），每一行的 key 才一樣長。 / Two namespace names of one length (x-2 and x-3), so keys are as long in both.
	c.Namespace(t)
	namespaces := map[int]string{200: c.Namespace(t), 2000: c.Namespace(t)}
	perPod, total := map[int]float64{}, map[int]int{}
	for _, n := range []int{200, 2000} {
		ns := namespaces[n]
		testenv.ManyPods(t, c, ns, n)
		out := startStepOn(t, c, ns, options{constructor: "options"})
		out.Wait(t, 1, "informer synced; watching from there")
		text := out.String()
		total[n] = len(text)
		perPod[n] = float64(len(text)) / float64(n)
		for _, line := range strings.Split(text, "\n") {
			if len(line) > 200 {
				t.Errorf("%d pods: a line of %d bytes; a big bucket or cache should be summarised: %.120s…", n, len(line), line)
			}
		}
		if got := out.Count("-- GetByKey("); got != 3 {
			t.Errorf("%d pods: %d GetByKey lines after the sync; want the first 3 keys only", n, got)
		}
	}
	t.Logf("%d bytes for 200 pods, %d for 2000 (%.1f times)", total[200], total[2000], float64(total[2000])/float64(total[200]))
	if ratio := perPod[2000] / perPod[200]; ratio < 0.8 || ratio > 1.25 || total[2000] >= 10*total[200] {
		t.Errorf("bytes per pod: %.0f for 200 pods, %.0f for 2000 (ratio %.2f), %d and %d in all; want about the same per pod, and less than ten times in all",
			perPod[200], perPod[2000], ratio, total[200], total[2000])
	}
}

// BenchmarkSyncVsList 比較步驟 03 從啟動到印出「watching from there」要多久，跟 kubectl get pods -o name（PATH 上有
// kubectl 時），以及它底下做的事（一個每頁 500 個的 LIST）。Pod 的數目是 200 與 2000，各一個 namespace。
//
//	go test -run '^$' -bench SyncVsList -benchtime 5x ./step03-indexer-informer
//
// BenchmarkSyncVsList compares how long step 03 takes from start until it
// prints "watching from there" with kubectl get pods -o name (when kubectl
// is on PATH) and with what that does underneath (a LIST in pages of 500).
// The pod counts are 200 and 2000, a namespace each.
func BenchmarkSyncVsList(b *testing.B) {
	c := testenv.Plain(b)
	for _, n := range []int{200, 2000} {
		ns := c.Namespace(b)
		testenv.ManyPods(b, c, ns, n)
		cs := c.Client()
		b.Run(fmt.Sprintf("pods=%d/step03", n), func(b *testing.B) {
			for b.Loop() {
				out, stop := testenv.Start(b, func(ctx context.Context, out io.Writer) error {
					return run(ctx, cs, ns, options{constructor: "options"}, out)
				})
				out.Wait(b, 1, "informer synced; watching from there")
				b.StopTimer()
				stop()
				b.StartTimer()
			}
		})
		// kubectl 在 PATH 上時也量它：它還多了啟動與 discovery 的時間。 / With kubectl on PATH, time it too: it adds its start-up and discovery.
		b.Run(fmt.Sprintf("pods=%d/kubectl", n), func(b *testing.B) {
			kubectl, err := exec.LookPath("kubectl")
			if err != nil {
				b.Skip("no kubectl on PATH")
			}
			kubeconfig := c.Kubeconfig(b)
			for b.Loop() {
				if out, err := exec.Command(kubectl, "--kubeconfig", kubeconfig, "-n", ns, "get", "pods", "-o", "name").CombinedOutput(); err != nil {
					b.Fatalf("kubectl: %v\n%s", err, out)
				}
			}
		})
		b.Run(fmt.Sprintf("pods=%d/list", n), func(b *testing.B) {
			for b.Loop() {
				opts := metav1.ListOptions{Limit: 500}
				for {
					list, err := cs.CoreV1().Pods(ns).List(b.Context(), opts)
					if err != nil {
						b.Fatal(err)
					}
					if opts.Continue = list.Continue; opts.Continue == "" {
						break
					}
				}
			}
		})
	}
}
