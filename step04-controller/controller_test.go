package main

import (
	"context"
	"io"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/kubernetes"

	"github.com/informer-walkthrough/informer-walkthrough/internal/browser"
	"github.com/informer-walkthrough/informer-walkthrough/internal/golden"
	"github.com/informer-walkthrough/informer-walkthrough/internal/pagetest"
	"github.com/informer-walkthrough/informer-walkthrough/internal/scene"
	"github.com/informer-walkthrough/informer-walkthrough/internal/show"
	"github.com/informer-walkthrough/informer-walkthrough/internal/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }

var defaults = options{workers: 1, maxRetries: 5, baseDelay: 5 * time.Millisecond, fifo: "atomic"}

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

// 情境：在擬真叢集上，一個 Pod 已經在跑；"demo" 被建立，依序被排程、變成 Running，
// 然後加標籤，再加上 informer-lab/fail=true：同步失敗、以加倍的延遲重試五次、放棄；
// 拿掉 annotation（註記）之後，下一次變化帶來成功的同步。每個變化依序出現三次：Reflector 推進佇列
// （queue）、processLoop 處理（fifo）、worker 同步。兩種佇列模式各有一個 golden file。
// scheduler 與 kwok 先暫停、再一個一個放行，讓 worker 在下一個事件之前做完同步：
// 這是 worker 跟得上時的樣子，也是 README 展示的輸出；跟不上時，幾個事件會合併成一次同步。
//
// The story: on the realistic cluster one pod is running; "demo" is created,
// gets scheduled and goes Running, is labelled, then annotated
// informer-lab/fail=true: its sync fails, is retried five times with doubling
// delays, and is given up; once the annotation is removed, the next change
// brings a successful sync. Each change shows three times, in order: the
// Reflector's push into the queue, the processLoop (fifo), the worker. Each
// queue mode has a golden file. The scheduler and kwok are paused and then
// released one at a time, so the worker finishes each sync before the next
// event: what it looks like when the worker keeps up, and the output the
// README shows; when it does not, several events merge into one sync.
func TestDemo(t *testing.T) {
	ctx := t.Context()
	for _, mode := range []struct {
		golden    string
		perObject bool
	}{{"demo", false}, {"demo-per-object", true}} {
		t.Run(mode.golden, func(t *testing.T) {
			c := testenv.Realistic(t)
			cs := c.Client()
			ns := "default"
			testenv.BeforePod(t, cs, ns)
			opts := defaults
			if mode.perObject {
				opts.fifo = "per-object"
			}
			// 即時頁面開著（跟 --ui 同一條路）：印出的文字跟 golden file 一樣，頁面也看到同樣的事件。
			// The live page is on (the path --ui takes): the text is the golden file's, and the page sees the same events.
			opts.name = testenv.InformerName(t)
			out, lv, _ := testenv.StartLive(t, c, ns, page(opts), mode.golden+".recording.jsonl", func(ctx context.Context, cs kubernetes.Interface, out io.Writer) error {
				return run(ctx, cs, ns, opts, out)
			})
			out.Wait(t, 1, show.Prefix("worker1", "sync", "default/before"))

			c.OneChangeAtATime(t, ns, func(change string) {
				out.Wait(t, 1, show.Prefix("worker1", "sync", "default/demo"), testenv.DemoAfter[change])
				out.WaitIdle(t, "default/demo")
			})
			if _, err := scene.Annotate(ctx, cs, ns, "demo", failAnnotation, new("true")); err != nil {
				t.Fatal(err)
			}
			out.Wait(t, 1, "giving up after 5 retries")
			out.WaitIdle(t, "default/demo")
			if _, err := scene.Annotate(ctx, cs, ns, "demo", failAnnotation, nil); err != nil {
				t.Fatal(err)
			}
			out.Wait(t, 2, show.Prefix("worker1", "sync", "default/demo"), "tier=web")
			golden.Check(t, mode.golden, golden.DropBookmarks(golden.StripVersions(out.String())))
			t.Run("page", func(t *testing.T) {
				pagetest.CheckPage(t, pagetest.Page(t, lv.URL(), out.String()), out.String, mode.golden)
			})
		})
	}
}

// 情境：一開始就有兩個 Pod。預設模式下，Reflector 推進一個帶著兩個 Pod 的 ReplacedAll，
// 處理時先換掉整個 Indexer，再呼叫兩次 OnAdd；舊模式下，佇列把它拆成兩個 Replaced，
// 兩者成為一批，在一個交易裡寫進 Indexer。
//
// The story: two pods exist from the start. By default the Reflector pushes
// one ReplacedAll carrying both, and processing replaces the whole Indexer
// before calling OnAdd twice; in the old mode the queue splits it into two
// Replaced deltas, which form one batch written to the Indexer in one
// transaction.
func TestInitialListOfTwoPods(t *testing.T) {
	c := testenv.Plain(t)
	cs, ns := c.Client(), c.Namespace(t)
	testenv.CreatePod(t, cs, ns, "one", nil)
	testenv.CreatePod(t, cs, ns, "two", nil)

	out := startStep(t, ns, defaults)
	out.Wait(t, 1, "informer synced")
	testenv.WantOrder(t, out.String(),
		show.Event{Source: "queue", What: "Replace", Key: "2 pods", Detail: "-> one ReplacedAll delta"}.Text(),
		"-- fifo: ReplacedAll with 2 pods: indexer.Replace first",
		show.Prefix("fifo", "OnAdd", ""), "new to the cache (initial list)",
		show.Prefix("fifo", "OnAdd", ""), "new to the cache (initial list)",
		"-- informer synced")

	opts := defaults
	opts.fifo = "per-object"
	out = startStep(t, ns, opts)
	out.Wait(t, 1, "informer synced")
	testenv.WantOrder(t, out.String(),
		show.Event{Source: "queue", What: "Replace", Key: "2 pods", Detail: "-> one Replaced delta per pod"}.Text(),
		"-- fifo: a batch of 2 changes: one indexer transaction, then the handlers",
		show.Prefix("fifo", "Replaced", ""), "indexer.Add (in the batch), OnAdd (initial list)",
		show.Prefix("fifo", "Replaced", ""), "indexer.Add (in the batch), OnAdd (initial list)",
		"-- informer synced")
}

// 情境：--resync 讓 Reflector 定期推進一個 SyncAll；處理時對快取裡每個 Pod 呼叫 OnUpdate，
// 控制器於是把每個 key 再同步一次。
//
// The story: --resync makes the Reflector push a SyncAll now and then;
// processing calls OnUpdate for every pod in the cache, so the controller
// syncs every key once more.
func TestResyncIsOneSyncAll(t *testing.T) {
	c := testenv.Plain(t)
	cs, ns := c.Client(), c.Namespace(t)
	testenv.CreatePod(t, cs, ns, "a", nil)
	opts := defaults
	opts.resync = time.Second
	out := startStep(t, ns, opts)
	out.Wait(t, 2, show.Prefix("worker1", "sync", ns+"/a"))
	testenv.WantOrder(t, out.String(),
		show.Prefix("queue", "Resync", ""), "-> one SyncAll delta",
		"-- fifo: SyncAll: OnUpdate(obj, obj) for each of the 1 pod in the indexer",
		show.Prefix("fifo", "OnUpdate", ns+"/a"), "resync: old and new are the same object",
		show.Prefix("worker1", "sync", ns+"/a"))
}

// 情境：失敗的 key 以指數退避重試：每次等待都是上一次的兩倍，到達上限就被丟棄。
//
// The story: a failing key is retried with exponential backoff: each wait is
// twice the one before, and at the limit the key is dropped.
func TestRetriesBackOffThenGiveUp(t *testing.T) {
	ctx := t.Context()
	c := testenv.Plain(t)
	cs, ns := c.Client(), c.Namespace(t)
	opts := defaults
	opts.maxRetries = 4
	out := startStep(t, ns, opts)
	out.Wait(t, 1, "informer synced")
	testenv.CreatePod(t, cs, ns, "broken", nil)
	if _, err := scene.Annotate(ctx, cs, ns, "broken", failAnnotation, new("true")); err != nil {
		t.Fatal(err)
	}
	out.Wait(t, 1, "giving up after 4 retries")

	delays := regexp.MustCompile(`retry (\d)/4 in (\S+)`).FindAllStringSubmatch(out.String(), -1)
	if len(delays) != 4 {
		t.Fatalf("want 4 retries, got %d:\n%s", len(delays), out.String())
	}
	var prev time.Duration
	for i, m := range delays {
		d, err := time.ParseDuration(m[2])
		if err != nil {
			t.Fatal(err)
		}
		if m[1] != string(rune('1'+i)) || (i > 0 && d != 2*prev) {
			t.Errorf("retry %d waited %s after %s; want retries numbered in order, each wait double the last", i+1, d, prev)
		}
		prev = d
	}
	if n := strings.Count(out.String(), "FAILED    "+ns+"/broken"); n != 5 {
		t.Errorf("want 5 failed syncs (1 + 4 retries), got %d", n)
	}
}

// 情境：每個 key 都被同步；刪除的 Pod 在快取裡找不到，同步時就被當作已刪除。
//
// The story: every key is synced; a deleted pod is no longer in the cache, and
// its sync reports it as deleted.
func TestSyncsEveryKeyAndDeletes(t *testing.T) {
	ctx := t.Context()
	c := testenv.Plain(t)
	cs, ns := c.Client(), c.Namespace(t)
	names := []string{"a", "b", "c", "d"}
	for _, n := range names {
		testenv.CreatePod(t, cs, ns, n, nil)
	}
	out := startStep(t, ns, options{workers: 2, maxRetries: 5, baseDelay: 5 * time.Millisecond})
	for _, n := range names {
		out.Wait(t, 1, " sync      "+ns+"/"+n+" ", "phase=Pending")
	}
	if err := scene.Delete(ctx, cs, ns, "b"); err != nil {
		t.Fatal(err)
	}
	out.Wait(t, 1, " sync      "+ns+"/b ", "gone from the cache")
	// 兩個 worker 各有名字；每一行同步都說是哪一個做的。
	// The two workers have names; every sync line says which one did it.
	for _, line := range strings.Split(out.String(), "\n") {
		if f := strings.Fields(line); len(f) > 1 && f[1] == "sync" && f[0] != "worker1" && f[0] != "worker2" {
			t.Errorf("a sync line without its worker's name: %q", line)
		}
	}
}

// 情境：worker 還沒啟動時，同一個 Pod 改了三次。佇列裡只有一個 key；worker 啟動後只同步一次，
// 而且看到的是最後的狀態。
//
// The story: before any worker runs, one pod changes three times. The queue
// holds one key; once a worker starts it syncs once, and sees the final state.
func TestKeysCoalesce(t *testing.T) {
	ctx := t.Context()
	cluster := testenv.Plain(t)
	cs, ns := cluster.Client(), cluster.Namespace(t)
	out := &testenv.Output{}
	c := newController(cs, ns, defaults, out)
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	go c.informer.RunWithContext(runCtx)
	testenv.Poll(t, "the informer to sync", c.informer.HasSynced)

	testenv.CreatePod(t, cs, ns, "busy", map[string]string{"v": "1"})
	for _, v := range []string{"2", "3"} {
		if _, err := scene.Label(ctx, cs, ns, "busy", "v", new(v)); err != nil {
			t.Fatal(err)
		}
	}
	out.Wait(t, 2, show.Prefix("fifo", "Updated", ns+"/busy"))
	if n := c.queue.Len(); n != 1 {
		t.Fatalf("queue length = %d after three changes to one pod; want 1", n)
	}
	if n := out.Count(ns + "/busy is already waiting in the workqueue"); n != 2 {
		t.Errorf("want 2 'already waiting' notes, got %d:\n%s", n, out.String())
	}

	go func() {
		for c.processNextItem(ctx, "worker1") {
		}
	}()
	out.Wait(t, 1, show.Prefix("worker1", "sync", ns+"/busy"), "labels=v=3")
	c.queue.ShutDownWithDrain()
	if n := out.Count(show.Prefix("worker1", "sync", "") + ns + "/busy "); n != 1 {
		t.Errorf("want exactly one sync for three changes, got %d:\n%s", n, out.String())
	}
}

// 情境：worker 同步一個 key 的時候，這個 Pod 又變了。佇列不給第二份，也不讓另一個 worker 同時拿到它：
// 處理函式說 key 正在同步；Done 之後 key 再被交出去一次，第二次同步讀到新的標籤。兩個 worker 從來沒有同時拿著它。
//
// The story: while a worker syncs a key, the pod changes again. The queue
// makes no second entry and gives the key to no other worker meanwhile: the
// handler says the key is being synced; after Done the key is handed out
// once more, and the second sync reads the new label. Never did two workers
// hold it at once.
func TestChangeWhileSyncing(t *testing.T) {
	ctx := t.Context()
	c := testenv.Plain(t)
	cs, ns := c.Client(), c.Namespace(t)
	testenv.CreatePod(t, cs, ns, "busy", map[string]string{"v": "1"})
	opts := defaults
	opts.workers = 2
	// 同步要夠久，標籤的變化才一定在同步結束前到達。 / The sync is long enough for the label change to arrive before it ends.
	opts.syncTime = 3 * time.Second
	// 文字與事件都送進 out：MostHeld 要看每個 worker 的 Get 與 Done（不印出來的事件）。
	// Text and events both go into out: MostHeld needs each worker's Get and Done (events not printed).
	out, _ := testenv.Start(t, func(ctx context.Context, w io.Writer) error {
		return run(ctx, cs, ns, opts, show.NewStream(w, w.(*testenv.Output)))
	})
	out.Wait(t, 1, " sync      "+ns+"/busy ", "labels=v=1")
	if _, err := scene.Label(ctx, cs, ns, "busy", "v", new("2")); err != nil {
		t.Fatal(err)
	}
	out.Wait(t, 1, " sync      "+ns+"/busy ", "labels=v=2")
	testenv.WantOrder(t, out.String(),
		" sync      "+ns+"/busy ", "labels=v=1",
		show.Prefix("fifo", "Updated", ns+"/busy"),
		"-- "+ns+"/busy is being synced: the workqueue hands it out once more after Done",
		" sync      "+ns+"/busy ", "labels=v=2")
	if n := out.Count("is already waiting in the workqueue"); n != 0 {
		t.Errorf("a key being synced is not waiting in the queue, yet %d notes say so:\n%s", n, out.String())
	}
	out.WaitIdle(t, ns+"/busy")
	if n := out.MostHeld(ns + "/busy"); n != 1 {
		t.Errorf("%d workers held %s/busy at once; the workqueue hands a key to one worker at a time", n, ns)
	}
}

// 情境：與步驟 03 相同的 API server 重新啟動，兩種佇列各跑一次。停機期間刪除的 Pod 以墓碑離開：
// 預設模式由處理 ReplacedAll 時跟 Indexer 比對得出，舊模式由佇列自己排入 Deleted。
// worker 回報它已刪除；停機期間的新增與修改也都被同步。
//
// The story: the same API server restart as in step 03, once per queue mode.
// The pod deleted during the outage leaves as a tombstone: by default found
// while processing the ReplacedAll against the Indexer, in the old mode queued
// as a Deleted by the queue itself. The worker reports it deleted; what was
// created and changed meanwhile is synced too.
func TestSurvivesAPIServerRestart(t *testing.T) {
	testenv.FullTier(t, "step 03's restart story again, once per queue mode; step 03's own runs in the quick tier; about 14 s")
	ctx := t.Context()
	for _, mode := range []struct {
		name      string
		perObject bool
		tombstone []string
	}{
		{"atomic", false, []string{show.Prefix("fifo", "OnDelete", ""), "/goes ", "not in the new list (tombstone)"}},
		{"per-object", true, []string{show.Prefix("fifo", "Deleted", ""), "/goes ", "(tombstone)"}},
	} {
		t.Run(mode.name, func(t *testing.T) {
			c := testenv.Plain(t)
			cs, ns := c.Client(), c.Namespace(t)
			testenv.CreatePod(t, cs, ns, "stays", map[string]string{"app": "x"})
			testenv.CreatePod(t, cs, ns, "goes", nil)
			opts := defaults
			if mode.perObject {
				opts.fifo = "per-object"
			}
			out := startStep(t, ns, opts)
			out.Wait(t, 1, show.Prefix("worker1", "sync", ns+"/goes"))
			out.Wait(t, 1, show.Prefix("worker1", "sync", ns+"/stays"))

			c.RestartAPIServer(t, func(other kubernetes.Interface) {
				if err := scene.Delete(ctx, other, ns, "goes"); err != nil {
					t.Fatal(err)
				}
				testenv.CreatePod(t, other, ns, "arrives", nil)
				if _, err := scene.Label(ctx, other, ns, "stays", "app", new("y")); err != nil {
					t.Fatal(err)
				}
			})

			out.Wait(t, 1, mode.tombstone...)
			out.Wait(t, 1, show.Prefix("worker1", "sync", ns+"/goes"), "gone from the cache")
			out.Wait(t, 1, show.Prefix("worker1", "sync", ns+"/arrives"))
			out.Wait(t, 1, show.Prefix("worker1", "sync", ns+"/stays"), "labels=app=y")
			if mode.perObject {
				return
			}
			// 重新 List 是一個 ReplacedAll，帶著重新啟動後存在的兩個 Pod。
			// The relist is one ReplacedAll carrying the two pods that exist after the restart.
			if n := out.Count(show.Prefix("queue", "Replace", "")+"2 pods ", "-> one ReplacedAll delta"); n != 2 {
				t.Errorf("want two Replace pushes of 2 pods (list, relist), got %d:\n%s", n, out.String())
			}
		})
	}
}

// 錯誤的旗標是一行錯誤；Ctrl-C 讓 worker 收尾，然後以 0 結束。
//
// Bad flags are one error line; Ctrl-C lets the workers finish, then exits 0.
func TestCommandLine(t *testing.T) {
	c := testenv.Plain(t)
	bin := testenv.Build(t)
	testenv.Fails(t, bin, "step04-controller: flag provided but not defined: -bogus (see -h)", "--bogus")
	testenv.Fails(t, bin, "--workers must be at least 1", "--kubeconfig", "/nonexistent", "--workers", "0")
	testenv.Fails(t, bin, `--fifo must be atomic or per-object, not "delta"`, "--kubeconfig", "/nonexistent", "--fifo", "delta")
	testenv.Fails(t, bin, `--ui "nonsense": want HOST:PORT`, "--kubeconfig", "/nonexistent", "--ui=nonsense")
	out := testenv.Interrupt(t, bin, "informer synced", "--kubeconfig", c.Kubeconfig(t), "-n", c.Namespace(t))
	if !strings.Contains(out, "-- workers stopped") {
		t.Errorf("no clean worker shutdown after Ctrl-C:\n%s", out)
	}
	// --ui 與 --record：網址、頁面、Ctrl-C 之後埠關了，錄製檔跟印出的一樣。 / --ui and --record: the URL, the page, the port closed after Ctrl-C, the recording equal to the output.
	testenv.InterruptLive(t, bin, "informer synced", "--kubeconfig", c.Kubeconfig(t), "-n", c.Namespace(t))
}

// 情境：三個 worker，每次同步假裝要花 200ms（--sync-time），兩個 Pod 上快速做 20 次標籤變化
// 再拿掉標籤（scene.sh burst 20）。每次變化都推進佇列一次；同步期間到來的變化合併，所以同步比推進少；
// 兩個 Pod 同時由不同的 worker 同步；每行都寫著 worker 的名字；每個 Pod 最後一次同步看到的是最後的狀態：
// 沒有 burst 標籤。
//
// The story: three workers, each sync pretending to take 200ms
// (--sync-time), and 20 quick label changes over two pods, then the label
// removed (scene.sh burst 20). Every change is pushed once; changes arriving
// during a sync merge, so there are fewer syncs than pushes; the two pods are
// synced at once by different workers; every sync names its worker; and each
// pod's last sync sees the final state: no burst label.
func TestWorkersAndBurst(t *testing.T) {
	c := testenv.Plain(t)
	cs, ns := c.Client(), c.Namespace(t)
	for _, n := range []string{"one", "two"} {
		testenv.CreatePod(t, cs, ns, n, map[string]string{"app": n})
	}
	// 頁面開著：它要畫出同樣的合併。 / The page is on: it must draw the same merging.
	opts := options{workers: 3, syncTime: 200 * time.Millisecond, maxRetries: 5, baseDelay: 5 * time.Millisecond, name: testenv.InformerName(t)}
	out, lv, _ := testenv.StartLive(t, c, ns, page(opts), "", func(ctx context.Context, cs kubernetes.Interface, out io.Writer) error {
		return run(ctx, cs, ns, opts, out)
	})
	out.Wait(t, 1, "informer synced")
	// scene.sh 的 burst 也用這麼高的 QPS，變化才會比同步快。 / scene.sh's burst uses this QPS too, so changes outpace syncs.
	fast := c.Config()
	fast.QPS, fast.Burst = 100, 200
	changed, err := scene.Burst(t.Context(), kubernetes.NewForConfigOrDie(fast), ns, 20)
	if err != nil {
		t.Fatal(err)
	}
	if len(changed) != 2 {
		t.Fatalf("burst changed %v; want both pods", changed)
	}
	// 20 次變化加上兩次拿掉標籤：每個 Pod 11 次推進。 / 20 changes plus two removals: 11 pushes per pod.
	for _, n := range []string{"one", "two"} {
		out.Wait(t, 11, show.Prefix("queue", "Update", "")+ns+"/"+n+" ")
	}
	var last map[string]string
	var workers map[string]bool
	syncs := 0
	settled := func() bool {
		last, workers, syncs = map[string]string{}, map[string]bool{}, 0
		for _, line := range strings.Split(out.String(), "\n") {
			f := strings.Fields(line)
			if len(f) < 3 || f[1] != "sync" {
				continue
			}
			if f[0] != "worker1" && f[0] != "worker2" && f[0] != "worker3" {
				t.Fatalf("a sync line without its worker's name: %q", line)
			}
			syncs++
			workers[f[0]] = true
			last[f[2]] = line
		}
		return strings.HasSuffix(last[ns+"/one"], "labels=app=one") && strings.HasSuffix(last[ns+"/two"], "labels=app=two")
	}
	testenv.Poll(t, "the last syncs to show the final state; output so far:", settled, out)
	// 初始清單的兩個 Pod（一個 Replace）與它們的兩次同步，加上 22 次推進；同步必須比推進少：有合併。
	// The initial list's two pods (one Replace) and their two syncs, plus 22 pushes: fewer syncs than pushes means merging.
	if pushes := 2 + out.Count(show.Prefix("queue", "Update", ""), ns+"/"); syncs >= pushes {
		t.Errorf("%d syncs for %d pushes; with 200ms syncs, changes arriving meanwhile should have merged:\n%s", syncs, pushes, out.String())
	}
	if len(workers) < 2 {
		t.Errorf("only %v synced; two pods changing at once should keep two workers busy:\n%s", workers, out.String())
	}

	// 頁面上：worker 階段的事件比推進少，合併的次數就是文字裡的那幾行，每個 worker 的最後一次同步都在。
	// On the page: fewer events at the workers than pushes, the merge count is the text's lines, every worker's last sync is there.
	t.Run("page", func(t *testing.T) {
		text := out.String()
		b := pagetest.Page(t, lv.URL(), text)
		pagetest.SamePage(t, b, out.String)
		pushed, synced := pagetest.DOM(t, b, `[data-stage="push"]`, "data-count"), pagetest.DOM(t, b, `[data-stage="workers"]`, "data-count")
		if want := strconv.Itoa(out.Count("queue    ")); pushed != want {
			t.Errorf("the push stage counts %s events; the step printed %s queue lines", pushed, want)
		}
		if want := strconv.Itoa(out.Count("sync      ")); synced != want {
			t.Errorf("the workers stage counts %s events; the step printed %s sync lines", synced, want)
		}
		if p, s := atoi(t, pushed), atoi(t, synced); s >= p {
			t.Errorf("the page shows %d syncs for %d pushes; it should show the merging", s, p)
		}
		if got, want := pagetest.DOM(t, b, "#wq-merged", "data-merged"), strconv.Itoa(out.Count("is already waiting in the workqueue")); got != want {
			t.Errorf("the page counts %s merged changes; the step printed %s", got, want)
		}
		for w := range workers {
			pagetest.DOM(t, b, `#wq-workers [data-worker="`+w+`"]`, "data-worker")
		}
	})
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// 情境：按下 Ctrl-C 時，佇列不再收新的 key、等著的重試被丟掉，但已經排隊的每個 key 都還會同步一次，
// 都在 "workers stopped" 之前；run 等到這些都做完才結束。先是一個 worker 卡在很長的 --sync-time 裡，
// 另外幾個 key 排在它後面；再來是一個失敗的 key，它的重試還要等很久（退避的上限是 1000 秒）。
//
// The story: on Ctrl-C the queue takes no new keys and a waiting retry is
// dropped, but every key already queued is still synced once, all before
// "workers stopped"; run returns only after that. First one worker is held
// in a long --sync-time with other keys queued behind it; then a failing key
// waits for a retry far away (the backoff caps at 1000 s).
func TestCtrlCDrainsQueuedKeys(t *testing.T) {
	t.Run("queued keys are synced", func(t *testing.T) {
		c := testenv.Plain(t)
		cs, ns := c.Client(), c.Namespace(t)
		names := []string{"a", "b", "c", "d"}
		for _, n := range names {
			testenv.CreatePod(t, cs, ns, n, nil)
		}
		out, stop := startStopping(t, cs, ns, options{workers: 1, maxRetries: 5, baseDelay: 5 * time.Millisecond, syncTime: time.Hour})
		// 一行 sync 出現時，唯一的 worker 就卡在它的假工作裡：其餘的 key 都還在佇列裡。
		// Once one sync line shows, the only worker is stuck in its pretend work: the other keys are still queued.
		out.Wait(t, 1, show.Prefix("worker1", "sync", "")+ns+"/")
		if n := out.Count(show.Prefix("worker1", "sync", "")); n != 1 {
			t.Fatalf("%d syncs before Ctrl-C; want exactly the one in progress:\n%s", n, out)
		}
		stop()

		_, after := splitAtShutdown(t, out.String())
		for _, n := range names {
			if c := out.Count(show.Prefix("worker1", "sync", "") + ns + "/" + n + " "); c != 1 {
				t.Errorf("%s synced %d times; want once, the queued keys drained:\n%s", n, c, out)
			}
		}
		if !strings.HasSuffix(after, "-- workers stopped\n") {
			t.Errorf("the queued keys were not all synced before \"workers stopped\", or something printed after it:\n%s", out)
		}
	})
	t.Run("a delayed retry is dropped", func(t *testing.T) {
		c := testenv.Plain(t)
		cs, ns := c.Client(), c.Namespace(t)
		testenv.CreatePod(t, cs, ns, "broken", map[string]string{})
		if _, err := scene.Annotate(t.Context(), cs, ns, "broken", failAnnotation, new("true")); err != nil {
			t.Fatal(err)
		}
		out, stop := startStopping(t, cs, ns, options{workers: 1, maxRetries: 5, baseDelay: time.Hour})
		out.Wait(t, 1, show.Prefix("worker1", "FAILED", ns+"/broken"), "retry 1/5 in ")
		stop()

		_, after := splitAtShutdown(t, out.String())
		if after != "-- workers stopped\n" || out.Count("FAILED    "+ns+"/broken ") != 1 {
			t.Errorf("want the retry dropped: one FAILED line, nothing between the shutdown note and \"workers stopped\":\n%s", out)
		}
	})
}

// startStopping 在背景執行這一步，回傳它的輸出與 stop：stop 像 Ctrl-C 一樣取消它，並等 run 回傳
// （testenv.Start 在 run 沒有在 WaitTimeout 之內回傳時讓測試失敗）。
//
// startStopping runs the step in the background and returns its output and
// stop, which cancels it as Ctrl-C does and waits for run to return
// (testenv.Start fails the test if it does not within WaitTimeout).
func startStopping(t *testing.T, cs kubernetes.Interface, ns string, opts options) (*testenv.Output, func()) {
	t.Helper()
	return testenv.Start(t, func(ctx context.Context, out io.Writer) error {
		return run(ctx, cs, ns, opts, out)
	})
}

// splitAtShutdown 把輸出切在關閉的那一行：之前是 Ctrl-C 之前發生的，之後是排乾佇列與停下 worker。
//
// splitAtShutdown cuts the output at the shutdown note: before it is what
// happened before Ctrl-C, after it the draining and the workers stopping.
func splitAtShutdown(t *testing.T, got string) (before, after string) {
	t.Helper()
	before, after, ok := strings.Cut(got, "-- shutting down: no new keys, delayed retries dropped, queued keys still synced\n")
	if !ok {
		t.Fatalf("no shutdown note:\n%s", got)
	}
	return before, after
}

// 情境：一千個 Pod，然後 scene.sh burst 200（兩百次標籤變化，再把標籤拿掉）。頁面一直跟得上：它收到的行
// 就是步驟印出的每一行，快取面板有一千個 Pod，而且瀏覽器把許多事件併成一次重畫（重畫的次數遠少於事件數）。
//
// The story: a thousand pods, then scene.sh burst 200 (two hundred label
// changes, then the label removed). The page keeps up throughout: the lines
// it received are every line the step printed, the cache panel holds a
// thousand pods, and the browser folds many events into one redraw (far
// fewer redraws than events).
func TestPageThroughAThousandPods(t *testing.T) {
	c := testenv.Plain(t)
	ns := c.Namespace(t)
	names := testenv.ManyPods(t, c, ns, 1000)
	opts := options{workers: 3, maxRetries: 5, baseDelay: 5 * time.Millisecond, fifo: "atomic", name: testenv.InformerName(t)}
	out, lv, _ := testenv.StartLive(t, c, ns, page(opts), "", func(ctx context.Context, cs kubernetes.Interface, out io.Writer) error {
		return run(ctx, cs, ns, opts, out)
	})
	out.Wait(t, 1000, "sync      "+ns+"/pod-")
	b := pagetest.Page(t, lv.URL(), out.String())

	fast := c.Config()
	fast.QPS, fast.Burst = 100, 200
	changed, err := scene.Burst(t.Context(), kubernetes.NewForConfigOrDie(fast), ns, 200)
	if err != nil {
		t.Fatal(err)
	}
	if len(changed) != 200 {
		t.Fatalf("burst changed %d pods; want 200", len(changed))
	}
	// 每個被改過的 Pod：最後一次同步看到的是拿掉 burst 標籤之後的樣子。
	// Every changed pod: its last sync sees it with the burst label removed.
	testenv.Poll(t, "every changed pod's last sync to show no burst label", func() bool { return settled(out.String(), ns, changed) })
	pagetest.SamePage(t, b, out.String)
	if got := pagetest.DOM(t, b, "#cache-rows", "data-size"); got != strconv.Itoa(len(names)) {
		t.Errorf("the cache panel shows %s pods; want %d", got, len(names))
	}
	events := browser.Eval[int](t, b, "LV.app.timeline.events.length")
	if draws := browser.Eval[int](t, b, "LV.app.draws"); draws*4 > events {
		t.Errorf("%d redraws for %d events; a burst should fold many events into each redraw", draws, events)
	}
}
