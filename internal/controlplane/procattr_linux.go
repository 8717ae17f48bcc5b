package controlplane

import "syscall"

// DieWithParent 讓元件在啟動它的行程死掉時收到 SIGKILL（Linux 的 Pdeathsig），
// 即使 go test 逾時 panic，也不會留下孤兒行程。
//
// DieWithParent has a component get SIGKILL when the process that started it
// dies (Linux's Pdeathsig), so that even a go test timeout panic leaves no
// orphans.
func DieWithParent() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
