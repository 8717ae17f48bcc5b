// localcluster 是 scripts/cluster-up.sh 在沒有 Docker 時使用的本機叢集：
// 它啟動真正的 etcd、kube-apiserver、kube-controller-manager、kube-scheduler，
// 以及代替 kubelet 的 kwok（一個假節點），直到收到 SIGTERM 才把它們全部停掉。
// 學習者不直接執行它，而是透過 scripts/cluster-up.sh 與 cluster-down.sh。
//
// localcluster is the local cluster that scripts/cluster-up.sh uses when
// Docker is absent: it runs a real etcd, kube-apiserver,
// kube-controller-manager and kube-scheduler, plus kwok standing in for the
// kubelet (one fake node), until SIGTERM, then stops them all. Learners do
// not run it directly, but through scripts/cluster-up.sh and
// scripts/cluster-down.sh.
//
//	localcluster serve  --dir DIR [--port N] --name CONTEXT
//	localcluster ready  --dir DIR
//	localcluster use    --dir DIR --name CONTEXT   (add the context to the user's kubeconfig)
//	localcluster forget --name CONTEXT             (remove it again)
//	localcluster restart --dir DIR [-n NAMESPACE] [--delete [KIND/]NAME]
//	                                               (restart kube-apiserver on the same etcd; scripts/restart-apiserver.sh)
package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"syscall"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	memory "k8s.io/client-go/discovery/cached"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/informer-walkthrough/informer-walkthrough/internal/controlplane"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: localcluster serve|ready|use|forget [flags]")
		os.Exit(2)
	}
	fs := flag.NewFlagSet(os.Args[1], flag.ExitOnError)
	dir := fs.String("dir", "", "state directory (certificates, etcd data, kubeconfig)")
	port := fs.Int("port", 0, "kube-apiserver port on 127.0.0.1 (0: a free port)")
	name := fs.String("name", "local-informer-lab", "kubeconfig context, cluster and user name")
	namespace := fs.String("n", "default", "restart: the namespace of --delete's pod")
	deletePod := fs.String("delete", "", "restart: delete this object while kube-apiserver is down (KIND/NAME, or a pod's NAME), through the second API server on the same etcd")
	_ = fs.Parse(os.Args[2:])

	var err error
	switch os.Args[1] {
	case "serve":
		err = serve(*dir, *port, *name)
	case "ready":
		err = ready(*dir)
	case "use":
		err = use(*dir, *name)
	case "forget":
		err = forget(*name)
	case "restart":
		err = restart(*dir, *namespace, *deletePod)
	default:
		err = fmt.Errorf("unknown command %q", os.Args[1])
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "localcluster: %v\n", err)
		os.Exit(1)
	}
}

func kubeconfigPath(dir string) string { return filepath.Join(dir, "kubeconfig") }

// serve 啟動控制平面、寫出 kubeconfig，然後等待 SIGTERM 或 SIGINT。
//
// serve starts the control plane, writes its kubeconfig, then waits for
// SIGTERM or SIGINT.
func serve(dir string, port int, name string) error {
	if dir == "" {
		return errors.New("serve needs --dir")
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	start := time.Now()
	cp, err := controlplane.Start(controlplane.Options{Port: port, Dir: filepath.Join(dir, "data"), Realistic: true})
	if err != nil {
		return err
	}
	defer func() {
		fmt.Println("localcluster: stopping kwok, kube-scheduler, kube-controller-manager, kube-apiserver and etcd")
		if err := cp.Stop(); err != nil {
			fmt.Fprintf(os.Stderr, "localcluster: %v\n", err)
		}
	}()
	if err := cp.WriteKubeconfig(kubeconfigPath(dir), name); err != nil {
		return err
	}
	ln, err := listenControl(dir, cp)
	if err != nil {
		return err
	}
	defer ln.Close()
	t := cp.Timings
	fmt.Printf("localcluster: kube-apiserver ready at %s, node %s Ready, after %s (API server %s, then node Ready %s)\n",
		cp.URL(), controlplane.NodeName, time.Since(start).Round(100*time.Millisecond),
		t.APIServer.Round(100*time.Millisecond), t.NodeReady.Round(100*time.Millisecond))
	// 只是記下來：default ServiceAccount 什麼時候出現（ServiceAccount admission 會等它，不必擋住 cluster-up）。
	// Only for the record: when the default ServiceAccount appeared (ServiceAccount admission waits for it; cluster-up need not).
	if err := cp.WaitForDefaultServiceAccount(ctx, "default"); err == nil {
		fmt.Printf("localcluster: default ServiceAccount %s after the API server was ready\n", cp.Timings.ServiceAccount.Round(100*time.Millisecond))
	}
	<-ctx.Done()
	return nil
}

func controlSocket(dir string) string { return filepath.Join(dir, "control.sock") }

// listenControl 在狀態目錄裡開一個 Unix socket，讓 localcluster restart 請這個行程
// 重新啟動 kube-apiserver：只有這個行程握有控制平面。一次只處理一個請求。
//
// listenControl opens a Unix socket in the state directory through which
// localcluster restart asks this process to restart kube-apiserver: only this
// process holds the control plane. One request at a time.
func listenControl(dir string, cp *controlplane.ControlPlane) (net.Listener, error) {
	_ = os.Remove(controlSocket(dir))
	ln, err := net.Listen("unix", controlSocket(dir))
	if err != nil {
		return nil, err
	}
	var mu sync.Mutex
	mux := http.NewServeMux()
	mux.HandleFunc("POST /restart", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		say := func(format string, args ...any) {
			fmt.Fprintf(w, format+"\n", args...)
			w.(http.Flusher).Flush()
			fmt.Printf("localcluster: "+format+"\n", args...)
		}
		ns, object := r.URL.Query().Get("namespace"), r.URL.Query().Get("delete")
		var target *doomed
		if object != "" {
			var err error
			// 先確認叢集有這種資源：錯的 KIND 是一行錯誤，不會白白重新啟動一次。
			// Check first that the cluster serves the kind: a wrong KIND is one error line, not a wasted restart.
			if target, err = resolve(cp.Config, object); err != nil {
				say("error: %v", err)
				return
			}
		}
		start := time.Now()
		say("stopping kube-apiserver (etcd keeps running; the second API server on the same etcd stands in)")
		err := cp.RestartAPIServer(func(other *rest.Config) error {
			if target == nil {
				return nil
			}
			if err := target.delete(r.Context(), other, ns); err != nil {
				return fmt.Errorf("while kube-apiserver was down: %w", err)
			}
			say("deleted %s %s/%s while kube-apiserver was down", target.gvr.GroupResource(), ns, target.name)
			return nil
		})
		if err != nil {
			say("error: %v", err)
			return
		}
		say("kube-apiserver is back at %s after %s", cp.URL(), time.Since(start).Round(100*time.Millisecond))
	})
	go func() { _ = http.Serve(ln, mux) }()
	return ln, nil
}

// doomed 是 --delete 要刪的物件：解析過的資源與名稱。
//
// doomed is the object --delete removes: the resolved resource and the name.
type doomed struct {
	gvr  schema.GroupVersionResource
	name string
}

// resolve 解析 --delete 的值：KIND/NAME（kubectl 認得的寫法，例如 configmap/x、deploy/web、deployment.apps/web），
// 只有 NAME 時是一個 Pod。資源必須存在而且有 namespace。
//
// resolve parses --delete's value: KIND/NAME (as kubectl spells it, such as
// configmap/x, deploy/web, deployment.apps/web), or a pod when only NAME is
// given. The resource must exist and be namespaced.
func resolve(cfg *rest.Config, object string) (*doomed, error) {
	kind, name, ok := strings.Cut(object, "/")
	if !ok {
		kind, name = "pods", object
	}
	if name == "" || strings.Contains(name, "/") {
		return nil, fmt.Errorf("--delete %q: want KIND/NAME or a pod's NAME", object)
	}
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return nil, err
	}
	mapper := restmapper.NewShortcutExpander(restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(dc)), dc, nil)
	gvr, err := mapper.ResourceFor(schema.ParseGroupResource(kind).WithVersion(""))
	if err != nil {
		return nil, fmt.Errorf("--delete %q: the cluster serves no resource %q", object, kind)
	}
	gvk, err := mapper.KindFor(gvr)
	if err != nil {
		return nil, err
	}
	mapping, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		return nil, err
	}
	if mapping.Scope.Name() != meta.RESTScopeNameNamespace {
		return nil, fmt.Errorf("--delete %q: %s are not namespaced; only namespaced objects can be deleted here", object, gvr.Resource)
	}
	return &doomed{gvr: gvr, name: name}, nil
}

// delete 以寬限期 0 刪除物件，停機期間就刪完。
//
// delete deletes the object with grace period 0, so it is gone during the
// outage.
func (d *doomed) delete(ctx context.Context, cfg *rest.Config, namespace string) error {
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return err
	}
	return dyn.Resource(d.gvr).Namespace(namespace).Delete(ctx, d.name, metav1.DeleteOptions{GracePeriodSeconds: new(int64)})
}

// restart 請執行中的 localcluster serve 重新啟動 kube-apiserver，並印出它一路回報的進度。
//
// restart asks the running localcluster serve to restart kube-apiserver and
// prints the progress it reports on the way.
func restart(dir, namespace, object string) error {
	if dir == "" {
		return errors.New("restart needs --dir")
	}
	client := &http.Client{Transport: &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			return (&net.Dialer{}).DialContext(ctx, "unix", controlSocket(dir))
		},
	}}
	q := url.Values{"namespace": {namespace}, "delete": {object}}
	resp, err := client.Post("http://localcluster/restart?"+q.Encode(), "text/plain", nil)
	if err != nil {
		return fmt.Errorf("the local cluster does not answer (is it up? scripts/cluster-up.sh): %w", err)
	}
	defer resp.Body.Close()
	lines := bufio.NewScanner(resp.Body)
	failed := false
	for lines.Scan() {
		line := lines.Text()
		failed = failed || strings.HasPrefix(line, "error: ")
		fmt.Println("restart-apiserver: " + line)
	}
	if failed {
		// 錯誤已經在上面那一行說過了。 / The error line above already said it.
		os.Exit(1)
	}
	return lines.Err()
}

// ready 向 /readyz 問一次；API server 回應 ok 時才以 0 結束。
//
// ready asks /readyz once and exits 0 only when the API server answers ok.
func ready(dir string) error {
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfigPath(dir))
	if err != nil {
		return err
	}
	cfg.Timeout = 2 * time.Second
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	body, err := cs.Discovery().RESTClient().Get().AbsPath("/readyz").DoRaw(context.Background())
	if err != nil {
		return fmt.Errorf("not ready: %w", err)
	}
	if string(body) != "ok" {
		return fmt.Errorf("not ready: %s", body)
	}
	return nil
}

// userKubeconfig 是 kubectl 會用的那個檔案：$KUBECONFIG 的第一個檔案，
// 否則 ~/.kube/config。kind 也寫同一個檔案。
//
// userKubeconfig is the file kubectl would use: the first file in
// $KUBECONFIG, else ~/.kube/config. kind writes the same file.
func userKubeconfig() (string, *clientcmdapi.Config, error) {
	path := clientcmd.NewDefaultClientConfigLoadingRules().GetDefaultFilename()
	cfg, err := clientcmd.LoadFromFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return path, clientcmdapi.NewConfig(), nil
	}
	return path, cfg, err
}

// equal 比較兩個 kubeconfig 項目的內容（LocationOfOrigin 這類載入時才填的欄位除外）。
//
// equal compares two kubeconfig entries by content (fields filled in on
// loading, such as LocationOfOrigin, aside).
func equal[T any](a, b *T) bool {
	if a == nil || b == nil {
		return a == b
	}
	ca, cb := *a, *b
	clearOrigin(&ca)
	clearOrigin(&cb)
	return reflect.DeepEqual(ca, cb)
}

func clearOrigin(v any) {
	switch e := v.(type) {
	case *clientcmdapi.Cluster:
		e.LocationOfOrigin = ""
	case *clientcmdapi.AuthInfo:
		e.LocationOfOrigin = ""
	case *clientcmdapi.Context:
		e.LocationOfOrigin = ""
	}
}

// use 把本機叢集的 context 合併進使用者的 kubeconfig 並設為目前的 context，
// 就像 kind create cluster 做的那樣。檔案權限 0600。
//
// use merges the local cluster's context into the user's kubeconfig and makes
// it current, as kind create cluster does. File mode 0600.
func use(dir, name string) error {
	local, err := clientcmd.LoadFromFile(kubeconfigPath(dir))
	if err != nil {
		return err
	}
	path, cfg, err := userKubeconfig()
	if err != nil {
		return err
	}
	// 已經一模一樣而且是目前的 context：什麼都不寫，也不說，cluster-up.sh 的第二次執行才真的什麼都沒做。
	// Already identical and current: write nothing and say nothing, so a second cluster-up.sh really changes nothing.
	if cfg.CurrentContext == name && equal(cfg.Clusters[name], local.Clusters[name]) &&
		equal(cfg.AuthInfos[name], local.AuthInfos[name]) && equal(cfg.Contexts[name], local.Contexts[name]) {
		return nil
	}
	cfg.Clusters[name] = local.Clusters[name]
	cfg.AuthInfos[name] = local.AuthInfos[name]
	cfg.Contexts[name] = local.Contexts[name]
	cfg.CurrentContext = name
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		return err
	}
	if err := os.Chmod(path, 0o600); err != nil {
		return err
	}
	fmt.Printf("localcluster: context %q written to %s and made current\n", name, path)
	return nil
}

// forget 從使用者的 kubeconfig 移除這個 context；本來就沒有也不算錯。
//
// forget removes the context from the user's kubeconfig; its absence is not
// an error.
func forget(name string) error {
	path, cfg, err := userKubeconfig()
	if err != nil {
		return err
	}
	if _, ok := cfg.Contexts[name]; !ok {
		return nil
	}
	delete(cfg.Clusters, name)
	delete(cfg.AuthInfos, name)
	delete(cfg.Contexts, name)
	if cfg.CurrentContext == name {
		cfg.CurrentContext = ""
	}
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		return err
	}
	fmt.Printf("localcluster: context %q removed from %s\n", name, path)
	return nil
}
