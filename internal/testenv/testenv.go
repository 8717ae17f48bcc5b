// Package testenv 讓一個測試套件共用真正的本機叢集。TestMain 呼叫 Main，啟動只有 API server 的叢集
// （快；Pod 停在 Pending）；需要 Pod 真實生命週期的測試再呼叫 Realistic，多一個有 controller-manager、
// scheduler 與 kwok 假節點的叢集。測試一開始就說它用哪一個：c := testenv.Plain(t) 或 testenv.Realistic(t)，
// 之後一律透過 c 的方法。找不到執行檔時直接失敗並說明原因，絕不默默略過。
//
// Package testenv gives a test package real local clusters. TestMain calls
// Main, which starts one with only an API server (fast; pods stay Pending);
// tests that need a pod's real life call Realistic for a second one with
// controller-manager, scheduler and kwok's fake node. A test says in its
// first line which it uses, c := testenv.Plain(t) or testenv.Realistic(t),
// and reaches it through c's methods from then on. Missing binaries fail
// loudly, never a silent skip.
package testenv

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"testing"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"

	"github.com/informer-walkthrough/informer-walkthrough/internal/controlplane"
)

// Cluster 是一個測試套件共用的本機叢集。
//
// Cluster is a local cluster shared by one test package.
type Cluster struct {
	plane     *controlplane.ControlPlane
	realistic bool
}

var (
	// mainRan 表示 Main 已經接手這個測試套件：Plain 與 Realistic 啟動的叢集，Main 在測試結束時會停掉。
	// mainRan says Main has taken over the test package: Main stops the clusters Plain and Realistic start once the
	// tests end.
	mainRan   bool
	plain     = &lazyCluster{name: "API-server-only cluster"}
	realistic = &lazyCluster{name: "realistic cluster", realistic: true}
	verbose   = os.Getenv("TESTENV_VERBOSE") != ""
)

// lazyCluster 是一個第一次要用時才啟動的叢集；Plain 與 Realistic 各有一個。
//
// lazyCluster is a cluster started on first use; Plain and Realistic each
// have one.
type lazyCluster struct {
	name      string
	realistic bool
	once      sync.Once
	cluster   *Cluster
	err       error
}

// get 回傳這個叢集，第一次呼叫時啟動；啟動失敗或沒有經過 Main 時讓測試失敗。
//
// get returns the cluster, starting it on the first call; it fails the test
// when the start failed or the package did not go through Main.
func (l *lazyCluster) get(t testing.TB) *Cluster {
	t.Helper()
	if !mainRan {
		t.Fatal("testenv: no control plane; call testenv.Main(m) from TestMain")
	}
	l.once.Do(func() {
		c, err := startCluster(l.realistic)
		stopMu.Lock()
		l.cluster, l.err = c, err
		stopMu.Unlock()
	})
	if l.err != nil {
		t.Fatalf("testenv: starting the %s: %v", l.name, l.err)
	}
	return l.cluster
}

// Main 包裝 testing.M.Run：跑完測試之後，停掉測試要求過的叢集（只有 API server 的、擬真的）。
//
// Main wraps testing.M.Run: once the tests have run, it stops the clusters
// they asked for (the API-server-only one, the realistic one).
func Main(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	flag.Parse()
	// client-go 在 API server 重新啟動時會寫 log；除非用 -v 要求，否則測試輸出不顯示。
	// client-go logs its retries while the API server restarts; keep test output quiet unless -v asks.
	if !testing.Verbose() {
		klog.SetOutput(io.Discard)
		klog.LogToStderr(false)
	}
	mainRan = true
	interrupted := make(chan os.Signal, 1)
	signal.Notify(interrupted, os.Interrupt, syscall.SIGTERM)
	go func() {
		<-interrupted
		fmt.Fprintln(os.Stderr, "testenv: interrupted; stopping the control plane")
		_ = stopAll()
		os.Exit(130)
	}()
	code := m.Run()
	if err := stopAll(); err != nil {
		fmt.Fprintf(os.Stderr, "testenv: stopping the control plane: %v\n", err)
		if code == 0 {
			code = 1
		}
	}
	return code
}

// BeforeRealisticComponents 若不是 nil，擬真叢集啟動時，在 API server 就緒之後、controller-manager 等元件啟動之前
// 執行一次（見 controlplane.Options 的 BeforeComponents）。在 TestMain 裡、呼叫 Main 之前設定。
//
// BeforeRealisticComponents runs once, when not nil, as the realistic
// cluster starts: after its API servers are ready and before
// controller-manager and the other components start (see
// controlplane.Options' BeforeComponents). Set it in TestMain, before
// calling Main.
var BeforeRealisticComponents func(cfg *rest.Config) error

func startCluster(realistic bool) (*Cluster, error) {
	start := time.Now()
	opts := controlplane.Options{Verbose: verbose, Realistic: realistic}
	if realistic {
		opts.BeforeComponents = BeforeRealisticComponents
	}
	plane, err := controlplane.Start(opts)
	if err != nil {
		return nil, err
	}
	if realistic {
		if err := plane.WaitForDefaultServiceAccount(context.Background(), "default"); err != nil {
			_ = plane.Stop()
			return nil, err
		}
	}
	if testing.Verbose() {
		fmt.Fprintf(os.Stderr, "testenv: cluster (realistic=%t) ready at %s in %s\n", realistic, plane.URL(), time.Since(start).Round(time.Millisecond))
	}
	return &Cluster{plane: plane, realistic: realistic}, nil
}

var stopMu sync.Mutex

func stopAll() error {
	stopMu.Lock()
	defer stopMu.Unlock()
	var errs []error
	for _, l := range []*lazyCluster{realistic, plain} {
		if c := l.cluster; c != nil && c.plane != nil {
			errs = append(errs, c.plane.Stop())
			c.plane = nil
		}
	}
	return errors.Join(errs...)
}

// Plain 回傳這個測試套件只有 API server 的叢集，第一次呼叫時啟動：用不到它的套件（只用擬真叢集的，
// 或 go test -run 挑出的幾個測試）就不必等它，也不必為它花 CPU。沒有經過 Main 就呼叫會讓測試失敗。
//
// Plain returns the package's API-server-only cluster, starting it on the
// first call: a package that has no use for it (one that uses only the
// realistic cluster, or the few tests go test -run picks) neither waits for
// it nor spends CPU on it. Calling it without Main fails the test.
func Plain(t testing.TB) *Cluster {
	t.Helper()
	return plain.get(t)
}

// Realistic 回傳這個測試套件的擬真叢集（Pod 會被排程、變成 Running），第一次呼叫時啟動。
//
// Realistic returns the package's realistic cluster (pods get scheduled and
// go Running), starting it on the first call.
func Realistic(t testing.TB) *Cluster {
	t.Helper()
	return realistic.get(t)
}

// FullTier 讓一個測試只在 full 組執行：在 go test -short（學習者的 scripts/test.sh，quick 組）底下會被略過，
// 並說出為什麼，以及怎麼執行它。CI 跑的是 full 組（TIER=full scripts/test.sh），那裡不會略過任何測試。
// why 說它為什麼放在 full 組：它比 quick 組的其他測試多證明了什麼，又花多少時間。
//
// FullTier runs a test in the full tier only: under go test -short (the
// learner's scripts/test.sh, the quick tier) it is skipped, saying why and
// how to run it. CI runs the full tier (TIER=full scripts/test.sh), where no
// test is skipped. why says why it belongs to the full tier: what it proves
// beyond the quick tier's other tests, and what it costs.
func FullTier(t testing.TB, why string) {
	t.Helper()
	if testing.Short() {
		t.Skipf("in the full tier only (%s); go test without -short, or TIER=full scripts/test.sh, runs it", why)
	}
}
