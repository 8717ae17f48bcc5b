package controlplane

import (
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// 情境（不需要叢集）：一個還在跑的行程，waitStopped 會等到期限並說它還沒停下；送出 SIGSTOP 之後，
// 它回傳時行程已經停下；SIGCONT 之後行程又在跑，waitStopped 又說它還沒停下；行程不在了，它回報錯誤。
// 行程自己不會結束（sleep 60）：機器很忙時，短短的 sleep 可能在 SIGSTOP 之前就結束了。兩種做法都走一遍：
// Linux 的（/proc 裡的每個執行緒）與 macOS 的（waitStoppedPS，問 ps），後者在這台 Linux 上也能跑。
//
// The story (no cluster needed): for a process still running, waitStopped
// waits out its deadline and says it is still not stopped; after SIGSTOP, it
// returns once the process has stopped; after SIGCONT the process runs again
// and waitStopped says so; once the process is gone, it reports an error.
// The process never ends by itself (sleep 60): on a busy machine a short
// sleep may be over before the SIGSTOP. Both ways are run: Linux's (every
// thread in /proc) and macOS's (waitStoppedPS, asking ps), which runs on
// Linux too.
func TestWaitStopped(t *testing.T) {
	for name, waitStopped := range map[string]func(int, time.Duration) error{"/proc": waitStopped, "ps": waitStoppedPS} {
		t.Run(name, func(t *testing.T) {
			cmd := exec.Command("sleep", "60")
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			// 測試中途失敗也不留下（可能停著的）sleep。 / Leave no (perhaps stopped) sleep behind, even when the test fails midway.
			t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
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
			if err := waitStopped(pid, 20*time.Millisecond); err == nil || !strings.Contains(err.Error(), "still not stopped") {
				t.Errorf("waitStopped after SIGCONT: %v; want an error saying it is still not stopped", err)
			}
			if err := cmd.Process.Kill(); err != nil {
				t.Fatal(err)
			}
			_ = cmd.Wait()
			if err := waitStopped(pid, time.Second); err == nil {
				t.Error("waitStopped on a process that is gone returned no error")
			}
		})
	}
	for stat, want := range map[string]bool{"T": true, "T+": true, "t": true, "S": false, "R+": false, "Ss": false, "": false} {
		if got := stoppedState(stat); got != want {
			t.Errorf("stoppedState(%q) = %v, want %v", stat, got, want)
		}
	}
}
