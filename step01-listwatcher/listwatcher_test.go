package main

import (
	"context"
	"io"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"

	"github.com/informer-walkthrough/informer-walkthrough/internal/golden"
	"github.com/informer-walkthrough/informer-walkthrough/internal/scene"
	"github.com/informer-walkthrough/informer-walkthrough/internal/show"
	"github.com/informer-walkthrough/informer-walkthrough/internal/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }

var ctx = context.Background()

// startStep 在 namespace ns 上執行這一步，就像 go run ./step01-listwatcher -n ns。
//
// startStep runs this step on namespace ns, as go run ./step01-listwatcher -n ns
// would.
func startStep(t *testing.T, ns string, opts watchOptions) (*testenv.Output, func()) {
	cs := testenv.Client(t)
	return testenv.Start(t, func(ctx context.Context, out io.Writer) error {
		return run(ctx, cs, ns, opts, out)
	})
}

// 故事：先有一個 Pod，步驟開始後再建立、改標籤、刪除另一個。
// 初始清單裡有第一個 Pod；watch 依序送出 ADDED、MODIFIED、DELETED。
// 輸出就是 README 展示的那一段。
//
// The story: one pod exists, then after the step starts another is created,
// relabelled and deleted. The initial list holds the first pod; the watch
// delivers ADDED, MODIFIED, DELETED in that order. The output is the one the
// README shows.
func TestDemo(t *testing.T) {
	cs := testenv.Client(t)
	ns := "default"
	testenv.CreatePod(t, cs, ns, "before", map[string]string{"app": "demo"})
	t.Cleanup(func() { _ = scene.Delete(ctx, cs, ns, "before") })

	out, stop := startStep(t, ns, watchOptions{})
	out.WaitFor(t, "watching from there", 1)
	testenv.DemoScene(t, cs, ns, func(change string) {
		out.WaitFor(t, map[string]string{"created": "ADDED", "labelled": "MODIFIED", "deleted": "DELETED"}[change]+"  ", 1)
	})
	stop()

	got := out.String()
	testenv.WantOrder(t, got,
		"list     EXISTS    default/before",
		"watch    ADDED     default/demo             phase=Pending labels=app=demo",
		"watch    MODIFIED  default/demo             phase=Pending labels=app=demo,tier=web",
		"watch    MODIFIED  default/demo             phase=Pending labels=app=demo,tier=web (deleting)",
		"watch    DELETED   default/demo",
	)
	golden.Check(t, "demo", show.StripVersions(got))
}

// 故事：伺服器每秒就結束一次 watch。每次重新 watch 都從最後看到的 resourceVersion
// 接續，所以跨越好幾次重新 watch 的變化，每個都剛好出現一次，順序不變。
//
// The story: the server ends each watch after one second. Every re-watch
// continues from the last resourceVersion seen, so changes spread over several
// re-watches each appear exactly once, in order.
func TestWatchResumesWithoutLossOrRepeats(t *testing.T) {
	cs := testenv.Client(t)
	ns := testenv.Namespace(t)
	out, stop := startStep(t, ns, watchOptions{timeoutSeconds: 1})
	out.WaitFor(t, "watching from there", 1)

	names := []string{"p0", "p1", "p2", "p3"}
	for i, name := range names {
		// 等到 watch 又被關閉一次，讓每個變化落在不同的 watch 裡。
		// Wait for one more closed watch, so each change lands in a different watch.
		out.WaitFor(t, "watch closed", i+1)
		testenv.CreatePod(t, cs, ns, name, nil)
		out.WaitFor(t, "ADDED     "+ns+"/"+name, 1)
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

// 故事：要求 bookmark 時，伺服器在 watch 逾時前兩秒送來一個 BOOKMARK：
// 沒有物件變化，只有較新的 resourceVersion，下一次 watch 就從那裡開始。
//
// The story: with bookmarks requested, the server sends a BOOKMARK two
// seconds before the watch times out: no object changed, only a newer
// resourceVersion, where the next watch then starts.
func TestBookmarks(t *testing.T) {
	cs := testenv.Client(t)
	ns := testenv.Namespace(t)
	out, _ := startStep(t, ns, watchOptions{timeoutSeconds: 4, bookmarks: true})
	out.WaitFor(t, "watching from there", 1)
	testenv.CreatePod(t, cs, ns, "marked", nil)
	out.WaitFor(t, "watch    BOOKMARK ", 1)
	out.WaitFor(t, "watch closed", 1)
	testenv.WantOrder(t, out.String(), "ADDED     "+ns+"/marked", "BOOKMARK", "-- watch closed")
}

// 故事：標籤選擇器交給伺服器過濾，List 與 Watch 都只看得到符合的 Pod。
// （這一步還沒有選擇器旗標；這裡直接把選擇器放進 ListOptions，step02 再把它包成閉包。）
//
// The story: the server filters by label selector, so List and Watch both see
// only matching pods. (This step has no selector flag yet; here the selector
// goes straight into ListOptions, and step02 wraps it in a closure.)
func TestSelectorIsServerSide(t *testing.T) {
	cs := testenv.Client(t)
	ns := testenv.Namespace(t)
	pods, err := (&podListWatcher{client: cs, namespace: ns}).ListWithContext(ctx, metav1.ListOptions{LabelSelector: "app=demo"})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(pods.(*corev1.PodList).Items); n != 0 {
		t.Fatalf("empty namespace listed %d pods", n)
	}
	for name, app := range map[string]string{"keep": "demo", "skip": "other"} {
		testenv.CreatePod(t, cs, ns, name, map[string]string{"app": app})
	}
	pods, err = (&podListWatcher{client: cs, namespace: ns}).ListWithContext(ctx, metav1.ListOptions{LabelSelector: "app=demo"})
	if err != nil {
		t.Fatal(err)
	}
	items := pods.(*corev1.PodList).Items
	if len(items) != 1 || items[0].Name != "keep" {
		t.Fatalf("List with app=demo returned %v; want only keep", items)
	}
}

// 故事（單元測試，沒有伺服器）：watch 回答 410 Gone 時，迴圈重新 List，
// 不論 410 是請求本身的錯誤，還是串流裡的一個 ERROR 事件（真實伺服器兩種都會送）。
//
// The story (a unit test, no server in it): when the watch answers 410 Gone,
// the loop lists again, whether the 410 is the request's own error or an
// ERROR event in the stream (real servers send both).
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
			out.WaitFor(t, "watching from there", 2)
			stop()
			if !strings.Contains(out.String(), "410 Gone") {
				t.Errorf("no 410 note in output:\n%s", out.String())
			}
			if lists != 2 {
				t.Errorf("listed %d times; want 2 (the first list and one after 410 Gone)", lists)
			}
		})
	}
}

// Ctrl-C 讓這一步以結束碼 0 結束。
//
// Ctrl-C ends this step with exit code 0.
func TestCtrlC(t *testing.T) {
	testenv.Interrupt(t, testenv.Build(t), "watching from there", "--kubeconfig", testenv.Kubeconfig(t), "-n", testenv.Namespace(t))
}
