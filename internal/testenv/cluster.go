package testenv

import (
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/informer-walkthrough/informer-walkthrough/internal/controlplane"
)

func (c *Cluster) Plane() *controlplane.ControlPlane { return c.plane }

// Config 回傳一份新的 admin rest.Config，呼叫端可以自由修改。
//
// Config returns a fresh admin rest.Config that the caller may modify.
func (c *Cluster) Config() *rest.Config { return rest.CopyConfig(c.plane.Config) }

func (c *Cluster) Client() kubernetes.Interface {
	return kubernetes.NewForConfigOrDie(c.Config())
}

var invalidNameChars = regexp.MustCompile(`[^a-z0-9-]+`)

// Namespace 建立這個測試專用的 namespace，名稱來自測試名稱，輸出因此穩定；測試結束時刪除。
// 擬真叢集上會等到 default ServiceAccount 出現：少了它，ServiceAccount admission 會拒絕建立 Pod。
//
// Namespace creates a namespace for this test alone, named after the test so
// output is stable, and deletes it when the test ends. On the realistic
// cluster it waits for the default ServiceAccount, without which
// ServiceAccount admission refuses pods.
func (c *Cluster) Namespace(t testing.TB) string {
	t.Helper()
	cs := c.Client()
	base := strings.Trim(invalidNameChars.ReplaceAllString(strings.ToLower(t.Name()), "-"), "-")
	if len(base) > 60 {
		base = strings.TrimRight(base[:60], "-")
	}
	// 只有 API server 的叢集刪不完 namespace（沒有 namespace controller），go test -count=N
	// 第二次執行時同名的 namespace 還在：換一個字尾。
	// The API-server-only cluster cannot finish deleting a namespace (no namespace controller), so with
	// go test -count=N the name is still taken the second time: take another suffix.
	name := base
	for i := 2; ; i++ {
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
		_, err := cs.CoreV1().Namespaces().Create(t.Context(), ns, metav1.CreateOptions{})
		if err == nil {
			break
		}
		if !apierrors.IsAlreadyExists(err) || i > 20 {
			t.Fatalf("creating namespace %s: %v", name, err)
		}
		name = fmt.Sprintf("%s-%d", base, i)
	}
	t.Cleanup(func() {
		_ = cs.CoreV1().Namespaces().Delete(context.Background(), name, metav1.DeleteOptions{})
	})
	if c.realistic {
		Poll(t, "the default ServiceAccount in namespace "+name, func() bool {
			_, err := cs.CoreV1().ServiceAccounts(name).Get(t.Context(), "default", metav1.GetOptions{})
			return err == nil
		})
	}
	return name
}

// Kubeconfig 為這個叢集寫出一個 kubeconfig 檔並回傳路徑，讓測試像學習者一樣經過 --kubeconfig 連線。
//
// Kubeconfig writes a kubeconfig file for the cluster and returns its path,
// so a test connects through --kubeconfig as a learner does.
func (c *Cluster) Kubeconfig(t testing.TB) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := c.plane.WriteKubeconfig(path, "testenv"); err != nil {
		t.Fatal(err)
	}
	return path
}

// RestartAPIServer 重新啟動 kube-apiserver，etcd 不動；停機期間以一個連到同一個 etcd 上另一個
// API server 的 clientset 呼叫 whileDown，讓測試在停機時修改資料。
//
// RestartAPIServer restarts kube-apiserver, leaving etcd alone; during the
// outage it calls whileDown with a clientset for another API server on the
// same etcd, so the test can change data while the main one is down.
func (c *Cluster) RestartAPIServer(t testing.TB, whileDown func(other kubernetes.Interface)) {
	t.Helper()
	err := c.plane.RestartAPIServer(func(cfg *rest.Config) error {
		if whileDown != nil {
			whileDown(kubernetes.NewForConfigOrDie(cfg))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// Pause 暫停擬真叢集的一個元件（例如 "kube-scheduler" 或 "kwok"），回傳讓它繼續的函式；
// 測試結束時一定會讓它繼續。
//
// Pause pauses one of the realistic cluster's components (such as
// "kube-scheduler" or "kwok") and returns the function that resumes it; the
// component is always resumed when the test ends.
func (c *Cluster) Pause(t testing.TB, name string) (resume func()) {
	t.Helper()
	cont, err := c.plane.Pause(name)
	if err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	resume = func() {
		once.Do(func() {
			if err := cont(); err != nil {
				t.Errorf("resuming %s: %v", name, err)
			}
		})
	}
	t.Cleanup(resume)
	return resume
}
