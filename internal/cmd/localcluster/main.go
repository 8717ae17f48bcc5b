// localcluster 是 scripts/cluster-up.sh 在沒有 Docker 時使用的本機叢集：
// 它啟動真正的 etcd 與 kube-apiserver，直到收到 SIGTERM 才把兩者停掉。
// 一般使用者不直接執行它，而是透過 scripts/cluster-up.sh 與 cluster-down.sh。
//
// localcluster is the local cluster that scripts/cluster-up.sh uses when
// Docker is absent: it runs a real etcd and kube-apiserver until SIGTERM, then
// stops both. Learners do not run it directly, but through
// scripts/cluster-up.sh and scripts/cluster-down.sh.
//
//	localcluster serve  --dir DIR [--port N] --name CONTEXT
//	localcluster ready  --dir DIR
//	localcluster use    --dir DIR --name CONTEXT   (add the context to the user's kubeconfig)
//	localcluster forget --name CONTEXT             (remove it again)
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"k8s.io/client-go/kubernetes"
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
	cp, err := controlplane.Start(controlplane.Options{Port: port, Dir: filepath.Join(dir, "data")})
	if err != nil {
		return err
	}
	defer func() {
		fmt.Println("localcluster: stopping kube-apiserver and etcd")
		if err := cp.Stop(); err != nil {
			fmt.Fprintf(os.Stderr, "localcluster: %v\n", err)
		}
	}()
	if err := cp.WriteKubeconfig(kubeconfigPath(dir), name); err != nil {
		return err
	}
	fmt.Printf("localcluster: kube-apiserver ready at %s after %s\n", cp.URL(), time.Since(start).Round(100*time.Millisecond))
	<-ctx.Done()
	return nil
}

// ready 向 /readyz 問一次；API server 回答 ok 時才以 0 結束。
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
