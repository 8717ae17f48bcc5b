package main

import (
	"context"
	"io"
	"regexp"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/kubernetes"

	"github.com/informer-walkthrough/informer-walkthrough/internal/golden"
	"github.com/informer-walkthrough/informer-walkthrough/internal/scene"
	"github.com/informer-walkthrough/informer-walkthrough/internal/show"
	"github.com/informer-walkthrough/informer-walkthrough/internal/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }

var (
	ctx      = context.Background()
	defaults = options{workers: 1, maxRetries: 5, baseDelay: 5 * time.Millisecond}
)

func startStep(t *testing.T, ns string, opts options) *testenv.Output {
	t.Helper()
	cs := testenv.Client(t)
	out, _ := testenv.Start(t, func(ctx context.Context, out io.Writer) error {
		return run(ctx, cs, ns, opts, out)
	})
	return out
}

// 故事：一個 Pod 已經存在；"demo" 被建立、加標籤，然後加上 informer-lab/fail=true：
// 同步失敗、以加倍的延遲重試五次、放棄；拿掉註解之後，下一次變化帶來成功的同步。
// 每一行先是 processLoop（fifo），再是 worker。
//
// The story: one pod exists; "demo" is created, labelled, then annotated
// informer-lab/fail=true: its sync fails, is retried five times with doubling
// delays, and is given up; once the annotation is removed, the next change
// brings a successful sync. Each change shows the processLoop (fifo) first,
// then the worker.
func TestDemo(t *testing.T) {
	cs := testenv.Client(t)
	ns := "default"
	testenv.CreatePod(t, cs, ns, "before", map[string]string{"app": "demo"})
	t.Cleanup(func() { _ = scene.Delete(ctx, cs, ns, "before") })

	out := startStep(t, ns, defaults)
	out.WaitForLine(t, 1, "worker   sync      default/before ")
	testenv.CreatePod(t, cs, ns, "demo", map[string]string{"app": "demo"})
	out.WaitForLine(t, 1, "worker   sync      default/demo ")
	if _, err := scene.Label(ctx, cs, ns, "demo", "tier", scene.Value("web")); err != nil {
		t.Fatal(err)
	}
	out.WaitForLine(t, 2, "worker   sync      default/demo ")
	if _, err := scene.Annotate(ctx, cs, ns, "demo", failAnnotation, scene.Value("true")); err != nil {
		t.Fatal(err)
	}
	out.WaitFor(t, "giving up after 5 retries", 1)
	if _, err := scene.Annotate(ctx, cs, ns, "demo", failAnnotation, nil); err != nil {
		t.Fatal(err)
	}
	out.WaitForLine(t, 3, "worker   sync      default/demo ")

	got := out.String()
	golden.Check(t, "demo", show.StripVersions(got))
}

// 故事：失敗的鍵以指數退避重試：每次等待都是上一次的兩倍，到達上限就被丟棄。
//
// The story: a failing key is retried with exponential backoff: each wait is
// twice the one before, and at the limit the key is dropped.
func TestRetriesBackOffThenGiveUp(t *testing.T) {
	cs := testenv.Client(t)
	ns := testenv.Namespace(t)
	opts := defaults
	opts.maxRetries = 4
	out := startStep(t, ns, opts)
	out.WaitFor(t, "watching from there", 1)
	testenv.CreatePod(t, cs, ns, "broken", nil)
	if _, err := scene.Annotate(ctx, cs, ns, "broken", failAnnotation, scene.Value("true")); err != nil {
		t.Fatal(err)
	}
	out.WaitFor(t, "giving up after 4 retries", 1)

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

// 故事：每個鍵都被同步；刪除的 Pod 在快取裡找不到，同步時就被當作已刪除。
//
// The story: every key is synced; a deleted pod is no longer in the cache, and
// its sync reports it as deleted.
func TestSyncsEveryKeyAndDeletes(t *testing.T) {
	cs := testenv.Client(t)
	ns := testenv.Namespace(t)
	names := []string{"a", "b", "c", "d"}
	for _, n := range names {
		testenv.CreatePod(t, cs, ns, n, nil)
	}
	out := startStep(t, ns, options{workers: 2, maxRetries: 5, baseDelay: 5 * time.Millisecond})
	for _, n := range names {
		out.WaitForLine(t, 1, "worker   sync      "+ns+"/"+n+" ", "phase=Pending")
	}
	if err := scene.Delete(ctx, cs, ns, "b"); err != nil {
		t.Fatal(err)
	}
	out.WaitForLine(t, 1, "worker   sync      "+ns+"/b ", "gone from the cache")
}

// 故事：worker 還沒啟動時，同一個 Pod 改了三次。佇列裡只有一個鍵；worker 啟動後只同步一次，
// 而且看到的是最後的狀態。
//
// The story: before any worker runs, one pod changes three times. The queue
// holds one key; once a worker starts it syncs once, and sees the final state.
func TestKeysCoalesce(t *testing.T) {
	cs := testenv.Client(t)
	ns := testenv.Namespace(t)
	out := &testenv.Output{}
	c := newController(cs, ns, defaults, out)
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	go c.informer.RunWithContext(runCtx)
	for !c.informer.HasSynced() {
		time.Sleep(10 * time.Millisecond)
	}

	testenv.CreatePod(t, cs, ns, "busy", map[string]string{"v": "1"})
	for _, v := range []string{"2", "3"} {
		if _, err := scene.Label(ctx, cs, ns, "busy", "v", scene.Value(v)); err != nil {
			t.Fatal(err)
		}
	}
	out.WaitForLine(t, 2, "fifo     Updated   "+ns+"/busy ")
	if n := c.queue.Len(); n != 1 {
		t.Fatalf("queue length = %d after three changes to one pod; want 1", n)
	}
	if n := out.Count(ns + "/busy is already queued"); n != 2 {
		t.Errorf("want 2 'already queued' notes, got %d:\n%s", n, out.String())
	}

	go func() {
		for c.processNextItem() {
		}
	}()
	out.WaitForLine(t, 1, "worker   sync      "+ns+"/busy ", "labels=v=3")
	c.queue.ShutDownWithDrain()
	if n := out.Count("worker   sync      " + ns + "/busy "); n != 1 {
		t.Errorf("want exactly one sync for three changes, got %d:\n%s", n, out.String())
	}
}

// 故事：與步驟 03 相同的 API server 重啟。停機期間刪除的 Pod 以墓碑（Deleted）離開 FIFO，
// worker 回報它已刪除；停機期間的新增與修改也都被同步。
//
// The story: the same API server restart as in step 03. The pod deleted during
// the outage leaves the FIFO as a tombstone (Deleted) and the worker reports
// it deleted; what was created and changed meanwhile is synced too.
func TestSurvivesAPIServerRestart(t *testing.T) {
	cs := testenv.Client(t)
	ns := testenv.Namespace(t)
	testenv.CreatePod(t, cs, ns, "stays", map[string]string{"app": "x"})
	testenv.CreatePod(t, cs, ns, "goes", nil)
	out := startStep(t, ns, defaults)
	out.WaitForLine(t, 1, "worker   sync      "+ns+"/goes ")
	out.WaitForLine(t, 1, "worker   sync      "+ns+"/stays ")

	testenv.RestartAPIServer(t, func(other kubernetes.Interface) {
		if err := scene.Delete(ctx, other, ns, "goes"); err != nil {
			t.Fatal(err)
		}
		testenv.CreatePod(t, other, ns, "arrives", nil)
		if _, err := scene.Label(ctx, other, ns, "stays", "app", scene.Value("y")); err != nil {
			t.Fatal(err)
		}
	})

	out.WaitForLine(t, 1, "fifo     Deleted   "+ns+"/goes ", "(tombstone)")
	out.WaitForLine(t, 1, "worker   sync      "+ns+"/goes ", "gone from the cache")
	out.WaitForLine(t, 1, "worker   sync      "+ns+"/arrives ")
	out.WaitForLine(t, 1, "worker   sync      "+ns+"/stays ", "labels=app=y")
}

// 錯誤的旗標是一行錯誤；Ctrl-C 讓 worker 收尾，然後以 0 結束。
//
// Bad flags are one error line; Ctrl-C lets the workers finish, then exits 0.
func TestCommandLine(t *testing.T) {
	bin := testenv.Build(t)
	testenv.Fails(t, bin, "--workers must be at least 1", "--kubeconfig", "/nonexistent", "--workers", "0")
	out := testenv.Interrupt(t, bin, "watching from there", "--kubeconfig", testenv.Kubeconfig(t), "-n", testenv.Namespace(t))
	if !strings.Contains(out, "-- workers stopped") {
		t.Errorf("no clean worker shutdown after Ctrl-C:\n%s", out)
	}
}
