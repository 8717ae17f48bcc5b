package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/yaml"

	"github.com/informer-walkthrough/informer-walkthrough/internal/scene"
	"github.com/informer-walkthrough/informer-walkthrough/internal/show"
	"github.com/informer-walkthrough/informer-walkthrough/internal/testenv"
	labv1alpha1 "github.com/informer-walkthrough/informer-walkthrough/step06-custom-resource/apis/lab/v1alpha1"
)

// 情境：rbac/role.yaml 是 controller-gen 從 reconciler.go 的 +kubebuilder:rbac 標記產生的：在暫存目錄裡
// 用 scripts/codegen.sh 的同一組參數再產生一次，必須一模一樣。改了標記卻沒重新產生，或手改了 role.yaml，都在這裡失敗。
//
// The story: rbac/role.yaml is what controller-gen writes from the
// +kubebuilder:rbac markers in reconciler.go: written again into a
// temporary directory with scripts/codegen.sh's arguments, it must be the
// same, byte for byte. A marker changed without regenerating, or a
// hand-edited role.yaml, fails here.
func TestRoleMatchesTheMarkers(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command("go", "tool", "controller-gen", "rbac:roleName=podtally-controller-runtime", "paths=./step07-controller-runtime/...", "output:rbac:artifacts:config="+dir)
	cmd.Dir = ".."
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("controller-gen: %v\n%s", err, out)
	}
	want, err := os.ReadFile(filepath.Join(dir, "role.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join("rbac", "role.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("rbac/role.yaml is not what the markers generate: run scripts/codegen.sh\n--- generated\n%s--- rbac/role.yaml\n%s", want, got)
	}
}

// shippedRole 讀 rbac/role.yaml：一個 ClusterRole。 / shippedRole reads rbac/role.yaml: one ClusterRole.
func shippedRole(t *testing.T) *rbacv1.ClusterRole {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("rbac", "role.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	role := &rbacv1.ClusterRole{}
	if err := yaml.UnmarshalStrict(bytes.TrimPrefix(b, []byte("---\n")), role); err != nil {
		t.Fatal(err)
	}
	return role
}

// boundServiceAccount 建立一個 ServiceAccount，以 namespace 裡的 RoleBinding 把 ClusterRole 綁給它
// （權限因此只在這個 namespace），回傳以它的 token 連線的設定。
//
// boundServiceAccount creates a ServiceAccount and grants it the
// ClusterRole through a RoleBinding in the namespace (so the permissions
// hold in this namespace only), and returns a config that connects with its
// token.
func boundServiceAccount(t *testing.T, c *testenv.Cluster, ns string, role *rbacv1.ClusterRole) *rest.Config {
	t.Helper()
	ctx := t.Context()
	cs := c.Client()
	subject, config := testenv.ServiceAccount(t, c, ns, "podtally-controller")
	role = role.DeepCopy()
	role.Name += "-" + ns
	if _, err := cs.RbacV1().ClusterRoles().Create(ctx, role, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.RbacV1().ClusterRoles().Delete(context.Background(), role.Name, metav1.DeleteOptions{}) })
	if _, err := cs.RbacV1().RoleBindings(ns).Create(ctx, &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "podtally-controller", Namespace: ns},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role.Name},
		Subjects:   []rbacv1.Subject{subject},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	return config()
}

// 情境：控制器以一個 ServiceAccount 執行，它只有 rbac/role.yaml 的權限（在這個 namespace 裡）：tally 與 Pod
// 由管理員建立；控制器加上 finalizer、寫報告、索引與 status，一次都沒有失敗；管理員刪掉 tally，控制器清掉索引、
// 拿掉 finalizer，tally 消失。
//
// The story: the controller runs as a ServiceAccount with exactly the
// permissions of rbac/role.yaml (in this namespace): an admin creates the
// tally and a pod; the controller adds its finalizer and writes the report,
// the index and the status, without one failure; the admin deletes the
// tally, the controller clears the index and takes the finalizer off, and
// the tally is gone.
func TestLeastPrivilege(t *testing.T) {
	c := testenv.Plain(t)
	installCRD(t, c)
	ns := c.Namespace(t)
	cfg := boundServiceAccount(t, c, ns, shippedRole(t))
	freshTally(t, c, ns, "app-demo", "app=demo")
	testenv.CreatePod(t, c.Client(), ns, "one", map[string]string{"app": "demo"})
	out := startStep(t, cfg, ns, options{})
	out.Wait(t, 1, show.Prefix("podtally", "Reconcile", ns+"/app-demo"), "finalizer added; report app-demo-report applied")
	waitTally(t, c, ns, "app-demo", "count 1 with the finalizer, written by the ServiceAccount", func(p *labv1alpha1.PodTally) bool {
		return p.Status.Count == 1 && len(p.Finalizers) == 1 && p.Finalizers[0] == finalizer
	})
	if _, err := scene.DeleteTally(t.Context(), c.Client(), ns, "app-demo", testenv.WaitTimeout); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	out.Wait(t, 1, show.Prefix("podtally", "Reconcile", ns+"/app-demo"), "not in the cache")
	if n := out.Count("FAILED") + out.Count("409 Conflict"); n != 0 || strings.Contains(out.String(), "forbidden") {
		t.Errorf("a write failed under the generated role:\n%s", out.String())
	}
}
