package controlplane

// WatchedGuard 讓外部的測試（orphans_linux_test.go）能在 Linux 上試 macOS 的看守者。
//
// WatchedGuard lets the external tests (orphans_linux_test.go) try macOS's
// watcher on Linux.
var WatchedGuard = watchedGuard
