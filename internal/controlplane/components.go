package controlplane

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// NodeName 是 kwok 管理的那個假節點的名字。
//
// NodeName is the name of the one fake node that kwok manages.
const NodeName = "kwok-node-0"

// component 是控制平面之外、由我們自己啟動的一個行程。
//
// component is one process beside the control plane that we start ourselves.
type component struct {
	name string
	cmd  *exec.Cmd
	done chan struct{}
	log  *os.File
}

// configureRealistic 調整 kube-apiserver 的旗標，讓它跟 kubeadm 建的叢集一樣：
// envtest 因為沒有執行 controller-manager，所以關掉 ServiceAccount admission，這裡重新啟用；
// 再給它一個 requestheader CA，kube-controller-manager 與 kube-scheduler 讀
// extension-apiserver-authentication 時才不會一直抱怨內容缺漏。
//
// configureRealistic sets kube-apiserver's flags as a kubeadm cluster has
// them: envtest turns ServiceAccount admission off because it runs no
// controller-manager, and this turns it back on; it also gives the server a
// requestheader CA, so that kube-controller-manager and kube-scheduler stop
// complaining about missing content when they read
// extension-apiserver-authentication.
func configureRealistic(api *envtest.APIServer, pki string) {
	args := api.Configure()
	args.Disable("disable-admission-plugins")
	// 這個 CA 就是 envtest 簽用戶端憑證的 CA；只接受 CN=front-proxy-client，而我們從不簽發這個名字。
	// This is the CA envtest signs client certificates with; only CN=front-proxy-client is accepted, a name we never issue.
	args.Set("requestheader-client-ca-file", filepath.Join(pki, "client-cert-auth-ca.crt"))
	args.Set("requestheader-allowed-names", "front-proxy-client")
	args.Set("requestheader-username-headers", "X-Remote-User")
	args.Set("requestheader-group-headers", "X-Remote-Group")
	args.Set("requestheader-extra-headers-prefix", "X-Remote-Extra-")
}

// startComponents 啟動 kube-controller-manager、kube-scheduler 與 kwok，每個都用自己的
// 用戶端身分（像 kubeadm 那樣），建立假節點，然後等到節點 Ready、default
// ServiceAccount 出現為止：這時 Pod 會被排程、會變成 Running，namespace 也刪得掉。
//
// startComponents starts kube-controller-manager, kube-scheduler and kwok,
// each with a client identity of its own (as kubeadm gives them), creates the
// fake node, and waits until the node is Ready and the default ServiceAccount
// exists: from then on pods get scheduled and go Running, and namespaces can
// be deleted.
func (cp *ControlPlane) startComponents(binDir string, verbose bool) error {
	pki := filepath.Join(cp.dir, "pki")
	logs := filepath.Join(cp.dir, "logs")
	if err := os.MkdirAll(logs, 0o700); err != nil {
		return err
	}
	rootCA := filepath.Join(pki, "cluster-ca.crt")
	if err := os.WriteFile(rootCA, cp.Config.CAData, 0o600); err != nil {
		return err
	}
	// 元件連的是 back：主要的 API server 重新啟動時，它們不受影響（見 RestartAPIServer）。
	// The components talk to back: when the main API server restarts they are not affected (see RestartAPIServer).
	kubeconfigFor := func(user envtest.User) (string, error) {
		cfg, err := cp.env.ControlPlane.APIServer.SecureServing.AddUser(user, cp.backConfig)
		if err != nil {
			return "", err
		}
		path := filepath.Join(pki, user.Name+".kubeconfig")
		kc := kubeconfigOf(cfg, "local")
		if err := clientcmd.WriteToFile(*kc, path); err != nil {
			return "", err
		}
		return path, os.Chmod(path, 0o600)
	}
	kcm, err := kubeconfigFor(envtest.User{Name: "system:kube-controller-manager"})
	if err != nil {
		return err
	}
	sched, err := kubeconfigFor(envtest.User{Name: "system:kube-scheduler"})
	if err != nil {
		return err
	}
	kwok, err := kubeconfigFor(envtest.User{Name: "kwok", Groups: []string{"system:masters"}})
	if err != nil {
		return err
	}

	// 以下的旗標出自 kubeadm 的預設，加上幾項本機需要的修正（見各行說明）。
	// The flags follow kubeadm's defaults, plus a few fixes a local run needs (each one says why).
	specs := []struct {
		name string
		args []string
	}{
		{"kube-controller-manager", []string{
			"--kubeconfig=" + kcm,
			"--authentication-kubeconfig=" + kcm,
			"--authorization-kubeconfig=" + kcm,
			// 0 表示不開 HTTPS 埠：不必挑埠，也不會把自簽憑證寫到 /var/run/kubernetes。
			// 0 means no HTTPS port: no port to pick, and no self-signed certificate written to /var/run/kubernetes.
			"--secure-port=0",
			"--leader-elect=false",
			"--use-service-account-credentials=true",
			"--service-account-private-key-file=" + filepath.Join(pki, "sa-signer.key"),
			"--root-ca-file=" + rootCA,
			"--service-cluster-ip-range=10.0.0.0/24",
			// 不給它這個目錄，它會在 /usr/libexec/kubernetes 底下建目錄。
			// Without this it creates a directory under /usr/libexec/kubernetes.
			"--flex-volume-plugin-dir=" + filepath.Join(cp.dir, "flexvolume"),
			// 每個 controller 用自己的 ServiceAccount 連線時，預設的 20 QPS 會讓啟動慢上好幾秒。
			// With one ServiceAccount per controller, the default 20 QPS slows start-up by seconds.
			"--kube-api-qps=200", "--kube-api-burst=400",
			"--profiling=false",
		}},
		{"kube-scheduler", []string{
			"--kubeconfig=" + sched,
			"--authentication-kubeconfig=" + sched,
			"--authorization-kubeconfig=" + sched,
			"--secure-port=0",
			"--leader-elect=false",
			"--profiling=false",
		}},
		{"kwok", []string{
			"--kubeconfig=" + kwok,
			// kwok 執行檔不內建 Stage；生命週期的規則來自 repo 裡的這個檔案。
			// The kwok binary has no Stages built in; the lifecycle rules come from this file in the repository.
			"--config=" + filepath.Join(repoRoot(), "scripts", "kwok", "stages.yaml"),
			"--manage-all-nodes=false",
			"--manage-nodes-with-annotation-selector=kwok.x-k8s.io/node=fake",
			"--cidr=10.244.0.0/16",
			"--node-ip=127.0.0.1",
			// 像 kubelet 那樣用 Lease 回報心跳。stages.yaml 的 node-heartbeat-with-lease 靠它：
			// 少了 Lease，節點約 50 秒就被 kube-controller-manager 標成 NotReady，每個 Pod 都多出 Ready=False 的更新。
			// Heartbeats through a Lease, as a kubelet sends them. stages.yaml's node-heartbeat-with-lease relies on it:
			// without a Lease, kube-controller-manager marks the node NotReady after about 50 s and every pod gets a Ready=False update.
			"--node-lease-duration-seconds=40",
		}},
	}
	for _, s := range specs {
		path, err := componentPath(binDir, s.name, cp.dir)
		if err != nil {
			return err
		}
		c, err := startComponent(path, s.name, logs, verbose, s.args...)
		if err != nil {
			return err
		}
		cp.components = append(cp.components, c)
	}

	cs, err := kubernetes.NewForConfig(cp.Config)
	if err != nil {
		return err
	}
	started := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	if err := cp.createNode(ctx, cs); err != nil {
		return err
	}
	if err := cp.waitFor(ctx, "node "+NodeName+" to be Ready", func(ctx context.Context) (bool, error) {
		n, err := cs.CoreV1().Nodes().Get(ctx, NodeName, metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		for _, c := range n.Status.Conditions {
			if c.Type == corev1.NodeReady && c.Status == corev1.ConditionTrue {
				return true, nil
			}
		}
		return false, nil
	}); err != nil {
		return err
	}
	cp.Timings.NodeReady = time.Since(started)
	cp.readySince = time.Now()
	return nil
}

// WaitForDefaultServiceAccount 等 kube-controller-manager 在 namespace 裡建立 default ServiceAccount。
// Start 不等它，跟 kubeadm 與 kind 一樣：ServiceAccount admission 自己會為 default 等上 1 到 2 秒
// （見 plugin/pkg/admission/serviceaccount/admission.go 的 numAttempts），而 controller-manager
// 在 API server 就緒後不到一秒就建好了。要在新的 namespace 裡立刻建立很多 Pod 的測試，先等它比較穩。
//
// WaitForDefaultServiceAccount waits until kube-controller-manager has
// created the namespace's default ServiceAccount. Start does not wait for it,
// as kubeadm and kind do not: ServiceAccount admission itself waits 1 to 2 s
// for the default one (see numAttempts in
// plugin/pkg/admission/serviceaccount/admission.go), and the
// controller-manager creates it within a second of the API server being
// ready. Tests that create many pods in a new namespace at once are steadier
// for waiting first.
func (cp *ControlPlane) WaitForDefaultServiceAccount(ctx context.Context, namespace string) error {
	cs, err := kubernetes.NewForConfig(cp.Config)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	err = cp.waitFor(ctx, "the default ServiceAccount in "+namespace+" (kube-controller-manager)", func(ctx context.Context) (bool, error) {
		_, err := cs.CoreV1().ServiceAccounts(namespace).Get(ctx, "default", metav1.GetOptions{})
		return err == nil, nil
	})
	if namespace == "default" && err == nil && cp.Timings.ServiceAccount == 0 {
		cp.Timings.ServiceAccount = time.Since(cp.readySince) + cp.Timings.NodeReady
	}
	return err
}

// Timings 記錄啟動各階段花了多久，讓 cluster-up.sh 與基準測試能說出時間花在哪裡。
//
// Timings records how long each phase of the start took, so cluster-up.sh
// and the benchmark can say where the time went.
type Timings struct {
	// APIServer 是從 Start 開始到 API server 就緒。 / APIServer is from Start until the API server is ready.
	APIServer time.Duration
	// NodeReady 與 ServiceAccount（WaitForDefaultServiceAccount 看到它的時候）從 API server 就緒之後算起。
	// NodeReady and ServiceAccount (when WaitForDefaultServiceAccount saw it) count from the API server being ready.
	NodeReady, ServiceAccount time.Duration
}

// createNode 建立 kwok 管理的假節點。跟 kwok 範例的節點不同，它沒有 NoSchedule taint，
// 所以一般的 pod（沒有 toleration）也會排到它上面。
//
// createNode creates the fake node that kwok manages. Unlike kwok's sample
// node it has no NoSchedule taint, so an ordinary pod (no tolerations)
// schedules onto it.
func (cp *ControlPlane) createNode(ctx context.Context, cs kubernetes.Interface) error {
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{
		Name:        NodeName,
		Annotations: map[string]string{"kwok.x-k8s.io/node": "fake", "node.alpha.kubernetes.io/ttl": "0"},
		Labels: map[string]string{
			"kubernetes.io/arch": "amd64", "kubernetes.io/os": "linux",
			"kubernetes.io/hostname": NodeName, "type": "kwok",
		},
	}}
	_, err := cs.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		return nil
	}
	return err
}

// waitFor 每 50 毫秒輪詢一次，直到 done 為真；逾時的錯誤會指出該看哪個 log 檔。
//
// waitFor polls every 50 ms until done is true; the timeout error names the
// logs to read.
func (cp *ControlPlane) waitFor(ctx context.Context, what string, done func(context.Context) (bool, error)) error {
	if err := wait.PollUntilContextCancel(ctx, 50*time.Millisecond, true, done); err != nil {
		for _, c := range cp.components {
			select {
			case <-c.done:
				return fmt.Errorf("%s exited while waiting for %s (see %s)", c.name, what, c.log.Name())
			default:
			}
		}
		return fmt.Errorf("waiting for %s: %w (logs in %s)", what, err, filepath.Join(cp.dir, "logs"))
	}
	return nil
}

// startComponent 啟動一個行程，輸出寫進 logs/<name>.log（verbose 時印到 stderr）。
//
// startComponent starts one process, its output going to logs/<name>.log
// (to stderr when verbose).
func startComponent(path, name, logs string, verbose bool, args ...string) (*component, error) {
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("local control plane not built: %s is missing (run %s)", path, BuildHint)
	}
	log, err := os.Create(filepath.Join(logs, name+".log"))
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(path, args...)
	var out io.Writer = log
	if verbose {
		out = io.MultiWriter(log, os.Stderr)
	}
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = DieWithParent()
	if err := cmd.Start(); err != nil {
		_ = log.Close()
		return nil, fmt.Errorf("starting %s: %w", name, err)
	}
	c := &component{name: name, cmd: cmd, done: make(chan struct{}), log: log}
	go func() {
		_ = cmd.Wait()
		close(c.done)
	}()
	return c, nil
}

// stop 先送 SIGTERM，10 秒內沒結束就 SIGKILL。
//
// stop sends SIGTERM, and SIGKILL if the process has not exited within 10 seconds.
func (c *component) stop() error {
	defer c.log.Close()
	select {
	case <-c.done:
		return nil
	default:
	}
	// 暫停中的行程無法處理 SIGTERM，先讓它繼續執行。 / A paused process cannot act on SIGTERM; let it go on first.
	_ = c.cmd.Process.Signal(syscall.SIGCONT)
	_ = c.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-c.done:
		return nil
	case <-time.After(10 * time.Second):
		_ = c.cmd.Process.Kill()
		<-c.done
		return fmt.Errorf("%s did not exit within 10s of SIGTERM; killed", c.name)
	}
}

// stopComponents 以啟動的相反順序停止所有元件。
//
// stopComponents stops every component in the reverse order of starting.
func (cp *ControlPlane) stopComponents() error {
	var errs []error
	for i := len(cp.components) - 1; i >= 0; i-- {
		errs = append(errs, cp.components[i].stop())
	}
	cp.components = nil
	return errors.Join(errs...)
}

// kubeconfigOf 把一個 rest.Config 包成 kubeconfig，叢集、使用者與 context 都叫 name。
//
// kubeconfigOf wraps a rest.Config in a kubeconfig whose cluster, user and
// context are all called name.
func kubeconfigOf(c *rest.Config, name string) *clientcmdapi.Config {
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters[name] = &clientcmdapi.Cluster{Server: c.Host, CertificateAuthorityData: c.CAData}
	cfg.AuthInfos[name] = &clientcmdapi.AuthInfo{ClientCertificateData: c.CertData, ClientKeyData: c.KeyData}
	cfg.Contexts[name] = &clientcmdapi.Context{Cluster: name, AuthInfo: name, Namespace: "default"}
	cfg.CurrentContext = name
	return cfg
}

// Pause 暫停一個元件（SIGSTOP，並等它的每個執行緒都停下），回傳讓它繼續的函式（SIGCONT）。測試用它把 Pod 生命週期的
// 各個階段一個一個放出來，讓輸出的順序固定；Stop 之前記得讓它繼續。
//
// Pause stops a component in its tracks (SIGSTOP, then waits until each of
// its threads has stopped) and returns the function that lets it go on
// (SIGCONT). Tests use it to release a pod's lifecycle one
// stage at a time, so the output's order is fixed; resume it before Stop.
func (cp *ControlPlane) Pause(name string) (resume func() error, err error) {
	for _, c := range cp.components {
		if c.name == name {
			if err := c.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
				return nil, fmt.Errorf("pausing %s: %w", name, err)
			}
			if err := waitStopped(c.cmd.Process.Pid, 10*time.Second); err != nil {
				return nil, fmt.Errorf("pausing %s: %w", name, err)
			}
			return func() error { return c.cmd.Process.Signal(syscall.SIGCONT) }, nil
		}
	}
	return nil, fmt.Errorf("no component named %q (is this a realistic cluster?)", name)
}
