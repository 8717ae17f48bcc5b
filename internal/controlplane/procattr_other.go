//go:build !linux

package controlplane

import "syscall"

// DieWithParent 在 Linux 以外沒有對應的機制；元件由 Stop 停止。
//
// DieWithParent has no counterpart outside Linux; Stop stops the components.
func DieWithParent() *syscall.SysProcAttr { return nil }
