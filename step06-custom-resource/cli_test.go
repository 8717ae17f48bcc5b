package main

import (
	"testing"

	"github.com/informer-walkthrough/informer-walkthrough/internal/testenv"
)

// 錯誤的旗標在送出任何請求之前就變成一行錯誤；Ctrl-C 以結束碼 0 結束；--ui 與 --record 照常運作。
//
// A bad flag is one error line before any request; Ctrl-C exits 0; --ui and
// --record work as on every step.
func TestCommandLine(t *testing.T) {
	bin := testenv.Build(t)
	testenv.Fails(t, bin, "step06-custom-resource: flag provided but not defined: -bogus (see -h)", "--bogus")
	testenv.Fails(t, bin, "--workers must be at least 1", "--kubeconfig", "/nonexistent", "--workers", "0")
	testenv.Fails(t, bin, "--watch-delay must not be negative", "--kubeconfig", "/nonexistent", "--watch-delay", "-1s")
	testenv.Fails(t, bin, `unexpected argument "extra"`, "--kubeconfig", "/nonexistent", "extra")
	testenv.Fails(t, bin, "reading kubeconfig", "--kubeconfig", "/nonexistent")
	c := testenv.Plain(t)
	// 沒有權限安裝 CRD 的使用者（CRD 還不存在時）：一行，指出要套用的檔案。
	// A user without the right to install the CRD (while it does not exist): one line, naming the file to apply.
	removeCRD(t.Context(), t, c)
	testenv.Fails(t, bin, "a cluster admin can apply "+crdManifest, "--kubeconfig", c.Kubeconfig(t), "--as", "nobody")
	testenv.Interrupt(t, bin, "watching from there", "--kubeconfig", c.Kubeconfig(t), "-n", c.Namespace(t))
	testenv.Interrupt(t, bin, "watching from there", "--kubeconfig", c.Kubeconfig(t), "-n", c.Namespace(t), "--dynamic")
	testenv.InterruptLive(t, bin, "watching from there", "--kubeconfig", c.Kubeconfig(t), "-n", c.Namespace(t))
}
