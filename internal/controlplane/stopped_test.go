package controlplane

import (
	"bytes"
	"fmt"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// macOS 的 waitStopped（waitStoppedPS）在這台 Linux 上對一個真的行程執行：執行中時逾時並說出 ps 看到的狀態，
// 收到 SIGSTOP 之後回傳，行程結束之後說它不在了。
// macOS's waitStopped (waitStoppedPS), run here on Linux against a real
// process: while it runs it times out and says what ps saw, after SIGSTOP it
// returns, and once the process is gone it says so.
func TestWaitStoppedPS(t *testing.T) {
	cmd := exec.Command("sleep", "60")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	if err := waitStoppedPS(pid, 100*time.Millisecond); err == nil {
		t.Fatal("a running process counted as stopped")
	}
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	if err := waitStoppedPS(pid, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	if err := waitStoppedPS(pid, time.Second); err == nil {
		t.Fatal("a process that is gone counted as stopped")
	}
	for stat, want := range map[string]bool{"T": true, "T+": true, "t": true, "S": false, "R+": false, "Ss": false, "": false} {
		if got := stoppedState(stat); got != want {
			t.Errorf("stoppedState(%q) = %v, want %v", stat, got, want)
		}
	}
}

// macOS 的看守者（watchedGuard）在這台 Linux 上執行：啟動它的行程被 SIGKILL 之後，執行檔在幾秒內結束；
// 執行檔自己先結束時，看守者也不會留下來。
// macOS's watcher (watchedGuard), run here on Linux: once the process that
// started it gets SIGKILL, the binary ends within seconds; when the binary
// ends first, the watcher does not stay behind either.
func TestWatchedGuard(t *testing.T) {
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	guard, err := watchedGuard(filepath.Dir(sleep), filepath.Base(sleep), dir)
	if err != nil {
		t.Fatal(err)
	}
	// parent 是一個 sh：在背景啟動被看守的 sleep，印出它的 pid，然後一直等。
	// parent is an sh that starts the guarded sleep in the background, prints its pid, and waits.
	parent := exec.Command("sh", "-c", `"$0" 120 & echo $!; wait`, guard)
	out, err := parent.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := parent.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = parent.Process.Kill(); _ = parent.Wait() })
	var pid int
	if _, err := fmt.Fscan(out, &pid); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
	if !running(pid) {
		t.Fatalf("the guarded sleep (pid %d) is not running", pid)
	}
	if err := parent.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = parent.Wait()
	deadline := time.Now().Add(10 * time.Second)
	for running(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("the guarded sleep (pid %d) still runs 10 s after its parent was killed", pid)
		}
		time.Sleep(50 * time.Millisecond)
	}

	// 執行檔自己結束：看守者（同一個行程群組裡的 sh）不久也結束。
	// The binary ends by itself: the watcher (an sh in the same process group) ends soon after.
	short := exec.Command(guard, "0.1")
	short.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := short.Run(); err != nil {
		t.Fatal(err)
	}
	pgid := short.Process.Pid
	deadline = time.Now().Add(10 * time.Second)
	for {
		out, _ := exec.Command("ps", "-o", "pid=", "-g", strconv.Itoa(pgid)).Output()
		if len(bytes.TrimSpace(out)) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("10 s after the guarded binary ended, its process group still has %s", bytes.Fields(out))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// running 說 ps 看得到這個行程，而且它不是殭屍。 / running says ps sees the process and it is not a zombie.
func running(pid int) bool {
	out, err := exec.Command("ps", "-o", "stat=", "-p", strconv.Itoa(pid)).Output()
	stat := strings.TrimSpace(string(out))
	return err == nil && stat != "" && !strings.HasPrefix(stat, "Z")
}
