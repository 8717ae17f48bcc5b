package controlplane

import (
	"crypto/x509"
	"encoding/pem"
	"net"
	"testing"

	authenticationv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// 服務憑證對 127.0.0.1 與 localhost 有效、不能當用戶端憑證；用戶端憑證帶著使用者與群組，只由用戶端 CA 認得。
// The serving certificate is valid for 127.0.0.1 and localhost and not as a
// client certificate; a client certificate carries the user and groups and
// only the client CA accepts it.
func TestClusterPKI(t *testing.T) {
	p, err := newClusterPKI()
	if err != nil {
		t.Fatal(err)
	}
	pool := func(ca *tinyCA) *x509.CertPool {
		pool := x509.NewCertPool()
		pool.AddCert(ca.cert)
		return pool
	}
	parse := func(data []byte) *x509.Certificate {
		block, _ := pem.Decode(data)
		if block == nil {
			t.Fatal("not PEM")
		}
		c, err := x509.ParseCertificate(block.Bytes)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	serving := parse(p.servingCert)
	for _, name := range []string{"127.0.0.1", "localhost"} {
		if _, err := serving.Verify(x509.VerifyOptions{DNSName: name, Roots: pool(p.serving)}); err != nil {
			t.Errorf("serving certificate for %s: %v", name, err)
		}
	}
	if _, err := serving.Verify(x509.VerifyOptions{Roots: pool(p.serving), KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}); err == nil {
		t.Error("the serving certificate passes as a client certificate")
	}
	if len(serving.IPAddresses) != 1 || !serving.IPAddresses[0].Equal(net.ParseIP("127.0.0.1")) {
		t.Errorf("serving IPs = %v, want [127.0.0.1]", serving.IPAddresses)
	}

	cfg, err := (&certAuthn{ca: p.client}).AddUser(envtest.User{Name: "alice", Groups: []string{"team-a", "team-b"}}, &rest.Config{Host: "https://127.0.0.1:1"})
	if err != nil {
		t.Fatal(err)
	}
	client := parse(cfg.CertData)
	if client.Subject.CommonName != "alice" || len(client.Subject.Organization) != 2 || client.Subject.Organization[1] != "team-b" {
		t.Errorf("client subject = %v, want CN=alice, O=team-a+team-b", client.Subject)
	}
	opts := x509.VerifyOptions{Roots: pool(p.client), KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}
	if _, err := client.Verify(opts); err != nil {
		t.Errorf("client certificate: %v", err)
	}
	opts.Roots = pool(p.serving)
	if _, err := client.Verify(opts); err == nil {
		t.Error("the serving CA accepts a client certificate")
	}
	if cfg.Host != "https://127.0.0.1:1" || cfg.KeyData == nil {
		t.Errorf("AddUser lost the base config or the key: host %q, %d key bytes", cfg.Host, len(cfg.KeyData))
	}
}

// 擬真叢集的兩個 API server 同時啟動，卻要像一個叢集：同一份 admin 憑證兩邊都能用，
// 一邊簽發的 ServiceAccount token 另一邊也認得（controller-manager 在 back 取得 token，學習者在主要的那個用它）。
// The realistic cluster's two API servers start side by side and must still
// act as one cluster: the admin certificate works on both, and a
// ServiceAccount token either one issues is valid on the other (the
// controller-manager gets tokens from back; a learner uses them on the main
// one).
func TestBothAPIServersAreOneCluster(t *testing.T) {
	if _, err := FindBinaries(); err != nil {
		t.Fatal(err)
	}
	cp, err := Start(Options{Realistic: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := cp.Stop(); err != nil {
			t.Error(err)
		}
	})
	if err := cp.WaitForDefaultServiceAccount(t.Context(), "default"); err != nil {
		t.Fatal(err)
	}
	servers := map[string]*rest.Config{"main": cp.Config, "back": cp.backConfig}
	for issuer, issuerCfg := range servers {
		cs := kubernetes.NewForConfigOrDie(issuerCfg)
		tr, err := cs.CoreV1().ServiceAccounts("default").CreateToken(t.Context(), "default", &authenticationv1.TokenRequest{}, metav1.CreateOptions{})
		if err != nil {
			t.Fatalf("a token from %s: %v", issuer, err)
		}
		for checker, checkerCfg := range servers {
			review, err := kubernetes.NewForConfigOrDie(checkerCfg).AuthenticationV1().TokenReviews().Create(t.Context(),
				&authenticationv1.TokenReview{Spec: authenticationv1.TokenReviewSpec{Token: tr.Status.Token}}, metav1.CreateOptions{})
			if err != nil {
				t.Fatalf("%s reviewing %s's token: %v", checker, issuer, err)
			}
			if want := "system:serviceaccount:default:default"; !review.Status.Authenticated || review.Status.User.Username != want {
				t.Errorf("%s on %s's token: authenticated %v as %q (%s); want %s", checker, issuer,
					review.Status.Authenticated, review.Status.User.Username, review.Status.Error, want)
			}
		}
	}
}
