package testenv

import (
	"bytes"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/informer-walkthrough/informer-walkthrough/internal/controlplane"
	"github.com/informer-walkthrough/informer-walkthrough/internal/liveview"
)

var (
	buildOnce sync.Once
	buildBin  string
	buildDir  string
	buildErr  error
)

// Build 編譯目前目錄的 main 套件，回傳執行檔路徑，讓測試像學習者一樣執行它（旗標、結束碼、Ctrl-C）。
// 一個測試套件只編譯一次；Main 結束時刪除。測試執行檔帶著 race detector 時，步驟也帶著（見 BuildArgs）。
//
// Build compiles the main package in the current directory and returns the
// binary's path, so a test can run it as a learner does (flags, exit codes,
// Ctrl-C). It compiles once per test package; Main removes it at the end.
// When the test binary has the race detector, so does the step (see
// BuildArgs).
func Build(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() {
		if buildDir, buildErr = os.MkdirTemp("", "testenv-build-"); buildErr != nil {
			return
		}
		buildBin = filepath.Join(buildDir, "step")
		if out, err := exec.Command("go", BuildArgs(buildBin, ".")...).CombinedOutput(); err != nil {
			buildErr = &buildError{err, out}
		}
	})
	if buildErr != nil {
		t.Fatalf("go build: %v", buildErr)
	}
	return buildBin
}

// BuildArgs 是 Build 給 go 的參數：go build -o out pkg，測試執行檔帶著 race detector 時再加上 -race。
//
// BuildArgs are the arguments Build gives go: go build -o out pkg, plus
// -race when the test binary has the race detector.
func BuildArgs(out, pkg string) []string {
	args := []string{"build", "-o", out}
	if RaceEnabled {
		args = append(args, "-race")
	}
	return append(args, pkg)
}

type buildError struct {
	err error
	out []byte
}

func (e *buildError) Error() string { return e.err.Error() + "\n" + string(e.out) }

func removeBuilds() {
	if buildDir != "" {
		_ = os.RemoveAll(buildDir)
	}
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
	cmd := Command(bin, args...)
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	out.Wait(t, 1, ready)
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

// InterruptLive 像學習者那樣以 --ui 與 --record 執行步驟：等 ready 與 stderr 上那一行
// "live view: http://127.0.0.1:PORT/"，確認頁面與事件串流都回應，按 Ctrl-C，確認結束碼 0、
// 埠關了，而且錄製檔裡印出來的行跟 stdout 一模一樣。
//
// InterruptLive runs the step as a learner does with --ui and --record: it
// waits for ready and for the stderr line "live view: http://127.0.0.1:PORT/",
// checks that the page and the event stream answer, presses Ctrl-C, and
// checks exit status 0, the port closed, and the recording's printed lines
// equal to stdout.
func InterruptLive(t testing.TB, bin, ready string, args ...string) {
	t.Helper()
	record := filepath.Join(t.TempDir(), "run.jsonl")
	stdout, stderr := &Output{}, &Output{}
	cmd := Command(bin, append([]string{"--ui", "--record", record}, args...)...)
	cmd.Stdout, cmd.Stderr = stdout, stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	stdout.Wait(t, 1, ready)
	stderr.Wait(t, 1, "live view: ")
	m := regexp.MustCompile(`(?m)^live view: (http://127\.0\.0\.1:\d+/)$`).FindStringSubmatch(stderr.String())
	if m == nil {
		t.Fatalf("stderr %q; want one line live view: http://127.0.0.1:PORT/", stderr.String())
	}
	for _, path := range []string{"", "pipeline.json", "metrics"} {
		resp, err := http.Get(m[1] + path)
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("GET %s%s: %s", m[1], path, resp.Status)
		}
	}
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("after Ctrl-C: %v; want exit 0\n%s%s", err, stdout.String(), stderr.String())
		}
	case <-time.After(10 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatalf("still running 10s after Ctrl-C\n%s%s", stdout.String(), stderr.String())
	}
	if resp, err := http.Get(m[1]); err == nil {
		_ = resp.Body.Close()
		t.Errorf("%s still answers after the step exited", m[1])
	}
	raw, err := os.ReadFile(record)
	if err != nil {
		t.Fatal(err)
	}
	rec, err := liveview.ReadRecording(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("--record wrote %s: %v", record, err)
	}
	var lines strings.Builder
	for _, e := range rec.Events {
		if !e.Quiet {
			lines.WriteString(e.Text() + "\n")
		}
	}
	if lines.String() != stdout.String() {
		t.Errorf("the recording's lines differ from what the step printed\n--- recording\n%s--- stdout\n%s", lines.String(), stdout.String())
	}
}

// Fails 執行執行檔，確認 stderr 恰好一行、包含 want，而且結束碼對：用錯了命令列（那一行以 "(see -h)" 結尾）是 2，
// 執行時的錯誤是 1。
//
// Fails runs the binary and checks that stderr is exactly one line,
// containing want, and the exit status: 2 for a command line used wrongly
// (the line ends in "(see -h)"), 1 for an error at run time.
func Fails(t testing.TB, bin, want string, args ...string) {
	t.Helper()
	FailsCmd(t, Command(bin, args...), want)
}

// FailsCmd 是 Fails，用一個已經準備好的指令（例如要另外收集 stdout 時）。
//
// FailsCmd is Fails for a command already set up (to collect its stdout as
// well, say).
func FailsCmd(t testing.TB, cmd *exec.Cmd, want string) {
	t.Helper()
	args := cmd.Args[1:]
	var stderr strings.Builder
	cmd.Stderr = &stderr
	err := cmd.Run()
	if err == nil {
		t.Fatalf("%v succeeded; want a non-zero exit", args)
	}
	msg := stderr.String()
	if strings.Count(msg, "\n") != 1 || !strings.Contains(msg, want) {
		t.Fatalf("%v: stderr = %q; want one line containing %q", args, msg, want)
	}
	code := 1
	if strings.HasSuffix(msg, " (see -h)\n") {
		code = 2
	}
	if got := cmd.ProcessState.ExitCode(); got != code {
		t.Fatalf("%v: exit status %d; want %d for %q", args, got, code, msg)
	}
}

// Command 像 exec.Command，但子行程在測試行程死掉時跟著收到 SIGKILL（Linux），所以 go test 逾時
// panic 也不會留下還在重試的步驟。
//
// Command is exec.Command, except that the child gets SIGKILL when the test
// process dies (on Linux), so that a go test timeout panic leaves no step
// behind retrying.
func Command(bin string, args ...string) *exec.Cmd {
	cmd := exec.Command(bin, args...)
	cmd.SysProcAttr = controlplane.DieWithParent()
	return cmd
}
