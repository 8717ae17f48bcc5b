package controlplane

import (
	"context"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
)

// waitStoppedPS 是 waitStopped 在沒有 /proc 的系統（macOS）上的做法：每 5 ms 問一次 ps 這個行程的狀態，
// 直到它是 T（停止）。ps 回報的是整個行程的一個狀態，不是每個執行緒各一個。
// 它在 Linux 上也能用（procps 的 ps 接受同樣的參數），所以這裡的測試在 Linux 上跑它。
//
// waitStoppedPS is waitStopped for systems without /proc (macOS): it asks ps
// for the process's state every 5 ms until it is T (stopped). ps reports one
// state for the whole process, not one per thread. It works on Linux too
// (procps's ps takes the same arguments), so the tests here run it on Linux.
func waitStoppedPS(pid int, timeout time.Duration) error {
	state := ""
	err := wait.PollUntilContextTimeout(context.Background(), 5*time.Millisecond, timeout, true, func(context.Context) (bool, error) {
		out, err := exec.Command("ps", "-o", "stat=", "-p", strconv.Itoa(pid)).Output()
		if err != nil {
			// ps 找不到這個 pid 時以 1 結束。 / ps exits 1 when there is no such pid.
			return false, fmt.Errorf("process %d is gone", pid)
		}
		state = strings.TrimSpace(string(out))
		return stoppedState(state), nil
	})
	if wait.Interrupted(err) {
		return fmt.Errorf("process %d still not stopped after %s (ps says %q)", pid, timeout, state)
	}
	return err
}

// stoppedState 說 ps 的 stat 欄是不是「停止」：第一個字母是 T（Linux 的 t 是被追蹤而停止）。
//
// stoppedState says whether ps's stat column means stopped: its first
// letter is T (on Linux, t is stopped by a tracer).
func stoppedState(stat string) bool {
	return strings.HasPrefix(stat, "T") || strings.HasPrefix(stat, "t")
}
