//go:build !linux

package controlplane

import "syscall"

// dieWithParent 在 Linux 以外沒有對應的機制；元件由 Stop 停止。
//
// dieWithParent has no counterpart outside Linux; Stop stops the components.
func dieWithParent() *syscall.SysProcAttr { return nil }
