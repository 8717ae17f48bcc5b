package testenv

import (
	"testing"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
)

// ServiceAccount 在 ns 裡建立一個叫 name 的 ServiceAccount，回傳綁定角色時用的 subject，以及一個以它的 token
// 連線的設定（在綁好角色之後呼叫）。最小權限的測試以它執行控制器：權限只有綁上去的那些。
//
// ServiceAccount creates a ServiceAccount called name in ns and returns the
// subject to bind roles to, and a function that returns a config connecting
// with its token (call it once the roles are bound). Least-privilege tests
// run a controller with it: its rights are exactly those bound.
func ServiceAccount(t *testing.T, c *Cluster, ns, name string) (rbacv1.Subject, func() *rest.Config) {
	t.Helper()
	cs := c.Client()
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}}
	if _, err := cs.CoreV1().ServiceAccounts(ns).Create(t.Context(), sa, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	config := func() *rest.Config {
		t.Helper()
		tok, err := cs.CoreV1().ServiceAccounts(ns).CreateToken(t.Context(), name, &authenticationv1.TokenRequest{
			Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: new(int64(3600))},
		}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		admin := c.Config()
		return &rest.Config{Host: admin.Host, TLSClientConfig: rest.TLSClientConfig{CAData: admin.CAData}, BearerToken: tok.Status.Token}
	}
	return rbacv1.Subject{Kind: rbacv1.ServiceAccountKind, Name: name, Namespace: ns}, config
}
