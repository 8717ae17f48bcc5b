package controlplane

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// watchedGuard 是 guarded 在沒有 Pdeathsig 的系統（macOS）上的做法：一個小腳本，先在背景留下一個看守者，
// 再 exec 真正的執行檔（同一個 pid）。看守者每秒確認一次啟動它的行程還在；那個行程不在了（逾時 panic、SIGKILL），
// 就以 SIGKILL 結束執行檔。執行檔自己先結束時，看守者也跟著結束。最多晚一秒，但只要腳本已經開始執行，就不會留下孤兒
// （啟動它的行程若在那之前的一瞬間就死了，看守者察覺不到）。
// 它只用 POSIX sh 的功能，所以這裡的測試在 Linux 上跑它。
//
// watchedGuard is guarded for systems without Pdeathsig (macOS): a small
// script that leaves a watcher in the background, then execs the real binary
// (the same pid). Once a second the watcher checks that the process that
// started it is still there; when it is not (a timeout panic, SIGKILL), it
// ends the binary with SIGKILL. When the binary ends first, the watcher ends
// too. Up to a second late, but no orphan is left, once the script has
// started (a starter that dies in the moment before that goes unnoticed). It
// uses POSIX sh only, so the tests here run it on Linux.
func watchedGuard(binDir, name, dir string) (string, error) {
	guard := filepath.Join(dir, "guard")
	if err := os.MkdirAll(guard, 0o700); err != nil {
		return "", err
	}
	path := filepath.Join(guard, name)
	script := fmt.Sprintf(`#!/bin/sh
parent=$PPID
self=$$
(
  while kill -0 "$parent" 2>/dev/null && kill -0 "$self" 2>/dev/null; do sleep 1; done
  kill -0 "$parent" 2>/dev/null || kill -KILL "$self" 2>/dev/null
) </dev/null >/dev/null 2>&1 &
exec %s "$@"
`, shellQuote(filepath.Join(binDir, name)))
	return path, os.WriteFile(path, []byte(script), 0o700)
}

// shellQuote 把一個字串放進單引號，給 sh 讀。 / shellQuote puts a string in single quotes for sh.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
