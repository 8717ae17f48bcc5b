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

// waitStopped 在 Linux 以外沒有 /proc，改問 ps（見 waitStoppedPS）。
//
// waitStopped has no /proc outside Linux and asks ps instead (see
// waitStoppedPS).
func waitStopped(pid int, timeout time.Duration) error { return waitStoppedPS(pid, timeout) }

// guarded 在 Linux 以外沒有父行程死亡的訊號可用，改用看守者（見 watchedGuard）。
//
// guarded has no parent-death signal to use outside Linux and uses a
// watcher instead (see watchedGuard).
func guarded(binDir, name, dir string) (string, error) { return watchedGuard(binDir, name, dir) }

// componentPath 在 Linux 以外也用看守者：DieWithParent 在這裡什麼都不做。
//
// componentPath uses a watcher outside Linux too: DieWithParent does nothing
// here.
func componentPath(binDir, name, dir string) (string, error) { return watchedGuard(binDir, name, dir) }
