//go:build !linux

package controlplane

import (
	"path/filepath"
	"syscall"
	"time"
)

// DieWithParent 在 Linux 以外沒有對應的機制；元件由 Stop 停止。
//
// DieWithParent has no counterpart outside Linux; Stop stops the components.
func DieWithParent() *syscall.SysProcAttr { return nil }

// waitStopped 在 Linux 以外不知道怎麼看執行緒的狀態，只能相信 SIGSTOP 已經生效。
//
// waitStopped cannot see thread states outside Linux, and trusts SIGSTOP to have taken effect.
func waitStopped(int, time.Duration) error { return nil }

// guarded 在 Linux 以外沒有父行程死亡的訊號可用，回傳真正的執行檔：測試的行程若被強制結束，etcd 與
// kube-apiserver 會留下來（macOS 上這個保證不成立）。
//
// guarded has no parent-death signal to use outside Linux and returns the
// real binary: when a test process is killed, etcd and kube-apiserver stay
// behind (on macOS this promise does not hold).
func guarded(binDir, name, _ string) (string, error) { return filepath.Join(binDir, name), nil }
