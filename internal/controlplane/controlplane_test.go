package controlplane_test

import (
	"os/exec"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/informer-walkthrough/informer-walkthrough/internal/controlplane"
	"github.com/informer-walkthrough/informer-walkthrough/internal/scene"
	"github.com/informer-walkthrough/informer-walkthrough/internal/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// 本機控制平面是真的 kube-apiserver：/readyz 回應 ok，版本號是釘選的 v1.37.x，Pod 可以建立。
// The local control plane is a real kube-apiserver: /readyz answers ok, the
// version is the pinned v1.37.x, and pods can be created.
func TestRealAPIServer(t *testing.T) {
	c := testenv.Plain(t)
	cs := c.Client()
	body, err := cs.Discovery().RESTClient().Get().AbsPath("/readyz").DoRaw(t.Context())
	if err != nil || string(body) != "ok" {
		t.Fatalf("/readyz = %q, %v; want ok", body, err)
	}
	v, err := cs.Discovery().ServerVersion()
	if err != nil {
		t.Fatal(err)
	}
	key, err := controlplane.CacheKey()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(key, v.GitVersion) {
		t.Errorf("server version %s is not the pinned one (%s)", v.GitVersion, key)
	}
	ns := c.Namespace(t)
	if _, err := scene.Create(t.Context(), cs, ns, "hello", map[string]string{"app": "hello"}); err != nil {
		t.Fatalf("creating a pod: %v", err)
	}
}

// 沒有憑證的請求會被拒絕：本機叢集沒有匿名的管理者。
// A request without credentials is refused: the local cluster has no
// anonymous admin.
func TestNoAnonymousAdmin(t *testing.T) {
	cfg := testenv.Plain(t).Config()
	cfg.CertData, cfg.KeyData = nil, nil
	cs := kubernetes.NewForConfigOrDie(cfg)
	if _, err := cs.CoreV1().Pods("default").List(t.Context(), metav1.ListOptions{}); err == nil {
		t.Fatal("listing pods without a client certificate succeeded; want 401 or 403")
	}
}

// 建置腳本與 Go 程式算出同一個執行檔目錄。
// The build script and the Go code agree on the binary directory.
func TestBinDirMatchesScript(t *testing.T) {
	out, err := exec.Command("bash", "../../scripts/build-controlplane.sh", "--print-dir").Output()
	if err != nil {
		t.Fatal(err)
	}
	dir, err := controlplane.BinDir()
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(string(out)); got != dir {
		t.Errorf("scripts/build-controlplane.sh --print-dir = %s; Go says %s", got, dir)
	}
}

// 指定一個已被占用的埠時，Start 回傳一行清楚的錯誤。
// Asking for a port already in use makes Start return one clear error line.
func TestPortInUse(t *testing.T) {
	port := testenv.Plain(t).Plane().Port()
	_, err := controlplane.Start(controlplane.Options{Port: port})
	if err == nil || !strings.Contains(err.Error(), "already in use") {
		t.Fatalf("Start on a busy port: err = %v; want 'already in use'", err)
	}
}

// 情境：擬真叢集的假節點像 kubelet 那樣用 Lease 回報心跳，而且一直在續約；少了它，
// kube-controller-manager 大約 50 秒後就會把節點標成 NotReady，每個 Pod 都會多出一次更新。
//
// The story: the realistic cluster's fake node sends heartbeats through a
// Lease, as a kubelet does, and keeps renewing it; without one,
// kube-controller-manager marks the node NotReady after about 50 s and every
// pod gets an extra update.
func TestFakeNodeRenewsItsLease(t *testing.T) {
	testenv.FullTier(t, "waits for the fake node to renew its Lease in real time, about 13 s")
	cs := testenv.Realistic(t).Client()
	renewed := func() *metav1.MicroTime {
		lease, err := cs.CoordinationV1().Leases("kube-node-lease").Get(t.Context(), controlplane.NodeName, metav1.GetOptions{})
		if err != nil {
			return nil
		}
		return lease.Spec.RenewTime
	}
	var first *metav1.MicroTime
	testenv.Poll(t, "a Lease for node "+controlplane.NodeName+" in kube-node-lease", func() bool {
		first = renewed()
		return first != nil
	})
	testenv.Poll(t, "the Lease of node "+controlplane.NodeName+" to be renewed", func() bool {
		now := renewed()
		return now != nil && now.After(first.Time)
	})
}
