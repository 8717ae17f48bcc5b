// Package controlplane 啟動本機叢集：一個真正的 etcd 加上一個真正的 kube-apiserver，
// 需要時再加上 kube-controller-manager、kube-scheduler 與 kwok（假節點），全部由
// scripts/build-controlplane.sh 從釘選的原始碼建置。測試（internal/testenv）與
// scripts/cluster-up.sh 都透過它啟動叢集。
//
// Package controlplane starts the local cluster: a real etcd and a real
// kube-apiserver, and when asked kube-controller-manager, kube-scheduler and
// kwok (fake nodes) too, all built from pinned sources by
// scripts/build-controlplane.sh. The tests (internal/testenv) and
// scripts/cluster-up.sh both start clusters through it.
package controlplane

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"
)

// BinDirEnv 指向已建置好的 etcd 與 kube-apiserver 所在目錄，用來略過快取。
//
// BinDirEnv names a directory that already holds etcd and kube-apiserver,
// to use instead of the per-user build cache.
const BinDirEnv = "INFORMER_LAB_BIN_DIR"

// Binaries 是 scripts/build-controlplane.sh 建置的執行檔。
//
// Binaries are the binaries scripts/build-controlplane.sh builds.
var Binaries = []string{"etcd", "kube-apiserver", "kube-controller-manager", "kube-scheduler", "kwok"}

// BuildHint 是找不到執行檔時要給的修正指令。
//
// BuildHint is the command that fixes missing binaries.
const BuildHint = "scripts/build-controlplane.sh"

// RepoRootEnv 指向 repo 的根目錄；scripts/lib.sh 設定它。工作坊離線包裡的小程式是在別台機器上建的
// （而且用了 -trimpath），只能從這裡知道 repo 在哪。
//
// RepoRootEnv names the repository's root; scripts/lib.sh sets it. A helper
// in a workshop bundle was built on another machine (with -trimpath, too),
// and can learn where the repository is only from this.
const RepoRootEnv = "INFORMER_LAB_REPO_ROOT"

// repoRoot 回傳環境變數 RepoRootEnv 的值；沒有設定時從這個原始檔的位置往上找出 repo 根目錄（測試與工具都在 repo 內建置）。
// 以 -trimpath 建置時（scripts/test.sh 的 full 組就是），原始檔的名字只剩匯入路徑，改從工作目錄往上找：
// go test 把它設成套件的目錄。
//
// repoRoot is RepoRootEnv or, when that is unset, the repository root found
// from this source file's location (tests and tools are built inside the
// repository). Built with -trimpath (as the full tier of scripts/test.sh
// builds), the file's name is only its import path, so the root is looked
// for upwards from the working directory instead, which go test sets to the
// package's directory.
func repoRoot() string {
	if dir := os.Getenv(RepoRootEnv); dir != "" {
		return dir
	}
	if _, file, _, ok := runtime.Caller(0); ok && filepath.IsAbs(file) {
		return filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
	}
	dir, err := os.Getwd()
	for err == nil {
		if _, err := os.Stat(filepath.Join(dir, "scripts", "controlplane", "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent
	}
	return "."
}

var (
	kubeVersionRE = regexp.MustCompile(`(?m)^\s*k8s\.io/kubernetes\s+(v\S+)`)
	etcdVersionRE = regexp.MustCompile(`(?m)^\s*go\.etcd\.io/etcd/server/v3\s+(v\S+)`)
	kwokVersionRE = regexp.MustCompile(`(?m)^\s*sigs\.k8s\.io/kwok\s+(v\S+)`)
)

// CacheKey 由兩個建置模組算出快取 key：go.mod 裡的版本，加上兩個 go.sum 的雜湊，所以改版本、
// 或任何一個相依換了版本，都自動換一個快取目錄；scripts/lib.sh 用同一個規則。
//
// CacheKey derives the cache key from the two build modules: the versions in
// their go.mod files and a hash of their go.sum files, so a version bump, or
// a change of any dependency, gets a fresh cache directory; scripts/lib.sh
// uses the same rule.
func CacheKey() (string, error) {
	gomod := filepath.Join(repoRoot(), "scripts", "controlplane", "go.mod")
	data, err := os.ReadFile(gomod)
	if err != nil {
		return "", err
	}
	k := kubeVersionRE.FindSubmatch(data)
	e := etcdVersionRE.FindSubmatch(data)
	if k == nil || e == nil {
		return "", fmt.Errorf("%s: cannot find the k8s.io/kubernetes and etcd server versions", gomod)
	}
	kwokmod := filepath.Join(repoRoot(), "scripts", "kwok", "go.mod")
	if data, err = os.ReadFile(kwokmod); err != nil {
		return "", err
	}
	w := kwokVersionRE.FindSubmatch(data)
	if w == nil {
		return "", fmt.Errorf("%s: cannot find the kwok version", kwokmod)
	}
	sums := sha256.New()
	for _, mod := range []string{gomod, kwokmod} {
		data, err := os.ReadFile(strings.TrimSuffix(mod, ".mod") + ".sum")
		if err != nil {
			return "", err
		}
		sums.Write(data)
	}
	return fmt.Sprintf("kubernetes-%s_etcd-%s_kwok-%s_%s", k[1], e[1], w[1], hex.EncodeToString(sums.Sum(nil))[:12]), nil
}

// BinDir 回傳 etcd 與 kube-apiserver 所在的目錄：先看 BinDirEnv，
// 再看每個使用者的建置快取（$XDG_CACHE_HOME 或 ~/.cache）。
//
// BinDir returns the directory holding etcd and kube-apiserver: BinDirEnv if
// set, otherwise the per-user build cache ($XDG_CACHE_HOME or ~/.cache).
func BinDir() (string, error) {
	if dir := os.Getenv(BinDirEnv); dir != "" {
		return dir, nil
	}
	cache, err := CacheRoot()
	if err != nil {
		return "", err
	}
	key, err := CacheKey()
	if err != nil {
		return "", err
	}
	return filepath.Join(cache, "informer-walkthrough", "controlplane", key), nil
}

// CacheRoot 回傳每個使用者的快取目錄，規則跟 scripts/lib.sh 相同：$XDG_CACHE_HOME，否則 ~/.cache
// （macOS 上也一樣，不用 os.UserCacheDir 的 ~/Library/Caches，兩邊才找得到同一個目錄）。
//
// CacheRoot returns the per-user cache directory by scripts/lib.sh's rule:
// $XDG_CACHE_HOME, else ~/.cache (on macOS too, not os.UserCacheDir's
// ~/Library/Caches, so both sides agree).
func CacheRoot() (string, error) {
	if cache := os.Getenv("XDG_CACHE_HOME"); cache != "" {
		return cache, nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(home, ".cache"), nil
}

// FindBinaries 確認建置出來的執行檔都在；找不到時的錯誤訊息會附上修正指令。
//
// FindBinaries checks that every built binary is there; when one is not, the
// error names the command that builds them.
func FindBinaries() (dir string, err error) {
	dir, err = BinDir()
	if err != nil {
		return "", err
	}
	for _, name := range Binaries {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			return "", fmt.Errorf("local control plane not built: %s is missing (run %s; the first build takes about 11 minutes on 2 cores)",
				filepath.Join(dir, name), BuildHint)
		}
	}
	return dir, nil
}

// Options 設定一個本機控制平面。零值即可用：隨機的空閒埠、暫存目錄。
//
// Options configures a local control plane. The zero value works: a free
// port and a temporary directory.
type Options struct {
	// Port 是 kube-apiserver 在 127.0.0.1 上的 HTTPS 埠；0 表示挑一個空閒的。
	//
	// Port is kube-apiserver's HTTPS port on 127.0.0.1; 0 picks a free one.
	Port int
	// Dir 存放憑證與 etcd 資料；空字串表示建立暫存目錄並在 Stop 時刪除。
	//
	// Dir holds certificates and etcd data; empty means a temporary directory
	// that Stop removes.
	Dir string
	// Verbose 讓 etcd 與 kube-apiserver 的輸出直接印到 stderr。
	//
	// Verbose sends etcd's and kube-apiserver's own output to stderr.
	Verbose bool
	// Realistic 另外啟動 kube-controller-manager、kube-scheduler 與 kwok（一個假節點），
	// 讓 Pod 被排程、變成 Running，namespace 刪得掉，就像真的叢集；false 時只有 API server，
	// Pod 永遠停在 Pending。
	//
	// Realistic also starts kube-controller-manager, kube-scheduler and kwok
	// (one fake node), so that pods get scheduled and go Running and
	// namespaces can be deleted, as in a real cluster; when false there is
	// only the API server and pods stay Pending forever.
	Realistic bool
	// BeforeComponents 在擬真叢集的兩個 API server 就緒之後、kube-controller-manager 啟動之前執行一次（cfg 有管理者權限）。
	// 例如先裝好 CRD：garbage collector 啟動時就認得它，不必等它每 30 秒一次的下一輪資源探索。
	//
	// BeforeComponents runs once, after the realistic cluster's two API
	// servers are ready and before kube-controller-manager starts (cfg has
	// admin rights). A CRD
	// installed here, say, is known to the garbage collector from its start,
	// with no wait for its next resource discovery, which comes every 30 s.
	BeforeComponents func(cfg *rest.Config) error
}

// ControlPlane 是一個執行中的本機控制平面。
//
// ControlPlane is a running local control plane.
type ControlPlane struct {
	env *envtest.Environment
	// back 是擬真叢集裡元件（controller-manager、scheduler、kwok）連的第二個 kube-apiserver，
	// 跟主要的共用 etcd 與憑證；RestartAPIServer 只重新啟動主要的那個，元件因此不受影響。
	//
	// back is the second kube-apiserver the realistic cluster's components
	// (controller-manager, scheduler, kwok) talk to, sharing etcd and
	// certificates with the main one; RestartAPIServer restarts only the main
	// one, so the components never notice.
	back       *envtest.APIServer
	backConfig *rest.Config
	// pki 是兩個 API server 共用的憑證與金鑰。 / pki holds the certificates and keys both API servers share.
	pki        *clusterPKI
	dir        string
	ownsDir    bool
	components []*component
	// Timings 是這次啟動各階段花的時間。 / Timings are how long this start's phases took.
	Timings    Timings
	readySince time.Time
	// Config 以 system:masters 群組的 admin 使用者連線，使用 TLS 用戶端憑證。
	//
	// Config connects as an admin user in system:masters, with a TLS client
	// certificate.
	Config *rest.Config
}

// PortFree 檢查 127.0.0.1 上的埠是否可用，讓「埠已被占用」成為一行清楚的錯誤。
//
// PortFree checks that a port on 127.0.0.1 can be bound, so that "port in
// use" becomes one clear error line.
func PortFree(port int) error {
	l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		return fmt.Errorf("port %d on 127.0.0.1 is already in use (pick another, or leave it unset for a free one)", port)
	}
	return l.Close()
}

// Start 啟動 etcd 與 kube-apiserver（Realistic 時再加上其他元件與假節點），
// 等到 API server 就緒（Realistic 時還要節點 Ready）才回傳。
// 只接聽 127.0.0.1，只接受 TLS 用戶端憑證（沒有匿名的管理者）。
//
// Start launches etcd and kube-apiserver (and with Realistic the other
// components and the fake node) and returns once the API server is ready
// (with Realistic, once the node is Ready too). It listens on 127.0.0.1 only
// and accepts TLS client certificates only (no anonymous admin).
func Start(opts Options) (*ControlPlane, error) {
	binDir, err := FindBinaries()
	if err != nil {
		return nil, err
	}
	if opts.Port != 0 {
		if err := PortFree(opts.Port); err != nil {
			return nil, err
		}
	}
	cp := &ControlPlane{dir: opts.Dir}
	if cp.dir == "" {
		if cp.dir, err = os.MkdirTemp("", "informer-lab-"); err != nil {
			return nil, err
		}
		cp.ownsDir = true
	}
	pki := filepath.Join(cp.dir, "pki")
	data := filepath.Join(cp.dir, "etcd")
	for _, d := range []string{pki, data} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			cp.cleanup()
			return nil, err
		}
	}

	// 憑證目錄固定下來（不讓 envtest 自行配置），這樣重新啟動 API server 時
	// 沿用同一組 CA 與同一個埠，既有的用戶端不會失效。憑證由我們先做好（pki.go），第二個 API server 才不必等第一個。
	// The certificate directory is ours (not one envtest allocates), so that a
	// restarted API server keeps the same CA and port and existing clients
	// keep working. We make the certificates first (pki.go), so the second API
	// server need not wait for the first.
	if cp.pki, err = newClusterPKI(); err != nil {
		cp.cleanup()
		return nil, err
	}
	api := &envtest.APIServer{CertDir: pki, StartTimeout: 60 * time.Second, StopTimeout: 30 * time.Second}
	api.SecureServing.Address = "127.0.0.1"
	if opts.Port != 0 {
		api.SecureServing.Port = strconv.Itoa(opts.Port)
	}
	if err := cp.pki.configure(api, pki); err != nil {
		cp.cleanup()
		return nil, err
	}
	configureEither(api)
	if opts.Realistic {
		configureRealistic(api, pki)
	}
	// etcd 與 kube-apiserver 跟著啟動它們的行程一起結束（guarded）。 / etcd and kube-apiserver end with the process that started them (guarded).
	if api.Path, err = guarded(binDir, "kube-apiserver", cp.dir); err != nil {
		cp.cleanup()
		return nil, err
	}
	etcd := &envtest.Etcd{DataDir: data}
	if etcd.Path, err = guarded(binDir, "etcd", cp.dir); err != nil {
		cp.cleanup()
		return nil, err
	}
	// etcd 的位址先決定好，第二個 API server 才能在 envtest 啟動 etcd 的同時準備好。
	// etcd's address is decided first, so the second API server can be ready to go while envtest starts etcd.
	if etcd.URL, err = freeLoopbackURL(); err != nil {
		cp.cleanup()
		return nil, err
	}
	// 只有一個成員的 etcd 也要等一次選舉才開始服務：預設的心跳 100ms、選舉逾時 1s，讓啟動多等了大約 0.8 秒。
	// 沒有其他成員可以失聯，縮短十倍不影響什麼，啟動就快了這麼多。
	// A one-member etcd still waits for an election before it serves: the
	// default 100ms heartbeat and 1s election timeout added about 0.8 s to
	// every start. With no other member to lose touch with, a tenth of those
	// changes nothing else and saves that time.
	etcd.Configure().Set("heartbeat-interval", "10").Set("election-timeout", "100")
	if opts.Verbose {
		api.Out, api.Err = os.Stderr, os.Stderr
		etcd.Out, etcd.Err = os.Stderr, os.Stderr
	}
	cp.env = &envtest.Environment{
		BinaryAssetsDirectory:    binDir,
		ControlPlane:             envtest.ControlPlane{APIServer: api, Etcd: etcd},
		ControlPlaneStartTimeout: 60 * time.Second,
		ControlPlaneStopTimeout:  30 * time.Second,
	}
	// envtest 用 controller-runtime 的 logger 寫幾行訊息；沒設定的話，30 秒後它會在 stderr 抱怨並印一段 stack。
	// 叢集自己的輸出由 Verbose 控制，這幾行不需要。
	// envtest logs a few lines through controller-runtime's logger; left unset, it complains on stderr with a stack
	// after 30 seconds. The cluster's own output is Verbose's business; these lines are not needed.
	ctrllog.SetLogger(logr.Discard())

	// 擬真叢集的第二個 API server 跟主要的同時啟動：etcd 一有回應，它就啟動，不等主要的那個就緒。
	// 兩個一前一後啟動時，cluster-up.sh 多花了大約兩秒。
	// The realistic cluster's second API server starts beside the main one: as
	// soon as etcd answers, without waiting for the main one to be ready. One
	// after the other, they cost cluster-up.sh about two more seconds.
	var backDone chan error
	waiting, stopWaiting := context.WithTimeout(context.Background(), 60*time.Second)
	defer stopWaiting()
	if opts.Realistic {
		if cp.back, err = cp.sibling(true); err != nil {
			cp.cleanup()
			return nil, err
		}
		backDone = make(chan error, 1)
		go func() {
			if err := waitForEtcd(waiting, etcd.URL); err != nil {
				backDone <- err
				return
			}
			backDone <- startSibling(cp.back)
		}()
	}
	started := time.Now()
	cfg, err := cp.env.Start()
	if err != nil {
		stopWaiting()
		if backDone != nil {
			<-backDone
			_ = cp.back.Stop()
		}
		_ = cp.env.Stop()
		cp.cleanup()
		return nil, fmt.Errorf("starting the local control plane: %w", err)
	}
	cp.Timings.APIServer = time.Since(started)
	cp.Config = rest.CopyConfig(cfg)
	// envtest 預設很高的 QPS；改回 client-go 的預設，讓用戶端的行為跟連到任何叢集時一樣。
	// envtest sets a very high QPS; go back to client-go's defaults so the
	// client behaves as it would against any cluster.
	cp.Config.QPS, cp.Config.Burst = 0, 0
	if opts.Realistic {
		if err := <-backDone; err != nil {
			_ = cp.Stop()
			return nil, err
		}
		cp.Timings.APIServer = time.Since(started)
		cp.backConfig = cp.configFor(cp.back)
		if opts.BeforeComponents != nil {
			if err := opts.BeforeComponents(rest.CopyConfig(cp.Config)); err != nil {
				_ = cp.Stop()
				return nil, fmt.Errorf("preparing the cluster before its components start: %w", err)
			}
		}
		if err := cp.startComponents(binDir, opts.Verbose); err != nil {
			_ = cp.Stop()
			return nil, fmt.Errorf("starting the cluster's components: %w", err)
		}
	}
	return cp, nil
}

// freeLoopbackURL 挑一個 127.0.0.1 上空著的埠，回傳 http 位址（etcd 的用戶端位址）。
//
// freeLoopbackURL picks a free port on 127.0.0.1 and returns an http URL on
// it (etcd's client address).
func freeLoopbackURL() (*url.URL, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	host := l.Addr().String()
	if err := l.Close(); err != nil {
		return nil, err
	}
	return &url.URL{Scheme: "http", Host: host}, nil
}

// waitForEtcd 每 10 ms 問一次 etcd 的 /health，直到它回應 200 或 ctx 結束：
// 跟 envtest 啟動主要的 API server 之前一樣，先等 etcd 能服務，第二個 API server 才啟動。
//
// waitForEtcd asks etcd's /health every 10 ms until it answers 200 or ctx
// ends: as envtest does before the main API server, the second one starts
// only once etcd serves.
func waitForEtcd(ctx context.Context, u *url.URL) error {
	client := &http.Client{Timeout: time.Second}
	err := wait.PollUntilContextCancel(ctx, 10*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.JoinPath("health").String(), nil)
		if err != nil {
			return false, err
		}
		resp, err := client.Do(req)
		if err != nil {
			return false, nil
		}
		_ = resp.Body.Close()
		return resp.StatusCode == http.StatusOK, nil
	})
	if err != nil {
		return fmt.Errorf("etcd at %s did not answer before the second kube-apiserver could start: %w", u, err)
	}
	return nil
}

// URL 是 API server 的位址，例如 https://127.0.0.1:41234。
//
// URL is the API server's address, for example https://127.0.0.1:41234.
func (cp *ControlPlane) URL() string { return cp.Config.Host }

// Port 是 API server 在 127.0.0.1 上的埠。
//
// Port is the API server's port on 127.0.0.1.
func (cp *ControlPlane) Port() int {
	p, _ := strconv.Atoi(cp.env.ControlPlane.APIServer.SecureServing.Port)
	return p
}

// Dir 是憑證與 etcd 資料所在的目錄。
//
// Dir is where the certificates and etcd data live.
func (cp *ControlPlane) Dir() string { return cp.dir }

// serviceAccountIssuer 是兩個 API server 共用的 ServiceAccount token issuer，跟 kubeadm 的預設相同。
//
// serviceAccountIssuer is the ServiceAccount token issuer both API servers
// share, kubeadm's default.
const serviceAccountIssuer = "https://kubernetes.default.svc.cluster.local"

// sibling 在同一個 etcd 上準備另一個 kube-apiserver（還沒啟動；startSibling 啟動它），就像高可用性（HA）
// 控制平面的另一個副本：同一組服務憑證、ServiceAccount 金鑰與用戶端 CA，所以同一份憑證兩邊都能用，只有埠不同。
//
// sibling prepares one more kube-apiserver on the same etcd (not started yet;
// startSibling starts it), like another replica of a highly available
// control plane: the same serving certificate, ServiceAccount keys and
// client CA, so one set of credentials works on both; only the port differs.
func (cp *ControlPlane) sibling(realistic bool) (*envtest.APIServer, error) {
	main := cp.env.ControlPlane.APIServer
	dir, err := os.MkdirTemp(cp.dir, "apiserver-")
	if err != nil {
		return nil, err
	}
	api := &envtest.APIServer{
		CertDir:      dir,
		EtcdURL:      cp.env.ControlPlane.Etcd.URL,
		Path:         main.Path,
		StartTimeout: main.StartTimeout,
		StopTimeout:  main.StopTimeout,
		Out:          main.Out,
		Err:          main.Err,
	}
	api.SecureServing.Address = "127.0.0.1"
	if err := cp.pki.configure(api, dir); err != nil {
		return nil, err
	}
	configureEither(api)
	if realistic {
		configureRealistic(api, dir)
	}
	return api, nil
}

// configureEither 設定兩個 kube-apiserver 都要的參數。 / configureEither sets what both kube-apiservers need.
func configureEither(api *envtest.APIServer) {
	args := api.Configure()
	// 收到 SIGTERM 時，kube-apiserver 預設會等開著的 watch 自己結束，最多 60 秒；
	// informer 的 watch 不會自己結束。這個設定讓它主動關閉 watch，幾秒內就能停下。
	// On SIGTERM kube-apiserver waits by default up to 60 seconds for open
	// watches to finish, and an informer's watch never does. This makes it
	// close the watches itself, so it stops within seconds.
	args.Set("shutdown-watch-termination-grace-period", "2s")
	// 兩個 API server 簽發的 ServiceAccount token 要彼此認得：同一把金鑰（pki.configure 寫入），同一個 issuer。
	// Tokens either API server issues must be valid on the other: the same key (pki.configure writes it), the same issuer.
	args.Set("service-account-issuer", serviceAccountIssuer)
	// 沒有指定時，kube-apiserver 從預設路由的網路介面挑自己要公布的位址；沒有網路（例如工作坊裡關掉 Wi-Fi 的筆電）
	// 就沒有預設路由，它會起不來。這個叢集只在 127.0.0.1 上，就公布這個位址。預設的 lease endpoint reconciler
	// 不接受 loopback 位址（https://github.com/kubernetes/kubernetes/blob/v1.37.2/pkg/controlplane/instance.go#L354-L356），
	// 所以不用它：default/kubernetes 這個 Service 因此沒有 endpoint。叢集裡沒有真的在跑的 Pod 會去連它
	// （節點是 kwok 的假節點）。
	// Unless told, kube-apiserver picks the address it advertises from the default route's interface; with no network
	// (a laptop with Wi-Fi off at a workshop, say) there is no default route and it does not start. This cluster lives
	// on 127.0.0.1 only, so that is the address it advertises. The default lease endpoint reconciler refuses a loopback
	// address (https://github.com/kubernetes/kubernetes/blob/v1.37.2/pkg/controlplane/instance.go#L354-L356), so none
	// is used: the default/kubernetes Service has no endpoints as a result. No pod in this cluster really runs to
	// call it (the node is kwok's fake).
	args.Set("advertise-address", "127.0.0.1")
	args.Set("endpoint-reconciler-type", "none")
}

// startSibling 啟動 sibling 準備好的 API server，等它就緒。 / startSibling starts an API server sibling prepared and waits until it is ready.
func startSibling(api *envtest.APIServer) error {
	if err := api.Start(); err != nil {
		_ = api.Stop()
		return fmt.Errorf("starting a second kube-apiserver: %w", err)
	}
	return nil
}

// configFor 是連到另一個 API server 的 admin 設定：跟 Config 一樣，只有位址不同。
//
// configFor is an admin config for another API server: Config with its
// address.
func (cp *ControlPlane) configFor(api *envtest.APIServer) *rest.Config {
	cfg := rest.CopyConfig(cp.Config)
	cfg.Host = api.SecureServing.URL("https", "").String()
	return cfg
}

// RestartAPIServer 重新啟動主要的 kube-apiserver，etcd 不動，並在停機期間以另一個 API server 的設定
// 呼叫 whileDown（在停機時修改資料用）：擬真叢集用元件連的那一個，只有 API server 的叢集臨時啟動一個。
// 新的 API server 的 watch cache 從 etcd 目前的 revision 開始，所以從重新啟動前的 resourceVersion
// 開始的 watch 會得到 410。元件連的是另一個副本，不會經歷這次中斷：它們在重新啟動的 API server
// 就緒之前會收到 403（RBAC 快取還沒同步），而 client-go 的退避要兩分鐘沒有失敗才歸零，接連幾次重新啟動
// 會讓 scheduler 等上一分鐘才排程。
//
// RestartAPIServer restarts the main kube-apiserver, leaving etcd alone, and
// during the outage calls whileDown with another API server's config (to
// change data meanwhile): on the realistic cluster the one the components
// use, on the API-server-only cluster one started for the occasion. The new
// API server's watch cache starts at etcd's current revision, so a watch
// from a resourceVersion seen before the restart gets a 410. The components
// talk to the other replica and never see the outage: against a restarted
// API server they get 403s until its RBAC cache has synced, and client-go's
// backoff resets only after two minutes without a failure, so restarts in a
// row would keep the scheduler from scheduling for up to a minute.
func (cp *ControlPlane) RestartAPIServer(whileDown func(other *rest.Config) error) (err error) {
	other := cp.backConfig
	if cp.back == nil {
		extra, err := cp.sibling(false)
		if err == nil {
			err = startSibling(extra)
		}
		if err != nil {
			return err
		}
		other = cp.configFor(extra)
		defer func() {
			if stopErr := extra.Stop(); stopErr != nil {
				err = errors.Join(err, fmt.Errorf("stopping the second kube-apiserver: %w", stopErr))
			}
		}()
	}
	main := cp.env.ControlPlane.APIServer
	if err := main.Stop(); err != nil {
		return fmt.Errorf("stopping kube-apiserver: %w", err)
	}
	var downErr error
	if whileDown != nil {
		downErr = whileDown(other)
	}
	if err := main.Start(); err != nil {
		return errors.Join(downErr, fmt.Errorf("starting kube-apiserver again: %w", err))
	}
	return downErr
}

// Stop 依序停止 kube-apiserver 與 etcd（各自先 SIGTERM，逾時再 SIGKILL），
// 並刪除自己建立的暫存目錄。
//
// Stop stops kube-apiserver and etcd (SIGTERM each, SIGKILL after a timeout)
// and removes the temporary directory it created.
func (cp *ControlPlane) Stop() error {
	err := cp.stopComponents()
	if cp.back != nil {
		err = errors.Join(err, cp.back.Stop())
		cp.back = nil
	}
	err = errors.Join(err, cp.env.Stop())
	return errors.Join(err, cp.cleanup())
}

func (cp *ControlPlane) cleanup() error {
	if cp.ownsDir {
		return os.RemoveAll(cp.dir)
	}
	return nil
}

// Kubeconfig 把連線資訊包成一個 kubeconfig，叢集、使用者與 context 都叫 name。
//
// Kubeconfig wraps the connection details in a kubeconfig whose cluster,
// user and context are all called name.
func (cp *ControlPlane) Kubeconfig(name string) *clientcmdapi.Config {
	return kubeconfigOf(cp.Config, name)
}

// WriteKubeconfig 寫出 Kubeconfig(name)，檔案權限 0600。
//
// WriteKubeconfig writes Kubeconfig(name) with file mode 0600.
func (cp *ControlPlane) WriteKubeconfig(path, name string) error {
	if err := clientcmd.WriteToFile(*cp.Kubeconfig(name), path); err != nil {
		return err
	}
	return os.Chmod(path, 0o600)
}
