package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensions "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/yaml"

	"github.com/informer-walkthrough/informer-walkthrough/internal/cli"
	"github.com/informer-walkthrough/informer-walkthrough/internal/golden"
	"github.com/informer-walkthrough/informer-walkthrough/internal/pagetest"
	"github.com/informer-walkthrough/informer-walkthrough/internal/scene"
	"github.com/informer-walkthrough/informer-walkthrough/internal/show"
	"github.com/informer-walkthrough/informer-walkthrough/internal/testenv"
	labv1alpha1 "github.com/informer-walkthrough/informer-walkthrough/step06-custom-resource/apis/lab/v1alpha1"
	"github.com/informer-walkthrough/informer-walkthrough/step06-custom-resource/generated/clientset/versioned"
)

// TestMain 啟動測試的叢集。這個行程裡每個測試都建一個 manager，各有一個叫 podtally 的控制器：
// 讓 controller-runtime 略過名字不可重複的檢查（見 manager.go 的 skipNameValidation）。
//
// TestMain starts the test clusters. Every test in this process builds a
// manager with a controller named podtally: controller-runtime is told to
// skip its check that names are unique (see skipNameValidation in
// manager.go).
//
// 擬真叢集的 controller-manager 啟動之前先裝好 CRD：garbage collector 一開始就認得 PodTally，TestDemo 刪掉 tally
// 之後，不必等它每 30 秒一次的下一輪資源探索才刪掉報告（學習者剛裝好 CRD 時會等，步驟的 README 有說）。
// The realistic cluster gets the CRD before its controller-manager starts:
// the garbage collector knows PodTally from the start, so once TestDemo
// deletes the tally it need not wait for the next resource discovery, every
// 30 s, to delete the report (a learner who has just installed the CRD does
// wait; the step's README says so).
func TestMain(m *testing.M) {
	skipNameValidation = true
	testenv.BeforeRealisticComponents = func(cfg *rest.Config) error {
		return createCRD(context.Background(), cfg, time.Minute)
	}
	testenv.Main(m)
}

// crdFile 是步驟 06 產生的 CRD：這一步不裝它，測試替學習者先裝好（就像先跑過步驟 06）。
//
// crdFile is the CRD step 06 generates: this step does not install it; the
// tests install it first, as if the learner had run step 06.
const crdFile = "../step06-custom-resource/crd/lab.informer-walkthrough.github.io_podtallies.yaml"

// installCRD 在叢集 c 裝好步驟 06 的 CRD，等到它 Established。
//
// installCRD installs step 06's CRD on cluster c and waits until it is
// Established.
func installCRD(t testing.TB, c *testenv.Cluster) {
	t.Helper()
	if err := createCRD(t.Context(), c.Config(), testenv.WaitTimeout); err != nil {
		t.Fatal(err)
	}
}

// createCRD 建立步驟 06 的 CRD（已經有了也行），等到它 Established。
//
// createCRD creates step 06's CRD (fine if it exists already) and waits
// until it is Established.
func createCRD(ctx context.Context, cfg *rest.Config, timeout time.Duration) error {
	b, err := os.ReadFile(crdFile)
	if err != nil {
		return err
	}
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := yaml.UnmarshalStrict(b, crd); err != nil {
		return err
	}
	crds := apiextensions.NewForConfigOrDie(cfg).ApiextensionsV1().CustomResourceDefinitions()
	if _, err := crds.Create(ctx, crd, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return err
	}
	err = wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, timeout, true, func(ctx context.Context) (bool, error) {
		got, err := crds.Get(ctx, crd.Name, metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		for _, cond := range got.Status.Conditions {
			if cond.Type == apiextensionsv1.Established && cond.Status == apiextensionsv1.ConditionTrue {
				return true, nil
			}
		}
		return false, nil
	})
	if err != nil {
		return fmt.Errorf("CRD %s not Established: %w", crd.Name, err)
	}
	return nil
}

func tallies(c *testenv.Cluster, ns string) interface {
	Create(context.Context, *labv1alpha1.PodTally, metav1.CreateOptions) (*labv1alpha1.PodTally, error)
	Get(context.Context, string, metav1.GetOptions) (*labv1alpha1.PodTally, error)
	Delete(context.Context, string, metav1.DeleteOptions) error
} {
	return versioned.NewForConfigOrDie(c.Config()).LabV1alpha1().PodTallies(ns)
}

// freshTally 建立 tally（已經有同名的就先刪掉），status 是空的。 / freshTally creates a tally (deleting one of that name first), with an empty status.
func freshTally(t testing.TB, c *testenv.Cluster, ns, name, selector string) {
	t.Helper()
	ts := tallies(c, ns)
	// 上一個測試留下的 tally 可能帶著這一步的 finalizer，而那個控制器已經停了：先拿掉，刪除才不會卡住。
	// A tally an earlier test left may carry this step's finalizer, and that controller has stopped: take it off
	// first, or the delete would hang.
	if old, err := ts.Get(t.Context(), name, metav1.GetOptions{}); err == nil && len(old.Finalizers) > 0 {
		old.Finalizers = nil
		if _, err := versioned.NewForConfigOrDie(c.Config()).LabV1alpha1().PodTallies(ns).Update(t.Context(), old, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if err := ts.Delete(t.Context(), name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
		t.Fatal(err)
	}
	testenv.Poll(t, "tally "+name+" gone", func() bool {
		_, err := ts.Get(t.Context(), name, metav1.GetOptions{})
		return apierrors.IsNotFound(err)
	})
	if _, err := ts.Create(t.Context(), &labv1alpha1.PodTally{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}, Spec: labv1alpha1.PodTallySpec{Selector: selector},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// releaseTallies 拿掉每個 namespace 裡每個 tally 的 finalizer（CRD 還沒安裝時什麼都不做）。
//
// releaseTallies takes the finalizers off every tally in every namespace
// (and does nothing while the CRD is not installed).
func releaseTallies(t testing.TB, c *testenv.Cluster) {
	t.Helper()
	ts := versioned.NewForConfigOrDie(c.Config()).LabV1alpha1().PodTallies(metav1.NamespaceAll)
	list, err := ts.List(t.Context(), metav1.ListOptions{})
	if apierrors.IsNotFound(err) {
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	for _, old := range list.Items {
		if len(old.Finalizers) == 0 {
			continue
		}
		old.Finalizers = nil
		if _, err := versioned.NewForConfigOrDie(c.Config()).LabV1alpha1().PodTallies(old.Namespace).Update(t.Context(), &old, metav1.UpdateOptions{}); err != nil && !apierrors.IsNotFound(err) {
			t.Fatal(err)
		}
	}
}

// leftByStep06 讓 app-demo 處於步驟 06 的 README 走完之後的樣子：選 app=demo，status 數到 before，
// 跟步驟 06 寫的一模一樣。照著 README 依序做的學習者，看到的就是這個起點。
//
// leftByStep06 puts app-demo in the state step 06's README leaves it in:
// selecting app=demo, its status counting before, exactly as step 06 writes
// it. A learner following the READMEs in order starts from there.
func leftByStep06(t testing.TB, c *testenv.Cluster, ns string) {
	t.Helper()
	freshTally(t, c, ns, "app-demo", "app=demo")
	ts := versioned.NewForConfigOrDie(c.Config()).LabV1alpha1().PodTallies(ns)
	tally, err := ts.Get(t.Context(), "app-demo", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	tally.Status = labv1alpha1.PodTallyStatus{ObservedGeneration: 1, Count: 1, Pods: []string{"before"}}
	meta.SetStatusCondition(&tally.Status.Conditions, metav1.Condition{
		Type: "Ready", Status: metav1.ConditionTrue, Reason: "Counted", Message: "1 pod matches", ObservedGeneration: 1,
	})
	if _, err := ts.UpdateStatus(t.Context(), tally, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
}

func waitTally(t testing.TB, c *testenv.Cluster, ns, name, what string, ok func(*labv1alpha1.PodTally) bool) *labv1alpha1.PodTally {
	t.Helper()
	var got *labv1alpha1.PodTally
	testenv.Poll(t, "tally "+ns+"/"+name+": "+what, func() bool {
		var err error
		got, err = tallies(c, ns).Get(t.Context(), name, metav1.GetOptions{})
		return err == nil && ok(got)
	})
	return got
}

func startStep(t *testing.T, cfg *rest.Config, ns string, opts options) *testenv.Output {
	t.Helper()
	opts = defaults(t, opts)
	out, _ := testenv.Start(t, func(ctx context.Context, out io.Writer) error { return run(ctx, cfg, ns, opts, out) })
	return out
}

func defaults(t *testing.T, opts options) options {
	if opts.workers == 0 {
		opts.workers = 1
	}
	if opts.leaseDuration == 0 {
		opts.leaseDuration = 15e9
	}
	if opts.metricsAddr == "" {
		opts.metricsAddr = "0"
	}
	return opts
}

// lastCount 回傳一段輸出裡最後一次 UpdateStatus 寫下的數字。 / lastCount returns the count the last UpdateStatus in some output wrote.
func lastCount(t *testing.T, out string) string {
	t.Helper()
	m := regexp.MustCompile(`UpdateStatus: count \d+ -> (\d+)`).FindAllStringSubmatch(out, -1)
	if len(m) == 0 {
		t.Fatalf("no UpdateStatus in:\n%s", out)
	}
	return m[len(m)-1][1]
}

// 情境：README 的示範，跟步驟 06 的同一段場景，再加上擁有的物件與 finalizer。before 已經在，app-demo 是步驟 06
// 留下的樣子（數到 before）。第一次 Reconcile 加上 finalizer、建立報告與索引，status 不必寫；加 finalizer 的
// 更新以一次 generation 沒變的更新回來，被 GenerationChangedPredicate 擋下。scene demo 建立、加標籤、刪除 demo：
// 兩次 status 寫入也都被擋下。接著刪掉報告：擁有者被排進佇列，報告又被建立。最後刪掉 tally：刪除讓 generation
// 加一，所以那次更新通過；Reconcile 清掉索引裡的那一行、拿掉 finalizer，tally 才消失。garbage collector
// （kube-controller-manager）先暫停，等 tally 的最後一次 Reconcile 印出來再放行：它刪掉報告，報告的刪除又把
// 擁有者排進佇列，那一次 Reconcile 找不到它。最後的 status 跟步驟 06 的 golden file 一樣。
//
// The story: the README's demo, step 06's scene, plus the owned object and
// the finalizer. before exists, app-demo is as step 06 leaves it (counting
// before). The first Reconcile adds the finalizer and creates the report
// and the index, with no status to write; the finalizer's update comes back
// with the same generation, and GenerationChangedPredicate drops it. scene
// demo creates, labels and deletes demo: both status writes are dropped too.
// Then the report is deleted: its owner is queued, and the report is
// written again. Last, the tally is deleted: the delete adds one to the
// generation, so that update passes; Reconcile clears the index line and
// takes the finalizer off, and only then is the tally gone. The garbage
// collector (kube-controller-manager) is held until the tally's last
// Reconcile has printed, then released: it deletes the report, whose delete
// queues the owner again, and that Reconcile does not find it. The last
// status written is step 06's golden file's.
func TestDemo(t *testing.T) {
	ctx := t.Context()
	c := testenv.Realistic(t)
	cs := c.Client()
	ns := "default"
	installCRD(t, c)
	testenv.BeforePod(t, cs, ns)
	leftByStep06(t, c, ns)
	t.Cleanup(func() { _ = cs.CoreV1().ConfigMaps(ns).Delete(context.Background(), indexName, metav1.DeleteOptions{}) })
	opts := defaults(t, options{})
	out, lv, _ := testenv.StartLiveConfig(t, c, ns, page(options{}), "demo.recording.jsonl", func(ctx context.Context, cfg *rest.Config, out io.Writer) error {
		return run(ctx, cfg, ns, opts, out)
	})
	dropped := func(n int) {
		out.Wait(t, n, show.Prefix("tallies", "OnUpdate", "default/app-demo"), "GenerationChangedPredicate drops it")
	}
	// 控制器自己寫的報告與索引，要等 ConfigMap 的 informer 收到（不印出來的事件）才往下走：不然下一次 Reconcile
	// 可能從還沒跟上的快取讀，多寫一次（README 沒有這樣的一行）。
	// The report and the index the controller wrote: wait until the ConfigMap informer has them (events not
	// printed) before going on; otherwise the next Reconcile might read a cache not yet caught up and write once
	// more (a line the README does not have).
	written := func(n int, what string) {
		out.WaitEvents(t, n, "reports", what, "default/app-demo-report")
		out.WaitEvents(t, n, "reports", what, "default/"+indexName)
	}
	out.Wait(t, 1, "watching from there")
	out.Wait(t, 1, show.Prefix("podtally", "Reconcile", "default/app-demo"), "finalizer added; report app-demo-report applied")
	dropped(1)
	written(1, "OnAdd")
	testenv.DemoScene(t, cs, ns, func(change string) {
		switch change {
		case "created":
			dropped(2)
			written(1, "OnUpdate")
		case "labelled":
			out.Wait(t, 1, show.Prefix("podtally", "Reconcile", "default/app-demo"), "status up to date, nothing to write")
		case "deleted":
			dropped(3)
			written(2, "OnUpdate")
		}
	})
	if err := scene.DeleteConfigMap(ctx, cs, ns, "app-demo-report", testenv.WaitTimeout); err != nil {
		t.Fatal(err)
	}
	out.Wait(t, 4, show.Prefix("podtally", "Reconcile", "default/app-demo"), "report app-demo-report applied")
	out.WaitEvents(t, 2, "reports", "OnAdd", "default/app-demo-report")
	resume := c.Pause(t, "kube-controller-manager")
	uid, err := scene.DeleteTally(ctx, cs, ns, "app-demo", testenv.WaitTimeout)
	if err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	out.Wait(t, 1, show.Prefix("podtally", "Reconcile", "default/app-demo"), "not in the cache")
	resume()
	// garbage collector 從啟動時就認得這個 CRD（見 TestMain），不必等它每 30 秒一次的資源探索。
	// The garbage collector has known this CRD since it started (see TestMain), with no wait for its resource
	// discovery every 30 seconds.
	if _, err := scene.OwnedConfigMapsGone(ctx, cs, ns, uid, testenv.WaitTimeout); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	out.Wait(t, 2, show.Prefix("podtally", "Reconcile", "default/app-demo"), "not in the cache")
	got := out.String()
	if n := out.Count(show.Prefix("podtally", "Reconcile", "")); n != 8 {
		t.Errorf("%d Reconciles; want 8 (the first, create, label, delete, the deleted report, the tally being deleted, gone, gone again after its report): no write of the controller's own may trigger one\n%s", n, got)
	}
	golden.Check(t, "demo", golden.StripVersions(got))
	step06, err := os.ReadFile(filepath.Join("..", "step06-custom-resource", "testdata", "demo.golden"))
	if err != nil {
		t.Fatal(err)
	}
	if a, b := lastCount(t, got), lastCount(t, string(step06)); a != b {
		t.Errorf("the last count written is %s here and %s in step 06's golden file; the same scene must end with the same status", a, b)
	}
	// 報告跟著擁有者走了；索引還在，只是沒有 app-demo 那一行。 / The report went with its owner; the index stays, without app-demo's line.
	if _, err := cs.CoreV1().ConfigMaps(ns).Get(ctx, "app-demo-report", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("the report is still there after its owner went (err %v): the garbage collector should have deleted it", err)
	}
	index, err := cs.CoreV1().ConfigMaps(ns).Get(ctx, indexName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, listed := index.Data["app-demo"]; listed {
		t.Errorf("the index still lists app-demo after the finalizer ran: %v", index.Data)
	}
	t.Run("page", func(t *testing.T) {
		pagetest.CheckPage(t, pagetest.Page(t, lv.URL(), out.String()), out.String, "demo")
	})
}

// 情境：--trace：manager 的快取對每種型別（tally、Pod、ConfigMap）只開一條 watch，三條都是 WatchList 串流
// （sendInitialEvents=true），沒有另外的 LIST：跟步驟 05 的共享 informer 一樣。
//
// The story: --trace: the manager's cache opens one watch per type (the
// tallies, the pods, the ConfigMaps), all three WatchList streams
// (sendInitialEvents=true), with no separate LIST: as step 05's shared
// informers.
func TestOneWatchPerType(t *testing.T) {
	c := testenv.Plain(t)
	installCRD(t, c)
	ns := c.Namespace(t)
	freshTally(t, c, ns, "app-demo", "app=demo")
	trace := &testenv.Output{}
	cfg := c.Config()
	cfg.Wrap(cli.Tracer(trace))
	out := startStep(t, cfg, ns, options{})
	out.Wait(t, 1, "watching from there")
	out.Wait(t, 1, show.Prefix("podtally", "Reconcile", ns+"/app-demo"))
	var watches []string
	for line := range strings.Lines(trace.String()) {
		if strings.Contains(line, "watch=true") {
			watches = append(watches, line)
		}
		if strings.Contains(line, "GET /api") && strings.Contains(line, "/namespaces/"+ns+"/") && !strings.Contains(line, "watch=true") {
			t.Errorf("a LIST besides the WatchList stream: %s", line)
		}
	}
	want := []*regexp.Regexp{
		regexp.MustCompile(`^trace: GET /apis/lab\.informer-walkthrough\.github\.io/v1alpha1/namespaces/` + ns + `/podtallies\?.*sendInitialEvents=true.*watch=true -> 200`),
		regexp.MustCompile(`^trace: GET /api/v1/namespaces/` + ns + `/pods\?.*sendInitialEvents=true.*watch=true -> 200`),
		// Owns 的 ConfigMap 只看帶著 managed-by 標籤的（ByObject）。 / Owns' ConfigMaps: only those with the managed-by label (ByObject).
		regexp.MustCompile(`^trace: GET /api/v1/namespaces/` + ns + `/configmaps\?.*labelSelector=app\.kubernetes\.io%2Fmanaged-by%3Dpodtally.*sendInitialEvents=true.*watch=true -> 200`),
	}
	if len(watches) != 3 {
		t.Fatalf("%d watches; want 3, one per type:\n%s", len(watches), trace.String())
	}
	for _, re := range want {
		if !slices.ContainsFunc(watches, re.MatchString) {
			t.Errorf("no watch matches %s:\n%s", re, trace.String())
		}
	}
}

// 情境：選擇器解析失敗的 tally 得到 Ready=False、原因 BadSelector，不重試；另一個 tally 照常被數；
// 改 spec（generation 2）通過 predicate，observedGeneration 跟上。
//
// The story: a tally whose selector does not parse gets Ready=False with
// reason BadSelector, with no retry; another tally is counted as usual; a
// spec change (generation 2) passes the predicate and observedGeneration
// follows.
func TestBadSelectorAndSpecChange(t *testing.T) {
	c := testenv.Plain(t)
	installCRD(t, c)
	ns := c.Namespace(t)
	testenv.CreatePod(t, c.Client(), ns, "web", map[string]string{"app": "demo", "tier": "web"})
	freshTally(t, c, ns, "bad", "app in (")
	freshTally(t, c, ns, "app-demo", "app=demo")
	out := startStep(t, c.Config(), ns, options{})
	waitTally(t, c, ns, "bad", "Ready=False BadSelector", func(p *labv1alpha1.PodTally) bool {
		cond := meta.FindStatusCondition(p.Status.Conditions, "Ready")
		return cond != nil && cond.Status == metav1.ConditionFalse && cond.Reason == "BadSelector"
	})
	waitTally(t, c, ns, "app-demo", "count 1", func(p *labv1alpha1.PodTally) bool { return p.Status.Count == 1 })
	demo, err := tallies(c, ns).Get(t.Context(), "app-demo", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	demo.Spec.Selector = "tier=db"
	if _, err := versioned.NewForConfigOrDie(c.Config()).LabV1alpha1().PodTallies(ns).Update(t.Context(), demo, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	out.Wait(t, 1, show.Prefix("tallies", "OnUpdate", ns+"/app-demo"), "generation 1 -> 2: reconcile")
	waitTally(t, c, ns, "app-demo", "count 0 at generation 2", func(p *labv1alpha1.PodTally) bool {
		return p.Status.ObservedGeneration == 2 && p.Status.Count == 0
	})
	if n := out.Count(show.Prefix("podtally", "Reconcile", ns+"/bad"), "does not parse"); n != 1 {
		t.Errorf("the bad tally was reconciled %d times; want once (no retry, and its own status write filtered):\n%s", n, out.String())
	}
}

// 情境：manager 的 /metrics（綁在 127.0.0.1）有 controller-runtime 的 workqueue 與 reconcile metrics，
// 沒有 Reflector 的 metrics：controller-runtime v0.25.2 不註冊它們。--recount 300ms 時，tally 還在的每次 Reconcile
// 都回傳 RequeueAfter：reconcile_total 記在 result="requeue_after" 底下（不是 success），而延後的加入也算進
// workqueue_retries_total，跟 README 說的一樣。刪掉 tally 之後，那次 Reconcile 清掉 finalizer、回傳空的結果，
// 算成 success。
//
// The story: the manager's /metrics (bound to 127.0.0.1) has
// controller-runtime's workqueue and reconcile metrics, and no reflector
// metrics: controller-runtime v0.25.2 registers none. With --recount 300ms,
// every Reconcile of a tally that exists returns RequeueAfter:
// reconcile_total counts it under result="requeue_after" (not success), and
// the delayed adds count in workqueue_retries_total, as the README says.
// Once the tally is deleted, the Reconcile that clears its finalizer returns
// an empty result and counts as success.
func TestMetrics(t *testing.T) {
	c := testenv.Plain(t)
	installCRD(t, c)
	ns := c.Namespace(t)
	freshTally(t, c, ns, "app-demo", "app=demo")
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	_ = l.Close()
	out := startStep(t, c.Config(), ns, options{metricsAddr: addr, recount: 300 * time.Millisecond})
	out.Wait(t, 1, show.Prefix("podtally", "Reconcile", ns+"/app-demo"))
	var body string
	scrape := func() bool {
		resp, err := http.Get("http://" + addr + "/metrics")
		if err != nil {
			return false
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		body = string(b)
		return resp.StatusCode == http.StatusOK
	}
	value := func(series string) float64 {
		m := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(series) + ` (\S+)$`).FindStringSubmatch(body)
		if m == nil {
			return 0
		}
		v, _ := strconv.ParseFloat(m[1], 64)
		return v
	}
	requeueAfter := `controller_runtime_reconcile_total{controller="podtally",result="requeue_after"}`
	retries := `workqueue_retries_total{controller="podtally",name="podtally"}`
	success := `controller_runtime_reconcile_total{controller="podtally",result="success"}`
	// controller-runtime 的 metrics 登記在整個行程共用的 Registry 裡，同一個測試程式裡別的測試的 manager 也記在同樣的
	// 序列上：只看從這裡開始的增加量。
	// controller-runtime's metrics live in one Registry for the whole process, and other tests' managers in this
	// test binary count in the same series: only the increase from here on counts.
	testenv.Poll(t, "the metrics endpoint", scrape)
	base := map[string]float64{requeueAfter: value(requeueAfter), retries: value(retries), success: value(success)}
	testenv.Poll(t, "three recounts in /metrics", func() bool {
		return scrape() && value(requeueAfter)-base[requeueAfter] >= 3 && value(retries)-base[retries] >= 3
	})
	if v := value(success) - base[success]; v != 0 {
		t.Errorf("%s rose by %v while the tally exists; every such Reconcile returns RequeueAfter", success, v)
	}
	if err := versioned.NewForConfigOrDie(c.Config()).LabV1alpha1().PodTallies(ns).Delete(t.Context(), "app-demo", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	testenv.Poll(t, "a success in /metrics after the delete", func() bool {
		return scrape() && value(success)-base[success] >= 1
	})
	for _, want := range []string{`workqueue_depth{controller="podtally",name="podtally"`, `workqueue_adds_total{controller="podtally",name="podtally"`, `controller_runtime_active_workers{controller="podtally"}`} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	if strings.Contains(body, "reflector_") {
		t.Errorf("/metrics has reflector metrics; the chapter says controller-runtime v0.25.2 registers none")
	}
}
