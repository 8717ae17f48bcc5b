package controlplane

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"

	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// 兩個 kube-apiserver 要同時啟動，憑證就得在任何一個啟動之前備妥：envtest 原本在主要的 API server 啟動時才產生它們，
// 第二個只能等第一個起來之後再複製。這裡的小型 CA 跟 envtest 的做法相同（ECDSA P-256，效期一週），只是由我們先做好。
//
// Both kube-apiservers start side by side, so their certificates must exist
// before either does: envtest makes them as the main API server starts, and
// the second could only copy them once the first was up. This small CA does
// what envtest's does (ECDSA P-256, valid for a week), ahead of time.

// clientCAFile 是 API server 讀取用戶端 CA 的檔名（跟 envtest 的一樣；configureRealistic 也用它）。
//
// clientCAFile is the file an API server reads its client CA from
// (envtest's name; configureRealistic uses it too).
const clientCAFile = "client-cert-auth-ca.crt"

// tinyCA 是一把自簽的 CA 金鑰與憑證，用來簽發服務憑證與用戶端憑證。
//
// tinyCA is a self-signed CA key and certificate that issues serving and
// client certificates.
type tinyCA struct {
	cert *x509.Certificate
	key  crypto.Signer
	// pem 是 CA 憑證的 PEM 編碼。 / pem is the CA certificate, PEM-encoded.
	pem []byte
}

// newCA 產生一個新的 CA。 / newCA makes a new CA.
func newCA(name string) (*tinyCA, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	now := time.Now()
	template := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: name},
		NotBefore:             now.Add(-time.Minute).UTC(),
		NotAfter:              now.Add(168 * time.Hour).UTC(),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	raw, err := x509.CreateCertificate(rand.Reader, template, template, key.Public(), key)
	if err != nil {
		return nil, err
	}
	cert, err := x509.ParseCertificate(raw)
	if err != nil {
		return nil, err
	}
	return &tinyCA{cert: cert, key: key, pem: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: raw})}, nil
}

// issue 簽發一張憑證，回傳憑證與它的 PKCS#8 私鑰，兩者都是 PEM 編碼。序號是亂數，所以可以同時呼叫。
//
// issue signs one certificate and returns it and its PKCS#8 key, both
// PEM-encoded. Serial numbers are random, so concurrent calls are safe.
func (ca *tinyCA) issue(cn string, orgs []string, usage x509.ExtKeyUsage, dnsNames []string, ips []net.IP) (certPEM, keyPEM []byte, err error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 126))
	if err != nil {
		return nil, nil, err
	}
	now := time.Now()
	template := &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: cn, Organization: orgs},
		DNSNames:     dnsNames,
		IPAddresses:  ips,
		NotBefore:    now.Add(-time.Minute).UTC(),
		NotAfter:     now.Add(168 * time.Hour).UTC(),
		KeyUsage:     x509.KeyUsageKeyEncipherment | x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{usage},
	}
	raw, err := x509.CreateCertificate(rand.Reader, template, ca.cert, key.Public(), ca.key)
	if err != nil {
		return nil, nil, err
	}
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: raw}),
		pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), nil
}

// writePKI 在 dir 寫入 envtest 會找的四個檔案：服務憑證與金鑰（127.0.0.1 與 localhost），以及
// ServiceAccount token 的簽章金鑰（sa-signer.key）與它的公開憑證（sa-signer.crt）。
// 檔案在的話，envtest 就不會自己產生（populateAPIServerCerts 看到 apiserver.crt 就停手），
// 所以 APIServer.SecureServing.CA 由 clusterPKI.configure 設定。
//
// writePKI writes the four files envtest looks for into dir: the serving
// certificate and key (127.0.0.1 and localhost), and the ServiceAccount token
// signing key (sa-signer.key) with its certificate (sa-signer.crt). With the
// files there, envtest makes none of its own (populateAPIServerCerts stops at
// an existing apiserver.crt), so clusterPKI.configure sets
// APIServer.SecureServing.CA.
func writePKI(dir string, sa *tinyCA, servingCert, servingKey []byte) error {
	saKey, err := x509.MarshalPKCS8PrivateKey(sa.key)
	if err != nil {
		return err
	}
	files := map[string][]byte{
		"apiserver.crt": servingCert,
		"apiserver.key": servingKey,
		"sa-signer.crt": sa.pem,
		"sa-signer.key": pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: saKey}),
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
			return err
		}
	}
	return nil
}

// certAuthn 是 envtest.Authn 的一個實作：以 ca 簽發的用戶端憑證驗證使用者。每個 API server 各有一個
// （各自記得自己的目錄），共用同一把 CA，所以同一份用戶端憑證兩邊都能用，兩者也能同時啟動。
//
// certAuthn implements envtest.Authn: users authenticate with client
// certificates ca signs. Each API server has its own (each remembers its own
// directory) and they share the CA, so one client certificate works on both
// and the two can start at the same time.
type certAuthn struct {
	ca  *tinyCA
	dir string
}

var _ envtest.Authn = (*certAuthn)(nil)

// Configure 記下目錄，並讓 API server 從那裡讀用戶端 CA。 / Configure notes the directory and points the API server at the client CA there.
func (a *certAuthn) Configure(dir string, args *envtest.Arguments) error {
	a.dir = dir
	args.Set("client-ca-file", filepath.Join(dir, clientCAFile))
	return nil
}

// Start 在 API server 啟動之前寫出用戶端 CA。 / Start writes the client CA, just before the API server starts.
func (a *certAuthn) Start() error {
	if a.dir == "" {
		return fmt.Errorf("certAuthn: Start before Configure")
	}
	return os.WriteFile(filepath.Join(a.dir, clientCAFile), a.ca.pem, 0o600)
}

// AddUser 簽發一張用戶端憑證（CN 是使用者名稱，O 是群組），放進 base 的一份複本。
//
// AddUser issues a client certificate (CN the user name, O the groups) and
// puts it in a copy of base.
func (a *certAuthn) AddUser(user envtest.User, base *rest.Config) (*rest.Config, error) {
	crt, key, err := a.ca.issue(user.Name, user.Groups, x509.ExtKeyUsageClientAuth, nil, nil)
	if err != nil {
		return nil, fmt.Errorf("a client certificate for %s: %w", user.Name, err)
	}
	cfg := rest.CopyConfig(base)
	cfg.CertData, cfg.KeyData = crt, key
	return cfg, nil
}

// Stop 什麼都不用做：檔案跟著目錄一起刪除。 / Stop has nothing to do: the files go with the directory.
func (a *certAuthn) Stop() error { return nil }

// clusterPKI 是一個叢集的憑證：服務憑證的 CA 與憑證、ServiceAccount 的簽章金鑰、用戶端 CA。
//
// clusterPKI is one cluster's certificates: the serving CA and certificate,
// the ServiceAccount signing key, and the client CA.
type clusterPKI struct {
	serving, sa, client     *tinyCA
	servingCert, servingKey []byte
}

// newClusterPKI 產生一個叢集的憑證。服務憑證給 localhost 與 127.0.0.1（API server 只接聽 127.0.0.1）。
//
// newClusterPKI makes one cluster's certificates. The serving certificate is
// for localhost and 127.0.0.1 (the API servers listen on 127.0.0.1 only).
func newClusterPKI() (*clusterPKI, error) {
	var p clusterPKI
	var err error
	if p.serving, err = newCA("informer-lab-serving-ca"); err != nil {
		return nil, err
	}
	if p.sa, err = newCA("informer-lab-service-account-signer"); err != nil {
		return nil, err
	}
	if p.client, err = newCA("informer-lab-client-ca"); err != nil {
		return nil, err
	}
	p.servingCert, p.servingKey, err = p.serving.issue("localhost", nil, x509.ExtKeyUsageServerAuth,
		[]string{"localhost"}, []net.IP{net.IPv4(127, 0, 0, 1)})
	if err != nil {
		return nil, err
	}
	return &p, nil
}

// configure 把憑證寫進 dir，並讓 api 使用它們：服務 CA 給用戶端驗證伺服器，用戶端 CA 給伺服器驗證用戶端。
//
// configure writes the certificates into dir and has api use them: the
// serving CA for clients to check the server, the client CA for the server
// to check clients.
func (p *clusterPKI) configure(api *envtest.APIServer, dir string) error {
	if err := writePKI(dir, p.sa, p.servingCert, p.servingKey); err != nil {
		return err
	}
	api.SecureServing.CA = p.serving.pem
	api.SecureServing.Authn = &certAuthn{ca: p.client}
	return nil
}
