package controlplane

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
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

// certificateLifetime 跟 envtest 自己的憑證一樣是一週；cluster-up.sh 會換掉過期的叢集。
//
// certificateLifetime is a week, as envtest's own certificates are;
// cluster-up.sh replaces an expired cluster.
const certificateLifetime = 7 * 24 * time.Hour

// authority 是一個憑證授權中心（CA）：它的憑證（PEM）與簽發用的私鑰。
//
// authority is a certificate authority: its certificate (PEM) and signing key.
type authority struct {
	cert *x509.Certificate
	key  crypto.Signer
	pem  []byte
}

func newAuthority(name string) (*authority, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber:          serial(),
		Subject:               pkix.Name{CommonName: name},
		NotBefore:             time.Now().Add(-time.Minute),
		NotAfter:              time.Now().Add(certificateLifetime),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	if err != nil {
		return nil, err
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, err
	}
	return &authority{cert: cert, key: key, pem: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})}, nil
}

// issue 簽發一張憑證；ips 不是空的就是伺服器憑證，否則是用戶端憑證（CN 是使用者，O 是群組）。
//
// issue signs a certificate: a serving one when ips is not empty, else a
// client one (CN the user, O the groups).
func (a *authority) issue(cn string, groups []string, ips []net.IP, dns []string) (certPEM, keyPEM []byte, err error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial(),
		Subject:      pkix.Name{CommonName: cn, Organization: groups},
		NotBefore:    time.Now().Add(-time.Minute),
		NotAfter:     time.Now().Add(certificateLifetime),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
		IPAddresses:  ips,
		DNSNames:     dns,
	}
	if len(ips) > 0 {
		tmpl.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, a.cert, key.Public(), a.key)
	if err != nil {
		return nil, nil, err
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}), nil
}

func serial() *big.Int {
	n, _ := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	return n
}

// clientCertAuthn 是 envtest.Authn 的一個實作，用我們自己持有私鑰的 CA 簽發用戶端憑證。
// envtest 自己的 CA 在 API server 啟動時才產生；用自己的，就能在 API server 啟動之前
// 先發好 kube-controller-manager 與 kube-scheduler 的憑證，讓它們跟 API server 一起啟動。
//
// clientCertAuthn implements envtest.Authn with a CA whose key we hold.
// envtest's own CA only exists once the API server starts; with ours, the
// certificates of kube-controller-manager and kube-scheduler can be issued
// before, so they start together with the API server.
type clientCertAuthn struct {
	ca     *authority
	caFile string
}

var _ envtest.Authn = (*clientCertAuthn)(nil)

func (c *clientCertAuthn) Configure(workDir string, args *envtest.Arguments) error {
	c.caFile = filepath.Join(workDir, "client-cert-auth-ca.crt")
	args.Set("client-ca-file", c.caFile)
	return nil
}

func (c *clientCertAuthn) Start() error { return os.WriteFile(c.caFile, c.ca.pem, 0o600) }

func (c *clientCertAuthn) Stop() error { return nil }

func (c *clientCertAuthn) AddUser(user envtest.User, base *rest.Config) (*rest.Config, error) {
	crt, key, err := c.ca.issue(user.Name, user.Groups, nil, nil)
	if err != nil {
		return nil, fmt.Errorf("issuing a client certificate for %s: %w", user.Name, err)
	}
	cfg := rest.CopyConfig(base)
	cfg.CertData, cfg.KeyData = crt, key
	return cfg, nil
}

// preparePKI 在 API server 啟動之前寫好它需要的一切：伺服器憑證（簽發者的憑證放進
// SecureServing.CA）、ServiceAccount 的簽章金鑰，以及用戶端憑證用的 CA。envtest 看到
// apiserver.crt 已經在，就不會再自己產生。
//
// preparePKI writes everything the API server needs before it starts: the
// serving certificate (its issuer goes into SecureServing.CA), the
// ServiceAccount signing key, and the CA for client certificates. Seeing
// apiserver.crt already there, envtest generates none of its own.
func preparePKI(api *envtest.APIServer, dir string) error {
	serving, err := newAuthority("informer-lab-serving-ca")
	if err != nil {
		return err
	}
	crt, key, err := serving.issue("kube-apiserver", nil,
		[]net.IP{net.ParseIP("127.0.0.1")}, []string{"localhost", "kubernetes", "kubernetes.default", "kubernetes.default.svc"})
	if err != nil {
		return err
	}
	sa, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return err
	}
	saPub, err := x509.MarshalPKIXPublicKey(&sa.PublicKey)
	if err != nil {
		return err
	}
	files := map[string][]byte{
		"apiserver.crt":  crt,
		"apiserver.key":  key,
		"sa-signer.key":  pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(sa)}),
		"sa-signer.crt":  pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: saPub}),
		"cluster-ca.crt": serving.pem,
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
			return err
		}
	}
	clients, err := newAuthority("informer-lab-client-ca")
	if err != nil {
		return err
	}
	api.SecureServing.CA = serving.pem
	api.SecureServing.Authn = &clientCertAuthn{ca: clients}
	return nil
}
