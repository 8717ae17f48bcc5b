package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/discovery"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/informer-walkthrough/informer-walkthrough/internal/cli"
	"github.com/informer-walkthrough/informer-walkthrough/internal/show"
	labv1alpha1 "github.com/informer-walkthrough/informer-walkthrough/step06-custom-resource/apis/lab/v1alpha1"
)

// options 是這一步的旗標。 / options are this step's flags.
type options struct {
	workers       int
	leaderElect   bool
	leaseDuration time.Duration
	metricsAddr   string
	recount       time.Duration
	// rereadOnConflict：409 Conflict 之後透過 APIReader 重讀，而不是回傳錯誤（見 conflict.go）。
	// rereadOnConflict: after a 409 Conflict, read again through the APIReader rather than return the error (see conflict.go).
	rereadOnConflict bool
	// syncPeriod 是 manager 快取的 SyncPeriod（0：controller-runtime 的預設，10 小時）；reconcileResyncs 讓
	// tally 的 predicate 放行 resync。
	// syncPeriod is the manager cache's SyncPeriod (0: controller-runtime's default, 10 hours); reconcileResyncs has
	// the tally predicate let resyncs through.
	syncPeriod       time.Duration
	reconcileResyncs bool
	// readService 與 failOnMissingInformer 是演練「沒有要求的 informer」（見 peek.go）。
	// readService and failOnMissingInformer are the drill "the informer you did not ask for" (see peek.go).
	readService           string
	failOnMissingInformer bool
	// stamp 與 noPredicate 是演練「reconcile 風暴」（見 storm.go）。 / stamp and noPredicate are the drill "a reconcile storm" (see storm.go).
	stamp       bool
	noPredicate bool
	// showLease 是演練「被凍住的 leader，計時」：沒當上 leader 的副本每秒印出 Lease 上次續約距今多久（見 lease.go）。
	// showLease is the drill "a frozen leader, timed": a replica that is not the leader prints the Lease's age every
	// second (see lease.go).
	showLease bool
	// watchDelay 與 readYourWrites 是演練「讀回自己的寫入」（見 readback.go）。
	// watchDelay and readYourWrites are the drill "reading your own write" (see readback.go).
	watchDelay     time.Duration
	readYourWrites bool
	// why 是演練「這次 Reconcile 為什麼會跑？」（見 why.go）。 / why is the drill "why did this Reconcile run?" (see why.go).
	why bool
}

// skipNameValidation 在程式裡是 false：一個程式只有一個 manager、一個叫 podtally 的控制器。
// 測試在同一個行程裡替每個測試啟動一個 manager，而 controller-runtime 不讓第二個同名的控制器出現，
// 除非叫它略過這個檢查（config.Controller.SkipNameValidation）；測試把這個值設成 true（reconciler_test.go 的 TestMain）。
//
// skipNameValidation is false in the program: one program, one manager, one
// controller named podtally. The tests start a manager per test in one
// process, and controller-runtime refuses a second controller of the same
// name unless told to skip the check (config.Controller.SkipNameValidation);
// the tests set this to true (TestMain in reconciler_test.go).
var skipNameValidation = false

// podsMeta 是「只有 metadata 的 Pod」：controller-runtime 靠 GVK 認出它，快取與 client 都用它，
// 不可以再用 *corev1.Pod 讀同一種資源，否則會多出第二個、完整的 Pod 快取。
//
// podsMeta is "a pod, metadata only": controller-runtime recognises it by
// its GVK, and both the cache and the client use it; reading the same
// resource as *corev1.Pod as well would add a second, full pod cache.
func podsMeta() *metav1.PartialObjectMetadata {
	p := &metav1.PartialObjectMetadata{}
	p.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("Pod"))
	return p
}

// newManager 建立 manager：它的快取就是步驟 05 的共享 informer（每種型別一個），client 從快取讀、
// 直接寫到 API server。
//
// newManager builds the manager: its cache is step 05's shared informers
// (one per type), and its client reads from the cache and writes to the API
// server.
func newManager(cfg *rest.Config, namespace string, opts options, logger logr.Logger) (manager.Manager, error) {
	scheme, err := newScheme()
	if err != nil {
		return nil, err
	}
	renew, retryPeriod := opts.leaseDuration*2/3, opts.leaseDuration/5
	return manager.New(cfg, manager.Options{
		Scheme: scheme,
		Logger: logger,
		Cache: cache.Options{
			// 步驟 05 的 WithNamespace：每種型別都只看這個 namespace。 / Step 05's WithNamespace: every type watches this namespace only.
			DefaultNamespaces: map[string]cache.Config{namespace: {}},
			// 每個 informer 的 resync 週期（controller-runtime 讓每個 informer 上下最多差 10 %）；nil 是 10 小時。
			// Every informer's resync period (controller-runtime varies it by up to 10% either way, per informer); nil means 10 hours.
			SyncPeriod: syncPeriod(opts.syncPeriod),
			// true 時，對沒有 informer 的型別讀取直接失敗，不替它啟動一個（見 peek.go）。
			// When true, a read of a type with no informer fails instead of starting one (see peek.go).
			ReaderFailOnMissingInformer: opts.failOnMissingInformer,
			// 步驟 05 的 WithTransform：丟掉 managedFields，套用到每種型別。 / Step 05's WithTransform, dropping managedFields, for every type.
			DefaultTransform: cache.TransformStripManagedFields(),
			// ByObject 讓一種型別有自己的範圍（namespace、標籤或欄位選擇器）：這裡把 tally 的 namespace 寫明；
			// ConfigMap 只放帶著 managed-by 標籤的（報告與索引），Owns 不必把 namespace 裡每個 ConfigMap 都放進記憶體。
			// ByObject gives one type a scope of its own (namespaces, a label or field selector): here it spells out
			// the tallies' namespace, and caches only the ConfigMaps with the managed-by label (the reports and the
			// index), so Owns does not hold every ConfigMap of the namespace in memory.
			ByObject: map[client.Object]cache.ByObject{
				&labv1alpha1.PodTally{}: {Namespaces: map[string]cache.Config{namespace: {}}},
				&corev1.ConfigMap{}:     {Label: labels.SelectorFromSet(managedBy)},
			},
		},
		// 實驗性、預設關閉：快取的 client 讀取之前，先等快取看見這個 client 自己的寫入（pkg/client/consistency.go）。
		// Experimental and off by default: before a read, the cached client waits until the cache has seen this
		// client's own writes (pkg/client/consistency.go).
		Client:                        client.Options{Cache: &client.CacheOptions{EnableReadYourWritesConsistency: &opts.readYourWrites}},
		Metrics:                       metricsserver.Options{BindAddress: opts.metricsAddr},
		HealthProbeBindAddress:        "0",
		LeaderElection:                opts.leaderElect,
		LeaderElectionID:              leaseName,
		LeaderElectionNamespace:       namespace,
		LeaderElectionReleaseOnCancel: true,
		LeaseDuration:                 &opts.leaseDuration,
		RenewDeadline:                 &renew,
		RetryPeriod:                   &retryPeriod,
		// 同時執行幾個 Reconcile：這個 manager 的每個控制器都用它，只在這裡設定一次。
		// How many Reconciles run at once: every controller of this manager uses it, set here once.
		Controller: config.Controller{MaxConcurrentReconciles: opts.workers, SkipNameValidation: &skipNameValidation},
	})
}

// syncPeriod 把旗標變成 cache.Options.SyncPeriod：0 表示不設（controller-runtime 的預設）。
//
// syncPeriod turns the flag into cache.Options.SyncPeriod: 0 leaves it unset
// (controller-runtime's default).
func syncPeriod(d time.Duration) *time.Duration {
	if d == 0 {
		return nil
	}
	return &d
}

// newScheme 是 client-go 的內建型別加上 PodTally：manager 的 client 靠它把 Go 型別對應到 GVK。
//
// newScheme is client-go's built-in types plus PodTally: the manager's
// client maps Go types to GVKs with it.
func newScheme() (*runtime.Scheme, error) {
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		return nil, err
	}
	return scheme, labv1alpha1.AddToScheme(scheme)
}

// run 確認步驟 06 的 CRD 已經安裝，建立 manager，等快取同步後說一聲，然後執行到 ctx 結束。
// 有 --leader-elect 時，每個副本的快取都會同步，只有被選上的那一個 reconcile。
//
// run checks that step 06's CRD is installed, builds the manager, says so
// once the caches have synced, and runs until ctx ends. With --leader-elect,
// every replica's caches sync, and only the elected one reconciles.
func run(ctx context.Context, cfg *rest.Config, namespace string, opts options, out io.Writer) error {
	// controller-runtime 的 log（也包括它的 informer 的 Reflector 說的 "Failed to watch"）只在 -v 1 以上才印：
	// 平常每次 reconcile 一行就夠了。
	// controller-runtime's log (its informers' Reflector "Failed to watch" lines included) only from -v 1 up:
	// otherwise one line per reconcile is enough.
	logger := logr.Discard()
	if klog.V(1).Enabled() {
		logger = klog.Background()
	}
	ctrllog.SetLogger(logger)
	// 先問 discovery：CRD 沒裝時這裡就說清楚，而不是讓 manager 在建立快取時失敗、或 informer 一再重試。
	// Ask discovery first: a missing CRD is said plainly here, instead of the manager failing to build its cache
	// or an informer retrying forever.
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return err
	}
	if _, err := dc.ServerResourcesForGroupVersion(labv1alpha1.SchemeGroupVersion.String()); err != nil {
		if apierrors.IsNotFound(err) {
			return fmt.Errorf("the API server does not serve %s: install the CRD first with go run ./step06-custom-resource, or apply step06-custom-resource/crd/lab.informer-walkthrough.github.io_podtallies.yaml", labv1alpha1.SchemeGroupVersion)
		}
		return err
	}
	if opts.metricsAddr != "0" {
		// manager 要到 Start 才接聽；先試一次，埠被占用時在說「manager 開始了」之前就是一行錯誤。
		// The manager listens only in Start; try first, so a port in use is one error line before any "manager" line.
		ln, err := net.Listen("tcp", opts.metricsAddr)
		if err != nil {
			return fmt.Errorf("--metrics-bind-address %s: %v", opts.metricsAddr, errors.Unwrap(err))
		}
		if err := ln.Close(); err != nil {
			return err
		}
	}
	if opts.watchDelay > 0 {
		cfg = cli.HoldWatches(cfg, opts.watchDelay)
	}
	mgr, err := newManager(cfg, namespace, opts, logger)
	if err != nil {
		return err
	}
	r := &TallyReconciler{Client: mgr.GetClient(), Scheme: mgr.GetScheme(), Recount: opts.recount, ReconcileResyncs: opts.reconcileResyncs, ReadService: opts.readService, Stamp: opts.stamp, NoPredicate: opts.noPredicate, Out: out, why: newWhyLog(opts.why)}
	if opts.watchDelay > 0 {
		r.Client = readBackClient{Client: r.Client, out: out}
	}
	if opts.rereadOnConflict {
		r.APIReader = mgr.GetAPIReader()
	}
	ready := make(chan struct{})
	if err := r.setUp(mgr, ready); err != nil {
		return err
	}
	mode := "no leader election: this replica reconciles"
	if opts.leaderElect {
		mode = fmt.Sprintf("leader election on Lease %s/%s: reconciling only while leader", namespace, leaseName)
	}
	predicate := "GenerationChangedPredicate"
	if opts.noPredicate {
		predicate = "no predicate"
	}
	show.Note(out, "manager for namespace %q: PodTally with %s, owning its report ConfigMap, pods metadata-only through a map function; %s (Ctrl-C to stop)", namespace, predicate, mode)
	// 每個副本都要說出自己的快取何時同步好，不論是不是 leader：這個 runnable 不需要 leader election。
	// Every replica says when its caches have synced, leader or not: this runnable needs no leader election.
	if err := mgr.Add(synced{mgr: mgr, out: out, ready: ready}); err != nil {
		return err
	}
	if opts.leaderElect && opts.showLease {
		if err := mgr.Add(leaseAge{mgr: mgr, namespace: namespace, opts: opts, out: out}); err != nil {
			return err
		}
	}
	if opts.leaderElect {
		go func() {
			select {
			case <-mgr.Elected():
				show.Note(out, "elected leader: reconciling from now on")
			case <-ctx.Done():
			}
		}()
	}
	// 演練「reconcile 風暴」時，每秒說一次這一秒有幾次 Reconcile；manager 停下之後它也停下，才印最後一行。
	// During the drill "a reconcile storm", say every second how many Reconciles that second had; it stops with the
	// manager, before the last line is printed.
	var rate sync.WaitGroup
	if opts.stamp || opts.noPredicate {
		rate.Go(func() { reconcileRate(ctx, out) })
	}
	err = mgr.Start(ctx)
	rate.Wait()
	show.Note(out, "workers stopped; the manager has shut down")
	return err
}

// synced 等 tally、Pod 與 ConfigMap 的 informer 同步之後印一行。GetInformer 在快取啟動之後會等到同步；
// NeedLeaderElection 回傳 false，所以每個副本都會執行它。
//
// synced prints a line once the tally, pod and ConfigMap informers have synced.
// GetInformer, once the cache runs, waits for the sync; NeedLeaderElection
// returns false, so every replica runs it.
type synced struct {
	mgr   manager.Manager
	out   io.Writer
	ready chan struct{}
}

func (s synced) NeedLeaderElection() bool { return false }

func (s synced) Start(ctx context.Context) error {
	for _, obj := range []client.Object{&labv1alpha1.PodTally{}, podsMeta(), &corev1.ConfigMap{}} {
		if _, err := s.mgr.GetCache().GetInformer(ctx, obj); err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
	}
	show.Note(s.out, "caches synced in this replica; watching from there")
	close(s.ready)
	return nil
}

// leaseName 是 leader election 用的 Lease 的名字（在控制器的 namespace 裡）。 / leaseName names the Lease leader election uses (in the controller's namespace).
const leaseName = "podtally-controller-runtime"
