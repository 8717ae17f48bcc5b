package main

import (
	"net"
	"strings"
	"testing"

	apiextensions "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/informer-walkthrough/informer-walkthrough/internal/testenv"
)

// 錯誤的旗標在送出任何請求之前就變成一行錯誤；CRD 不存在時一行，指出 go run ./step06-custom-resource；
// Ctrl-C 讓 manager 停下、以 0 結束；--ui 與 --record 照常運作。
//
// A bad flag is one error line before any request; a missing CRD is one line
// naming go run ./step06-custom-resource; Ctrl-C stops the manager, exit 0;
// --ui and --record work as on every step.
func TestCommandLine(t *testing.T) {
	bin := testenv.Build(t)
	testenv.Fails(t, bin, "--workers must be at least 1", "--kubeconfig", "/nonexistent", "--workers", "0")
	testenv.Fails(t, bin, "--lease-duration must be at least 3s", "--kubeconfig", "/nonexistent", "--lease-duration", "1s")
	testenv.Fails(t, bin, "--sync-period must be 0 or at least 1s", "--kubeconfig", "/nonexistent", "--sync-period", "500ms")
	testenv.Fails(t, bin, "--watch-delay must not be negative", "--kubeconfig", "/nonexistent", "--watch-delay", "-1s")
	testenv.Fails(t, bin, "--show-lease needs --leader-elect", "--kubeconfig", "/nonexistent", "--show-lease")
	testenv.Fails(t, bin, `--metrics-bind-address "0.0.0.0:8080": give a loopback address`, "--kubeconfig", "/nonexistent", "--metrics-bind-address", "0.0.0.0:8080")
	testenv.Fails(t, bin, `--metrics-bind-address ":8080": give a loopback address`, "--kubeconfig", "/nonexistent", "--metrics-bind-address", ":8080")
	c := testenv.Plain(t)
	ns := c.Namespace(t)

	// CRD 不存在。之前的測試留下的 tally 帶著 finalizer，而放上它的控制器已經停了：CRD 要等每個 tally 都刪掉
	// 才會消失，所以先拿掉它們的 finalizer。
	// The CRD missing. Tallies earlier tests left carry the finalizer of a controller that has stopped: the CRD
	// goes only after every tally has, so their finalizers come off first.
	releaseTallies(t, c)
	crds := apiextensions.NewForConfigOrDie(c.Config()).ApiextensionsV1().CustomResourceDefinitions()
	name := "podtallies.lab.informer-walkthrough.github.io"
	if err := crds.Delete(t.Context(), name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
		t.Fatal(err)
	}
	testenv.Poll(t, "the CRD to be gone", func() bool {
		_, err := crds.Get(t.Context(), name, metav1.GetOptions{})
		return apierrors.IsNotFound(err)
	})
	testenv.Fails(t, bin, "install the CRD first with go run ./step06-custom-resource", "--kubeconfig", c.Kubeconfig(t), "-n", ns)

	installCRD(t, c)
	// metrics 的埠被占用：一行錯誤，之前沒有說 manager 開始了的那一行。 / The metrics port in use: one error line, with no "manager" line before it.
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	var stdout strings.Builder
	cmd := testenv.Command(bin, "--kubeconfig", c.Kubeconfig(t), "-n", ns, "--metrics-bind-address", busy.Addr().String())
	cmd.Stdout = &stdout
	testenv.FailsCmd(t, cmd, "--metrics-bind-address "+busy.Addr().String()+": bind: address already in use")
	if stdout.Len() > 0 {
		t.Errorf("with the metrics port in use the step printed\n%s\nbefore failing; want nothing", stdout.String())
	}
	testenv.Interrupt(t, bin, "watching from there", "--kubeconfig", c.Kubeconfig(t), "-n", ns)
	// -v 1 把 controller-runtime 的 log 交給 klog：沒有權限的使用者，informer 的 "Failed to watch" 立刻出現。
	// -v 1 hands controller-runtime's log to klog: for a user without rights the informers' "Failed to watch" shows at once.
	if out := testenv.Interrupt(t, bin, `"Failed to watch"`, "--kubeconfig", c.Kubeconfig(t), "-n", ns, "--as", "learner", "-v", "1"); !strings.Contains(out, `logger="controller-runtime.cache.UnhandledError"`) {
		t.Errorf("with -v 1 the Failed to watch line does not come through controller-runtime's logger:\n%s", out)
	}
	testenv.InterruptLive(t, bin, "watching from there", "--kubeconfig", c.Kubeconfig(t), "-n", ns)
}
