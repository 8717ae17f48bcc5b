package testenv

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/informer-walkthrough/informer-walkthrough/internal/controlplane"
	"github.com/informer-walkthrough/informer-walkthrough/internal/liveview"
)

var (
	buildOnce sync.Once
	buildBin  string
	buildErr  error
)

// Build 編譯目前目錄的 main 套件（一個步驟），回傳執行檔路徑，讓測試像學習者一樣執行它（旗標、結束碼、Ctrl-C）。
// 一個測試套件只編譯一次。測試執行檔帶著 race detector 時，步驟也帶著（見 BuildArgs）。
// 執行檔留在每個使用者的快取裡（StepsBuildDir，scripts/walkthrough.sh 也用同一個）：檔案已經是最新的時候，
// go build -o 不再連結，每個測試套件省下兩、三秒的 CPU。兩個測試行程不會同時寫它：建置時拿著檔案鎖。
//
// Build compiles the main package in the current directory (a step) and
// returns the binary's path, so a test can run it as a learner does (flags,
// exit codes, Ctrl-C). It compiles once per test package. When the test
// binary has the race detector, so does the step (see BuildArgs). The binary
// stays in the per-user cache (StepsBuildDir, which scripts/walkthrough.sh
// uses too): when the file there is already current, go build -o does not
// link again, which saves each test package two to three seconds of CPU. Two
// test processes never write it at once: the build holds a file lock.
func Build(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() {
		var pkg string
		if pkg, buildErr = os.Getwd(); buildErr != nil {
			return
		}
		mode := "plain"
		if RaceEnabled {
			mode = "race"
		}
		var dir string
		if dir, buildErr = StepsBuildDir(filepath.Dir(pkg), mode); buildErr != nil {
			return
		}
		buildBin = filepath.Join(dir, filepath.Base(pkg))
		buildErr = buildLocked(dir, buildBin)
	})
	if buildErr != nil {
		t.Fatalf("go build: %v", buildErr)
	}
	return buildBin
}

// StepsBuildDir 回傳一個 clone 建好的步驟放在哪裡：每個使用者的快取底下，每個 clone 一個目錄（以 repo 路徑的雜湊區分），
// mode 是 plain 或 race。規則跟 scripts/lib.sh 的 steps_build_dir 一樣，兩邊才共用同一批執行檔。
//
// StepsBuildDir returns where one clone's built steps are kept: under the
// per-user cache, one directory per clone (a hash of the repository's path),
// mode being plain or race. The rule is scripts/lib.sh's steps_build_dir, so
// both sides share the same binaries.
func StepsBuildDir(repo, mode string) (string, error) {
	cache, err := controlplane.CacheRoot()
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256([]byte(repo))
	return filepath.Join(cache, "informer-walkthrough", "steps", hex.EncodeToString(sum[:])[:16], mode), nil
}

// buildLocked 拿著 dir 裡的檔案鎖執行 go build -o bin，結束後更新 bin 的修改時間（用過的標記，見 pruneSteps），
// 並刪掉快取裡太久沒用的步驟。
//
// buildLocked runs go build -o bin holding the file lock in dir, then sets
// bin's modification time (the mark of use, see pruneSteps) and removes the
// steps in the cache unused for too long.
func buildLocked(dir, bin string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	lock, err := os.OpenFile(filepath.Join(dir, ".lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return err
	}
	// 關掉檔案就放開了鎖。 / Closing the file releases the lock.
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		return err
	}
	if out, err := exec.Command("go", BuildArgs(bin, ".")...).CombinedOutput(); err != nil {
		return &buildError{err, out}
	}
	now := time.Now()
	if err := os.Chtimes(bin, now, now); err != nil {
		return err
	}
	pruneSteps(filepath.Dir(filepath.Dir(dir)), now.Add(-stepsKeep))
	return nil
}

// stepsKeep 是快取裡的步驟能閒置多久，超過就刪掉；scripts/lib.sh 的 STEPS_KEEP_DAYS 是同樣的天數。
//
// stepsKeep is how long a step in the cache may go unused before it is removed; scripts/lib.sh's STEPS_KEEP_DAYS is
// the same number of days.
const stepsKeep = 14 * 24 * time.Hour

// pruneSteps 刪掉 steps 底下修改時間早於 before 的執行檔（別的 clone、舊的 clone）。
//
// pruneSteps removes the binaries under steps last modified before before
// (other clones, old clones).
func pruneSteps(steps string, before time.Time) {
	bins, _ := filepath.Glob(filepath.Join(steps, "*", "*", "step*"))
	for _, bin := range bins {
		if info, err := os.Stat(bin); err == nil && info.ModTime().Before(before) {
			_ = os.Remove(bin)
		}
	}
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
