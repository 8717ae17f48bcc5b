// Package testenv 讓一個測試套件共用真正的本機叢集：TestMain 啟動一個只有 API server
// 的叢集（快，pod 停在 Pending），需要 pod 真實生命週期的測試再要求一個擬真叢集
// （加上 controller-manager、scheduler 與 kwok 假節點）。每個測試拿到自己的 namespace，
// 互不干擾。找不到執行檔時明確報錯並失敗，絕不默默略過。
//
// Package testenv gives a test package real local clusters: TestMain starts
// one with only an API server (fast; pods stay Pending), and tests that need
// a pod's real life ask for a realistic one as well (with controller-manager,
// scheduler and kwok's fake node). Each test gets a namespace of its own so
// tests do not see each other's pods. Missing binaries fail loudly, never a
// silent skip.
package testenv

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"

	"github.com/informer-walkthrough/informer-walkthrough/internal/controlplane"
	"github.com/informer-walkthrough/informer-walkthrough/internal/scene"
)

// Cluster 是一個測試套件共用的本機叢集。
//
// Cluster is a local cluster shared by one test package.
type Cluster struct {
	plane     *controlplane.ControlPlane
	realistic bool
}

var (
	// plain 只有 etcd 與 kube-apiserver：pod 永遠 Pending，啟動最快。大多數測試用它。
	// plain has etcd and kube-apiserver only: pods stay Pending, and it starts fastest. Most tests use it.
	plain *Cluster
	// realistic 在第一次被要求時才啟動（加上 controller-manager、scheduler 與 kwok），
	// 給需要 pod 真實生命週期的測試用，例如 golden file。
	// realistic starts the first time a test asks for it (with controller-manager, scheduler and kwok),
	// for the tests that need a pod's real life, such as the golden files.
	realistic     *Cluster
	realisticErr  error
	realisticOnce sync.Once
	verbose       = os.Getenv("TESTENV_VERBOSE") != ""
)

// Main 包裝 testing.M.Run：先啟動控制平面，跑完測試再把它（以及有測試要求過的擬真叢集）停掉。
//
// Main wraps testing.M.Run: it starts the control plane, runs the tests, and
// stops the control plane again (and the realistic cluster, if a test asked
// for one).
func Main(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	flag.Parse()
	// client-go 在 API server 重啟時會記錄重試；除非用 -v 要求，否則測試輸出不顯示這些記錄。
	// client-go logs its retries while the API server restarts; keep test
	// output quiet unless asked for with -v.
	if !testing.Verbose() {
		klog.SetOutput(io.Discard)
		klog.LogToStderr(false)
	}
	var err error
	plain, err = startCluster(false)
	if err != nil {
		fmt.Fprintf(os.Stderr, "FAIL: %v\n", err)
		return 1
	}
	interrupted := make(chan os.Signal, 1)
	signal.Notify(interrupted, os.Interrupt, syscall.SIGTERM)
	go func() {
		<-interrupted
		fmt.Fprintln(os.Stderr, "testenv: interrupted; stopping the control plane")
		_ = stopAll()
		os.Exit(130)
	}()
	code := m.Run()
	if err := stopAll(); err != nil {
		fmt.Fprintf(os.Stderr, "testenv: stopping the control plane: %v\n", err)
		if code == 0 {
			code = 1
		}
	}
	return code
}

func startCluster(realistic bool) (*Cluster, error) {
	start := time.Now()
	plane, err := controlplane.Start(controlplane.Options{Verbose: verbose, Realistic: realistic})
	if err != nil {
		return nil, err
	}
	if realistic {
		if err := plane.WaitForDefaultServiceAccount(context.Background(), "default"); err != nil {
			_ = plane.Stop()
			return nil, err
		}
	}
	if testing.Verbose() {
		fmt.Fprintf(os.Stderr, "testenv: cluster (realistic=%t) ready at %s in %s\n", realistic, plane.URL(), time.Since(start).Round(time.Millisecond))
	}
	return &Cluster{plane: plane, realistic: realistic}, nil
}

var stopMu sync.Mutex

func stopAll() error {
	stopMu.Lock()
	defer stopMu.Unlock()
	var errs []error
	for _, c := range []*Cluster{realistic, plain} {
		if c != nil && c.plane != nil {
			errs = append(errs, c.plane.Stop())
			c.plane = nil
		}
	}
	return errors.Join(errs...)
}

// Plain 回傳這個測試套件只有 API server 的叢集；沒有經過 Main 就呼叫會讓測試失敗。
//
// Plain returns the package's API-server-only cluster; calling it without
// Main fails the test.
func Plain(t testing.TB) *Cluster {
	t.Helper()
	if plain == nil {
		t.Fatal("testenv: no control plane; call testenv.Main(m) from TestMain")
	}
	return plain
}

// Realistic 回傳這個測試套件的擬真叢集（pod 會被排程、變成 Running），第一次呼叫時啟動。
//
// Realistic returns the package's realistic cluster (pods get scheduled and
// go Running), starting it on the first call.
func Realistic(t testing.TB) *Cluster {
	t.Helper()
	Plain(t)
	realisticOnce.Do(func() {
		c, err := startCluster(true)
		stopMu.Lock()
		realistic, realisticErr = c, err
		stopMu.Unlock()
	})
	if realisticErr != nil {
		t.Fatalf("testenv: starting the realistic cluster: %v", realisticErr)
	}
	return realistic
}

// Plane 回傳這個叢集的控制平面。
//
// Plane returns the cluster's control plane.
func (c *Cluster) Plane() *controlplane.ControlPlane { return c.plane }

// Config 回傳一份新的 admin rest.Config，呼叫端可以自由修改。
//
// Config returns a fresh admin rest.Config that the caller may modify.
func (c *Cluster) Config() *rest.Config { return rest.CopyConfig(c.plane.Config) }

// Client 回傳一個連到這個叢集的 typed clientset。
//
// Client returns a typed clientset for the cluster.
func (c *Cluster) Client() kubernetes.Interface {
	return kubernetes.NewForConfigOrDie(c.Config())
}

// Namespace 建立一個這個測試專用的 namespace（名稱由測試名稱而來，輸出因此穩定），
// 測試結束時刪除。擬真叢集上會等到 default ServiceAccount 出現，因為少了它，
// ServiceAccount admission 會拒絕建立 pod。
//
// Namespace creates a namespace for this test alone (named after the test, so
// output is stable) and deletes it when the test ends. On the realistic
// cluster it waits for the default ServiceAccount, without which
// ServiceAccount admission refuses to create pods.
func (c *Cluster) Namespace(t testing.TB) string {
	t.Helper()
	cs := c.Client()
	base := strings.Trim(invalidNameChars.ReplaceAllString(strings.ToLower(t.Name()), "-"), "-")
	if len(base) > 60 {
		base = strings.TrimRight(base[:60], "-")
	}
	// 只有 API server 的叢集刪不掉 namespace（沒有 namespace controller），所以 go test -count=N
	// 第二次執行時同名的 namespace 還在：換一個後綴。
	// The API-server-only cluster cannot finish deleting a namespace (no namespace controller), so with
	// go test -count=N the same name is still there the second time: take another suffix.
	name := base
	for i := 2; ; i++ {
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
		_, err := cs.CoreV1().Namespaces().Create(context.Background(), ns, metav1.CreateOptions{})
		if err == nil {
			break
		}
		if !apierrors.IsAlreadyExists(err) || i > 20 {
			t.Fatalf("creating namespace %s: %v", name, err)
		}
		name = fmt.Sprintf("%s-%d", base, i)
	}
	t.Cleanup(func() {
		_ = cs.CoreV1().Namespaces().Delete(context.Background(), name, metav1.DeleteOptions{})
	})
	if c.realistic {
		err := wait.PollUntilContextTimeout(context.Background(), 50*time.Millisecond, WaitTimeout, true, func(ctx context.Context) (bool, error) {
			_, err := cs.CoreV1().ServiceAccounts(name).Get(ctx, "default", metav1.GetOptions{})
			return err == nil, nil
		})
		if err != nil {
			t.Fatalf("no default ServiceAccount in namespace %s after %s", name, WaitTimeout)
		}
	}
	return name
}

// Kubeconfig 為這個叢集寫出一個 kubeconfig 檔，回傳它的路徑（測試結束時刪除）。
//
// Kubeconfig writes a kubeconfig file for the cluster and returns its path
// (removed when the test ends).
func (c *Cluster) Kubeconfig(t testing.TB) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := c.plane.WriteKubeconfig(path, "testenv"); err != nil {
		t.Fatal(err)
	}
	return path
}

// RestartAPIServer 停掉 kube-apiserver，在它停機期間呼叫 whileDown，
// 並給它一個連到「同一個 etcd 上另一個 API server」的 clientset，
// 讓測試能在停機期間修改 Pod；之後在同一個埠上重新啟動原本的 API server。
//
// RestartAPIServer stops kube-apiserver and, during the outage, calls
// whileDown with a clientset for a second API server on the same etcd, so the
// test can change pods while the main one is down; then it starts the main API
// server again on the same port.
func (c *Cluster) RestartAPIServer(t testing.TB, whileDown func(other kubernetes.Interface)) {
	t.Helper()
	err := c.plane.RestartAPIServer(func(cfg *rest.Config) error {
		if whileDown != nil {
			whileDown(kubernetes.NewForConfigOrDie(cfg))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// Pause 暫停擬真叢集的一個元件（例如 "kube-scheduler" 或 "kwok"），回傳讓它繼續的函式；
// 測試結束時一定會讓它繼續。
//
// Pause pauses one of the realistic cluster's components (such as
// "kube-scheduler" or "kwok") and returns the function that resumes it; the
// component is always resumed when the test ends.
func (c *Cluster) Pause(t testing.TB, name string) (resume func()) {
	t.Helper()
	cont, err := c.plane.Pause(name)
	if err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	resume = func() {
		once.Do(func() {
			if err := cont(); err != nil {
				t.Errorf("resuming %s: %v", name, err)
			}
		})
	}
	t.Cleanup(resume)
	return resume
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

// CollapseRepeats 把連續重複的行只留一行：一段時間裡重複的那一行（例如每秒一次的重試），
// 或同一個狀態連續同步兩次，在 golden file 裡只算一次。
//
// CollapseRepeats keeps one of each run of identical consecutive lines: a
// line repeated over a span of time (a retry each second, say), or the same
// state synced twice in a row, counts once in a golden file.
func CollapseRepeats(s string) string {
	var b strings.Builder
	prev := ""
	for _, line := range strings.SplitAfter(s, "\n") {
		if line != prev {
			b.WriteString(line)
		}
		prev = line
	}
	return b.String()
}

// PodAfter 是 OneChangeAtATime 的每個變化之後，show.Pod 描述 demo 的那一行裡要等的片段。
//
// PodAfter is, for each change of OneChangeAtATime, the part of show.Pod's
// description of demo to wait for.
var PodAfter = map[string]string{
	"created":   "phase=Pending labels=",
	"scheduled": "phase=Pending node=",
	"running":   "phase=Running",
	"labelled":  "tier=web",
}

// OneChangeAtATime 在擬真叢集上建立 "demo"（app=demo）並加上 tier=web，但讓每個變化單獨到達：
// kube-scheduler 與 kwok 先暫停，再一個一個放開。每個變化之後呼叫 waitAfter（"created"、
// "scheduled"、"running"、"labelled"），讓步驟先處理完它，才有下一個變化；否則幾個變化可能合併成
// 一次同步，golden file 就不固定。測試結束時刪除 demo。
//
// OneChangeAtATime creates "demo" (app=demo) on the realistic cluster and
// labels it tier=web, but lets each change arrive on its own: kube-scheduler
// and kwok are paused, then released one at a time. After each change it
// calls waitAfter ("created", "scheduled", "running", "labelled") so the step
// has dealt with it before the next one comes; otherwise several changes
// could merge into one sync and a golden file would not be fixed. demo is
// deleted when the test ends.
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
	if _, err := scene.Label(context.Background(), cs, ns, "demo", "tier", scene.Value("web")); err != nil {
		t.Fatal(err)
	}
	waitAfter("labelled")
}

// 以下的函式都作用在只有 API server 的叢集上。 / The functions below all act on the API-server-only cluster.

// Plane 回傳只有 API server 的叢集的控制平面。
//
// Plane returns the API-server-only cluster's control plane.
func Plane(t testing.TB) *controlplane.ControlPlane {
	t.Helper()
	return Plain(t).plane
}

// Config 回傳只有 API server 的叢集的一份新 admin rest.Config。
//
// Config returns a fresh admin rest.Config for the API-server-only cluster.
func Config(t testing.TB) *rest.Config {
	t.Helper()
	return Plain(t).Config()
}

// Client 回傳一個連到只有 API server 的叢集的 typed clientset。
//
// Client returns a typed clientset for the API-server-only cluster.
func Client(t testing.TB) kubernetes.Interface {
	t.Helper()
	return Plain(t).Client()
}

// Namespace 在只有 API server 的叢集上建立這個測試專用的 namespace。
//
// Namespace creates this test's own namespace on the API-server-only cluster.
func Namespace(t testing.TB) string {
	t.Helper()
	return Plain(t).Namespace(t)
}

var invalidNameChars = regexp.MustCompile(`[^a-z0-9-]+`)

// RestartAPIServer 重新啟動只有 API server 的叢集的 kube-apiserver；見 Cluster.RestartAPIServer。
//
// RestartAPIServer restarts the API-server-only cluster's kube-apiserver; see
// Cluster.RestartAPIServer.
func RestartAPIServer(t testing.TB, whileDown func(other kubernetes.Interface)) {
	t.Helper()
	Plain(t).RestartAPIServer(t, whileDown)
}

// Output 是一個可以同時寫入與讀取的緩衝區，讓測試等待某一行出現。
//
// Output is a buffer that can be written and read at once, so a test can wait
// for a line to appear.
type Output struct {
	mu  sync.Mutex
	buf strings.Builder
}

func (o *Output) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.buf.Write(p)
}

// String 回傳目前為止寫入的全部內容。
//
// String returns everything written so far.
func (o *Output) String() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.buf.String()
}

// WaitTimeout 是 WaitFor 的上限：本機控制平面上的事件通常在幾十毫秒內送達。
//
// WaitTimeout bounds WaitFor: on the local control plane events usually
// arrive within tens of milliseconds.
const WaitTimeout = 30 * time.Second

// WaitFor 輪詢輸出，直到包含 substr 的行數達到 n；逾時則讓測試失敗並印出目前的輸出。
//
// WaitFor polls the output until n lines contain substr; on timeout it fails
// the test and prints the output so far.
func (o *Output) WaitFor(t testing.TB, substr string, n int) {
	t.Helper()
	deadline := time.Now().Add(WaitTimeout)
	for o.Count(substr) < n {
		if time.Now().After(deadline) {
			t.Fatalf("waited %s for %d line(s) containing %q; output so far:\n%s", WaitTimeout, n, substr, o.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Count 回傳同時包含所有片段的行數。
//
// Count returns how many lines contain every one of the parts.
func (o *Output) Count(parts ...string) int {
	n := 0
	for _, line := range strings.Split(o.String(), "\n") {
		all := true
		for _, p := range parts {
			all = all && strings.Contains(line, p)
		}
		if all {
			n++
		}
	}
	return n
}

// WaitForLine 像 WaitFor，但一行要同時包含所有片段（例如一個 key 與一段說明，中間隔著對齊用的空白）。
//
// WaitForLine is WaitFor for lines that contain every one of the parts (a key
// and a detail with alignment padding between them, say).
func (o *Output) WaitForLine(t testing.TB, n int, parts ...string) {
	t.Helper()
	deadline := time.Now().Add(WaitTimeout)
	for o.Count(parts...) < n {
		if time.Now().After(deadline) {
			t.Fatalf("waited %s for %d line(s) containing %q; output so far:\n%s", WaitTimeout, n, parts, o.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Start 在背景執行一個步驟的主迴圈，把輸出收進 Output。stop 取消它、等它結束，
// 並確認它沒有回傳錯誤；測試結束時若還沒呼叫，會自動呼叫。
//
// Start runs a step's main loop in the background, collecting its output.
// stop cancels it, waits for it to return, and checks that it returned no
// error; it is called at the end of the test if the test did not call it.
func Start(t testing.TB, run func(ctx context.Context, out io.Writer) error) (out *Output, stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	out = &Output{}
	done := make(chan error, 1)
	go func() { done <- run(ctx, out) }()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			select {
			case err := <-done:
				if err != nil {
					t.Errorf("the step returned an error: %v\noutput:\n%s", err, out.String())
				}
			case <-time.After(WaitTimeout):
				t.Errorf("the step did not return within %s of being cancelled", WaitTimeout)
			}
		})
	}
	t.Cleanup(stop)
	return out, stop
}

// Kubeconfig 寫出一個指向控制平面的 kubeconfig 檔並回傳路徑，讓測試像學習者一樣
// 經過 --kubeconfig 與 cli.Connect 連線。
//
// Kubeconfig 為只有 API server 的叢集寫出一個 kubeconfig 檔，回傳它的路徑。
//
// Kubeconfig writes a kubeconfig file for the API-server-only cluster and
// returns its path.
func Kubeconfig(t testing.TB) string {
	t.Helper()
	return Plain(t).Kubeconfig(t)
}

// Build 編譯目前目錄的 main 套件，回傳執行檔路徑，讓測試像學習者一樣執行它
// （旗標、結束碼、Ctrl-C）。
//
// Build compiles the main package in the current directory and returns the
// binary's path, so a test can run it as a learner does (flags, exit codes,
// Ctrl-C).
func Build(t testing.TB) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "step")
	cmd := exec.Command("go", "build", "-o", bin, ".")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// Interrupt 啟動執行檔，等到輸出出現 ready，送出 SIGINT（就像按下 Ctrl-C），
// 確認它在幾秒內以結束碼 0 結束，並回傳它的輸出。
//
// Interrupt starts the binary, waits until its output shows ready, sends
// SIGINT (as Ctrl-C does), checks that it exits 0 within seconds, and returns
// its output.
func Interrupt(t testing.TB, bin, ready string, args ...string) string {
	t.Helper()
	out := &Output{}
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	out.WaitFor(t, ready, 1)
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("after Ctrl-C: %v; want exit 0\n%s", err, out.String())
		}
	case <-time.After(10 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatalf("still running 10s after Ctrl-C\n%s", out.String())
	}
	return out.String()
}

// Fails 執行執行檔，確認它以非零結束碼結束、stderr 恰好一行，而且包含 want。
//
// Fails runs the binary and checks that it exits non-zero with exactly one
// line on stderr, containing want.
func Fails(t testing.TB, bin, want string, args ...string) {
	t.Helper()
	var stderr strings.Builder
	cmd := exec.Command(bin, args...)
	cmd.Stderr = &stderr
	err := cmd.Run()
	if err == nil {
		t.Fatalf("%v succeeded; want a non-zero exit", args)
	}
	msg := stderr.String()
	if strings.Count(msg, "\n") != 1 || !strings.Contains(msg, want) {
		t.Fatalf("%v: stderr = %q; want one line containing %q", args, msg, want)
	}
}

// CreatePod 建立一個帶有標籤的 Pod；失敗時讓測試停止。
//
// CreatePod creates a pod with the given labels and stops the test on failure.
func CreatePod(t testing.TB, cs kubernetes.Interface, ns, name string, labels map[string]string) {
	t.Helper()
	if _, err := scene.Create(context.Background(), cs, ns, name, labels); err != nil {
		t.Fatal(err)
	}
}

// RunningPod 建立一個 Pod，並等到它 Running（叢集有節點時；見 scene.Settle）。
//
// RunningPod creates a pod and waits until it is Running (when the cluster
// has a node; see scene.Settle).
func RunningPod(t testing.TB, cs kubernetes.Interface, ns, name string, labels map[string]string) {
	t.Helper()
	if _, err := scene.CreateRunning(context.Background(), cs, scene.Pod(ns, name, labels), WaitTimeout, func(s string) { t.Log(s) }); err != nil {
		t.Fatal(err)
	}
}

// WantOrder 確認每個片段都出現在 got 裡，而且順序與給定的相同。
//
// WantOrder checks that every fragment appears in got, in the given order.
func WantOrder(t testing.TB, got string, fragments ...string) {
	t.Helper()
	rest := got
	for _, f := range fragments {
		i := strings.Index(rest, f)
		if i < 0 {
			t.Fatalf("missing %q (or out of order) in output:\n%s", f, got)
		}
		rest = rest[i+len(f):]
	}
}

// DemoScene 演出 README 裡的那一段：建立 "demo"（app=demo）、加上 tier=web、刪除它，
// 也就是 scripts/scene.sh demo 做的事。叢集有節點時，建立之後等 Pod Running、刪除之後等它消失；
// 每個變化之後再呼叫 waitAfter（"created"、"labelled"、"deleted"），讓步驟先印出它的那幾行，
// 輸出的順序因此固定。
//
// DemoScene plays the README's scene: create "demo" (app=demo), label it
// tier=web, delete it — what scripts/scene.sh demo does. When the cluster has
// a node it waits after the create until the pod is Running and after the
// delete until it is gone; after each change it calls waitAfter ("created",
// "labelled", "deleted") so the step prints its lines first, which fixes the
// output's order.
func DemoScene(t testing.TB, cs kubernetes.Interface, ns string, waitAfter func(change string)) {
	t.Helper()
	RunningPod(t, cs, ns, "demo", map[string]string{"app": "demo"})
	waitAfter("created")
	if _, err := scene.Label(context.Background(), cs, ns, "demo", "tier", scene.Value("web")); err != nil {
		t.Fatal(err)
	}
	waitAfter("labelled")
	if err := scene.Delete(context.Background(), cs, ns, "demo"); err != nil {
		t.Fatal(err)
	}
	settle(t, cs, ns, "demo")
	waitAfter("deleted")
}

// settle 等 Pod 走完目前的變化（見 scene.Settle）。
//
// settle waits for the pod to finish its current change (see scene.Settle).
func settle(t testing.TB, cs kubernetes.Interface, ns, name string) {
	t.Helper()
	if err := scene.Settle(context.Background(), cs, ns, name, WaitTimeout); err != nil {
		t.Fatal(err)
	}
}
