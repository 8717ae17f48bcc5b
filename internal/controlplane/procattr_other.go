//go:build !linux

package controlplane

import (
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
