// Package testenv 讓一個測試套件共用一個真正的本機控制平面：TestMain 啟動一次，
// 每個測試拿到自己的 namespace，互不干擾。找不到執行檔時大聲失敗，絕不默默略過。
//
// Package testenv gives a test package one real local control plane: TestMain
// starts it once, and each test gets a namespace of its own so tests do not
// see each other's pods. Missing binaries fail loudly, never a silent skip.
package testenv

import (
	"context"
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
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"

	"github.com/informer-walkthrough/informer-walkthrough/internal/controlplane"
	"github.com/informer-walkthrough/informer-walkthrough/internal/scene"
)

var plane *controlplane.ControlPlane

// Main 取代 testing.M.Run：先啟動控制平面，跑完測試再把它停掉。
//
// Main wraps testing.M.Run: it starts the control plane, runs the tests, and
// stops the control plane again.
func Main(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	flag.Parse()
	// client-go 在 API server 重啟時會記錄重試；測試輸出保持安靜，除非用 -v 要求。
	// client-go logs its retries while the API server restarts; keep test
	// output quiet unless asked for with -v.
	if !testing.Verbose() {
		klog.SetOutput(io.Discard)
		klog.LogToStderr(false)
	}
	start := time.Now()
	var err error
	plane, err = controlplane.Start(controlplane.Options{Verbose: os.Getenv("TESTENV_VERBOSE") != ""})
	if err != nil {
		fmt.Fprintf(os.Stderr, "FAIL: %v\n", err)
		return 1
	}
	if testing.Verbose() {
		fmt.Fprintf(os.Stderr, "testenv: kube-apiserver ready at %s in %s\n", plane.URL(), time.Since(start).Round(time.Millisecond))
	}
	// etcd 與 kube-apiserver 在自己的行程群組裡，Ctrl-C 不會直接送到它們；
	// 所以測試被中斷時由這裡把它們停掉，不留下任何行程。
	// etcd and kube-apiserver run in process groups of their own, so Ctrl-C
	// does not reach them; when the tests are interrupted, stop them here so
	// nothing is left running.
	interrupted := make(chan os.Signal, 1)
	signal.Notify(interrupted, os.Interrupt, syscall.SIGTERM)
	go func() {
		<-interrupted
		fmt.Fprintln(os.Stderr, "testenv: interrupted; stopping the control plane")
		_ = plane.Stop()
		os.Exit(130)
	}()
	code := m.Run()
	if err := plane.Stop(); err != nil {
		fmt.Fprintf(os.Stderr, "testenv: stopping the control plane: %v\n", err)
		if code == 0 {
			code = 1
		}
	}
	return code
}

// Plane 回傳這個測試套件的控制平面；沒有經過 Main 就呼叫會讓測試失敗。
//
// Plane returns the package's control plane; calling it without Main fails
// the test.
func Plane(t testing.TB) *controlplane.ControlPlane {
	t.Helper()
	if plane == nil {
		t.Fatal("testenv: no control plane; call testenv.Main(m) from TestMain")
	}
	return plane
}

// Config 回傳一份新的 admin rest.Config，呼叫端可以自由修改。
//
// Config returns a fresh admin rest.Config that the caller may modify.
func Config(t testing.TB) *rest.Config {
	t.Helper()
	return rest.CopyConfig(Plane(t).Config)
}

// Client 回傳一個連到控制平面的 typed clientset。
//
// Client returns a typed clientset for the control plane.
func Client(t testing.TB) kubernetes.Interface {
	t.Helper()
	return kubernetes.NewForConfigOrDie(Config(t))
}

// Namespace 建立一個這個測試專用的 namespace（名稱由測試名稱而來，輸出因此穩定），
// 測試結束時刪除。
//
// Namespace creates a namespace for this test alone (named after the test, so
// output is stable) and deletes it when the test ends.
func Namespace(t testing.TB) string {
	t.Helper()
	cs := Client(t)
	name := strings.Trim(invalidNameChars.ReplaceAllString(strings.ToLower(t.Name()), "-"), "-")
	if len(name) > 63 {
		name = strings.TrimRight(name[:63], "-")
	}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if _, err := cs.CoreV1().Namespaces().Create(context.Background(), ns, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating namespace %s: %v", name, err)
	}
	t.Cleanup(func() {
		_ = cs.CoreV1().Namespaces().Delete(context.Background(), name, metav1.DeleteOptions{})
	})
	return name
}

var invalidNameChars = regexp.MustCompile(`[^a-z0-9-]+`)

// RestartAPIServer 停掉 kube-apiserver，在它停機期間呼叫 whileDown，
// 並給它一個連到「同一個 etcd 上另一個 API server」的 clientset，
// 讓測試能在停機期間修改 Pod；之後在同一個埠上重新啟動原本的 API server。
//
// RestartAPIServer stops kube-apiserver and, during the outage, calls
// whileDown with a clientset for a second API server on the same etcd, so the
// test can change pods while the main one is down; then it starts the main API
// server again on the same port.
func RestartAPIServer(t testing.TB, whileDown func(other kubernetes.Interface)) {
	t.Helper()
	err := Plane(t).RestartAPIServer(func(cfg *rest.Config) error {
		if whileDown != nil {
			whileDown(kubernetes.NewForConfigOrDie(cfg))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
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

// WaitFor 輪詢輸出，直到某一行包含 substr 的次數達到 n；逾時則讓測試失敗並印出目前的輸出。
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

// WaitForLine 像 WaitFor，但一行要同時包含所有片段（例如一個鍵與一段說明，中間隔著對齊用的空白）。
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

// Start 在背景執行一個步驟的主迴圈，把輸出收進 Output。stop 取消它、等它返回，
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
// Kubeconfig writes a kubeconfig file for the control plane and returns its
// path, so a test connects through --kubeconfig and cli.Connect as a learner
// does.
func Kubeconfig(t testing.TB) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := Plane(t).WriteKubeconfig(path, "testenv"); err != nil {
		t.Fatal(err)
	}
	return path
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

// DemoScene 演出 README 裡的那一段：建立 "demo"（app=demo）、加上 tier=web、刪除它——
// 也就是 scripts/scene.sh demo 做的事。每個變化之後呼叫 waitAfter（"created"、
// "labelled"、"deleted"），讓步驟先印出它的那一行，輸出的順序因此固定。
//
// DemoScene plays the README's scene: create "demo" (app=demo), label it
// tier=web, delete it — what scripts/scene.sh demo does. After each change it
// calls waitAfter ("created", "labelled", "deleted") so the step prints its
// line first, which fixes the output's order.
func DemoScene(t testing.TB, cs kubernetes.Interface, ns string, waitAfter func(change string)) {
	t.Helper()
	CreatePod(t, cs, ns, "demo", map[string]string{"app": "demo"})
	waitAfter("created")
	if _, err := scene.Label(context.Background(), cs, ns, "demo", "tier", scene.Value("web")); err != nil {
		t.Fatal(err)
	}
	waitAfter("labelled")
	if err := scene.Delete(context.Background(), cs, ns, "demo"); err != nil {
		t.Fatal(err)
	}
	waitAfter("deleted")
}
