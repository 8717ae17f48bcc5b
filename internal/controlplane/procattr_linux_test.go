package controlplane

import (
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// 情境（不需要叢集）：一個還在跑的行程，waitStopped 會等到期限並說還有幾個執行緒在跑；送出 SIGSTOP 之後，
// 它回傳時每個執行緒都已經停下；SIGCONT 之後行程照常結束。
//
// The story (no cluster needed): for a process still running, waitStopped
// waits out its deadline and says how many threads still run; after SIGSTOP,
// it returns once every thread has stopped; after SIGCONT the process ends
// as usual.
func TestWaitStopped(t *testing.T) {
	cmd := exec.Command("sleep", "0.5")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	if err := waitStopped(pid, 20*time.Millisecond); err == nil || !strings.Contains(err.Error(), "still not stopped") {
		t.Errorf("waitStopped on a running process: %v; want an error saying it is still not stopped", err)
	}
	if err := cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	if err := waitStopped(pid, 10*time.Second); err != nil {
		t.Fatalf("waitStopped after SIGSTOP: %v", err)
	}
	var ws syscall.WaitStatus
	if got, err := syscall.Wait4(pid, &ws, syscall.WUNTRACED|syscall.WNOHANG, nil); got != pid || err != nil || !ws.Stopped() {
		t.Errorf("after waitStopped, wait4 says pid %d, %v, stopped=%v; want the process stopped", got, err, ws.Stopped())
	}
	if err := cmd.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Errorf("the process did not end as usual after SIGCONT: %v", err)
	}
	if err := waitStopped(pid, time.Second); err == nil {
		t.Error("waitStopped on a process that is gone returned no error")
	}
}
