package controlplane

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
)

// DieWithParent 讓元件在啟動它的行程死掉時收到 SIGKILL（Linux 的 Pdeathsig），
// 即使 go test 逾時 panic，也不會留下孤兒行程。
//
// DieWithParent has a component get SIGKILL when the process that started it
// dies (Linux's Pdeathsig), so that even a go test timeout panic leaves no
// orphans.
func DieWithParent() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}

// waitStopped 等到行程的每個執行緒都真的停下（/proc/PID/task/*/stat 的狀態是 T）。kill 送出 SIGSTOP 就回傳，
// 但群組停止要等核心挑中的那個執行緒拿到 CPU 才開始；在忙碌的機器上，其他執行緒這段時間還在跑：
// soak 看過暫停中的 kube-scheduler 還綁定了 Pod。
//
// waitStopped waits until every thread of the process has really stopped
// (state T in /proc/PID/task/*/stat). kill returns once SIGSTOP is sent, but
// the group stop starts only when the thread the kernel picked gets a CPU; on
// a busy machine the other threads run on meanwhile: the soak saw a paused
// kube-scheduler still bind a pod.
func waitStopped(pid int, timeout time.Duration) error {
	running, threads := 0, 0
	err := wait.PollUntilContextTimeout(context.Background(), time.Millisecond, timeout, true, func(context.Context) (bool, error) {
		stats, err := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/stat", pid))
		if err != nil {
			return false, err
		}
		if len(stats) == 0 {
			return false, fmt.Errorf("process %d is gone", pid)
		}
		running, threads = 0, len(stats)
		for _, stat := range stats {
			data, err := os.ReadFile(stat)
			if err != nil {
				// 執行緒剛結束。 / The thread just exited.
				continue
			}
			// 狀態是 ")" 之後的第一個欄位（程式名稱裡可能有空白與括號）。
			// The state is the first field after the last ")" (the command name may hold spaces and parentheses).
			if i := bytes.LastIndexByte(data, ')'); i < 0 || i+2 >= len(data) || (data[i+2] != 'T' && data[i+2] != 't') {
				running++
			}
		}
		return running == 0, nil
	})
	if wait.Interrupted(err) {
		return fmt.Errorf("%d of the %d threads of process %d still not stopped after %s", running, threads, pid, timeout)
	}
	return err
}

// guarded 回傳一個會執行 binDir 裡 name 的小腳本，讓那個行程在啟動它的行程死掉時收到 SIGKILL。envtest 自己啟動
// etcd 與 kube-apiserver，只給它們一個行程群組，不能設定 Pdeathsig；這個腳本用 util-linux 的 setpriv 設定它，
// 再 exec 真正的執行檔（同一個 pid，父行程不變）。這樣測試的行程不論怎麼結束（逾時 panic、SIGKILL、CI 的時限），
// 都不會留下 etcd 或 kube-apiserver。沒有 setpriv 時改用 macOS 的看守者（watchedGuard），最多晚一秒。
//
// guarded returns a small script that runs name from binDir so that the
// process gets SIGKILL when the one that started it dies. envtest starts
// etcd and kube-apiserver itself, giving them only a process group, with no
// way to set Pdeathsig; the script sets it with util-linux's setpriv, then
// execs the real binary (the same pid, the same parent). However a test
// process ends (a timeout panic, SIGKILL, CI's time limit), it leaves no etcd
// or kube-apiserver behind. Without setpriv it falls back to macOS's watcher
// (watchedGuard), up to a second late.
func guarded(binDir, name, dir string) (string, error) {
	real := filepath.Join(binDir, name)
	setpriv, err := exec.LookPath("setpriv")
	if err != nil {
		return watchedGuard(binDir, name, dir)
	}
	guard := filepath.Join(dir, "guard")
	if err := os.MkdirAll(guard, 0o700); err != nil {
		return "", err
	}
	path := filepath.Join(guard, name)
	script := fmt.Sprintf("#!/bin/sh\nexec %s --pdeathsig KILL -- %s \"$@\"\n", shellQuote(setpriv), shellQuote(real))
	return path, os.WriteFile(path, []byte(script), 0o700)
}

// componentPath 是 startComponents 要執行的路徑：Linux 上就是執行檔本身，DieWithParent 的 Pdeathsig 守著它。
//
// componentPath is the path startComponents runs: on Linux the binary itself,
// guarded by DieWithParent's Pdeathsig.
func componentPath(binDir, name, _ string) (string, error) { return filepath.Join(binDir, name), nil }
