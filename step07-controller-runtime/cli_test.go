package main

import (
	"context"
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
	testenv.Fails(t, bin, `--metrics-bind-address "0.0.0.0:8080": give a loopback address`, "--kubeconfig", "/nonexistent", "--metrics-bind-address", "0.0.0.0:8080")
	testenv.Fails(t, bin, `--metrics-bind-address ":8080": give a loopback address`, "--kubeconfig", "/nonexistent", "--metrics-bind-address", ":8080")
	c := testenv.Plain(t)
	ns := c.Namespace(t)

	// CRD 不存在。 / The CRD missing.
	crds := apiextensions.NewForConfigOrDie(c.Config()).ApiextensionsV1().CustomResourceDefinitions()
	name := "podtallies.lab.informer-walkthrough.github.io"
	if err := crds.Delete(context.Background(), name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
		t.Fatal(err)
	}
	testenv.Poll(t, "the CRD to be gone", func() bool {
		_, err := crds.Get(context.Background(), name, metav1.GetOptions{})
		return apierrors.IsNotFound(err)
	})
	testenv.Fails(t, bin, "install the CRD first with go run ./step06-custom-resource", "--kubeconfig", c.Kubeconfig(t), "-n", ns)

	installCRD(t, c)
	testenv.Interrupt(t, bin, "watching from there", "--kubeconfig", c.Kubeconfig(t), "-n", ns)
	testenv.InterruptLive(t, bin, "watching from there", "--kubeconfig", c.Kubeconfig(t), "-n", ns)
}
