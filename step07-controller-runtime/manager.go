package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
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
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

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
	// leaderElectionID 是 Lease 的名字；測試換掉它，讓每個測試有自己的 Lease。
	// leaderElectionID names the Lease; tests change it so each has a Lease of its own.
	leaderElectionID string
}

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

// tallyEvents 是步驟 06 的 tally 處理函式換成 predicate：GenerationChangedPredicate 決定要不要 reconcile，
// 外面這一層只負責把決定印出來。控制器自己寫 status 之後，那次更新的 generation 沒變，就在這裡被擋下。
//
// tallyEvents is step 06's tally handler as a predicate:
// GenerationChangedPredicate decides whether to reconcile, and this wrapper
// only prints the decision. After the controller writes status, that
// update's generation is unchanged, and it stops here.
func tallyEvents(out io.Writer) predicate.Predicate {
	gen := predicate.GenerationChangedPredicate{}
	return predicate.Funcs{
		CreateFunc: func(e event.CreateEvent) bool {
			announce(out, e.IsInInitialList, "tallies", "OnAdd", show.Key(e.Object), fmt.Sprintf("generation %d: reconcile", e.Object.GetGeneration()),
				show.OpHandle, show.SawMeta(e.Object), show.Queued("workqueue"))
			return true
		},
		UpdateFunc: func(e event.UpdateEvent) bool {
			if gen.Update(e) {
				show.Line(out, "tallies", "OnUpdate", show.Key(e.ObjectNew), fmt.Sprintf("generation %d -> %d: reconcile", e.ObjectOld.GetGeneration(), e.ObjectNew.GetGeneration()),
					show.OpHandle, show.SawMeta(e.ObjectNew), show.Queued("workqueue"))
				return true
			}
			show.Line(out, "tallies", "OnUpdate", show.Key(e.ObjectNew), fmt.Sprintf("generation %d unchanged: GenerationChangedPredicate drops it", e.ObjectNew.GetGeneration()),
				show.OpSkip, show.SawMeta(e.ObjectNew))
			return false
		},
		DeleteFunc: func(e event.DeleteEvent) bool {
			show.Line(out, "tallies", "OnDelete", show.Key(e.Object), "reconcile", show.OpHandle, show.Gone(nil), show.Queued("workqueue"))
			return true
		},
	}
}

// announce 印出一個事件；初始清單的新增（IsInInitialList）只給即時頁面：兩個 informer 同時送出它們的初始清單，
// 誰先誰後沒有固定的順序，印出來的輸出就無法逐行比對。
//
// announce prints an event; the initial list's adds (IsInInitialList) go to
// the live page only: the two informers deliver their initial lists at the
// same time, in no fixed order, and printed they would make the output
// impossible to compare line by line.
func announce(out io.Writer, initial bool, source, what, key, detail string, fields ...show.Field) {
	if initial {
		show.Quiet(out, source, what, key, detail+" (initial list)", append(fields, show.Initial(true))...)
		return
	}
	show.Line(out, source, what, key, detail, fields...)
}

// podEvents 只讓改了標籤的更新通過（新增與刪除一律通過），跟步驟 06 的 podChanged 一樣；
// 被擋下的更新不印，只給即時頁面。
//
// podEvents lets through only updates that change labels (adds and deletes
// always pass), as step 06's podChanged does; the updates it drops are not
// printed, only sent to the live page.
func podEvents(out io.Writer) predicate.Predicate {
	return predicate.Funcs{
		CreateFunc: func(e event.CreateEvent) bool {
			announce(out, e.IsInInitialList, "pods", "OnAdd", show.Key(e.Object), "labels="+show.Labels(e.Object.GetLabels())+": map to tallies",
				show.OpHandle, show.SawMeta(e.Object))
			return true
		},
		UpdateFunc: func(e event.UpdateEvent) bool {
			if labels.Equals(e.ObjectOld.GetLabels(), e.ObjectNew.GetLabels()) {
				show.Quiet(out, "pods", "OnUpdate", show.Key(e.ObjectNew), "labels unchanged: dropped by the predicate", show.OpSkip, show.SawMeta(e.ObjectNew))
				return false
			}
			show.Line(out, "pods", "OnUpdate", show.Key(e.ObjectNew), fmt.Sprintf("labels %s -> %s: map to tallies", show.Labels(e.ObjectOld.GetLabels()), show.Labels(e.ObjectNew.GetLabels())),
				show.OpHandle, show.SawMeta(e.ObjectNew))
			return true
		},
		DeleteFunc: func(e event.DeleteEvent) bool {
			show.Line(out, "pods", "OnDelete", show.Key(e.Object), "labels="+show.Labels(e.Object.GetLabels())+": map to tallies", show.OpHandle, show.Gone(nil))
			return true
		},
	}
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
	id := leaseName(opts)
	renew, retryPeriod := opts.leaseDuration*2/3, opts.leaseDuration/5
	return manager.New(cfg, manager.Options{
		Scheme: scheme,
		Logger: logger,
		Cache: cache.Options{
			// 步驟 05 的 WithNamespace：每種型別都只看這個 namespace。 / Step 05's WithNamespace: every type watches this namespace only.
			DefaultNamespaces: map[string]cache.Config{namespace: {}},
			// 步驟 05 的 WithTransform：丟掉 managedFields，套用到每種型別。 / Step 05's WithTransform, dropping managedFields, for every type.
			DefaultTransform: cache.TransformStripManagedFields(),
			// ByObject 讓一種型別有自己的範圍（namespace、標籤或欄位選擇器）；這裡把 tally 的 namespace 寫明。
			// ByObject gives one type a scope of its own (namespaces, a label or field selector); here it spells out the tallies'.
			ByObject: map[client.Object]cache.ByObject{
				&labv1alpha1.PodTally{}: {Namespaces: map[string]cache.Config{namespace: {}}},
			},
		},
		Metrics:                       metricsserver.Options{BindAddress: opts.metricsAddr},
		HealthProbeBindAddress:        "0",
		LeaderElection:                opts.leaderElect,
		LeaderElectionID:              id,
		LeaderElectionNamespace:       namespace,
		LeaderElectionReleaseOnCancel: true,
		LeaseDuration:                 &opts.leaseDuration,
		RenewDeadline:                 &renew,
		RetryPeriod:                   &retryPeriod,
		Controller:                    config.Controller{MaxConcurrentReconciles: opts.workers, SkipNameValidation: new(true)},
	})
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

// setUp 把 TallyReconciler 接到 manager 上：For 是 tally（加上會把判斷印出來的 GenerationChangedPredicate），
// Watches 是只看 metadata 的 Pod，透過 map 函式變成 tally 的 Request。
//
// setUp wires TallyReconciler into the manager: For the tally (with the
// GenerationChangedPredicate that prints its decisions), Watches pods,
// metadata only, turned into tally Requests by the map function.
func setUp(mgr manager.Manager, opts options, out io.Writer, ready <-chan struct{}) error {
	r := &TallyReconciler{Client: mgr.GetClient(), APIReader: mgr.GetAPIReader(), Recount: opts.recount, Out: out, Ready: ready}
	return builder.ControllerManagedBy(mgr).
		Named("podtally").
		For(&labv1alpha1.PodTally{}, builder.WithPredicates(tallyEvents(out))).
		Watches(podsMeta(), handler.EnqueueRequestsFromMapFunc(r.tallyFor), builder.OnlyMetadata, builder.WithPredicates(podEvents(out))).
		WithOptions(controller.Options{MaxConcurrentReconciles: opts.workers}).
		Complete(observed(r, out))
}

// observed 包住 Reconciler，讓即時頁面看到每次 Reconcile 什麼時候開始、什麼時候結束（不印出來）：
// controller-runtime 的 worker 與佇列在它自己裡面，步驟看得到的就是這兩個時刻。
//
// observed wraps the Reconciler so the live page sees when each Reconcile
// begins and ends (nothing printed): controller-runtime's workers and queue
// are inside it, and these two moments are what the step can see.
func observed(r reconcile.Reconciler, out io.Writer) reconcile.Reconciler {
	return reconcile.Func(func(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
		show.Quiet(out, "podtally", "Get", req.String(), "Reconcile begins", show.OpGet)
		res, err := r.Reconcile(ctx, req)
		show.Quiet(out, "podtally", "Done", req.String(), "Reconcile returned", show.OpDone)
		return res, err
	})
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
	mgr, err := newManager(cfg, namespace, opts, logger)
	if err != nil {
		return err
	}
	ready := make(chan struct{})
	if err := setUp(mgr, opts, out, ready); err != nil {
		return err
	}
	mode := "no leader election: this replica reconciles"
	if opts.leaderElect {
		mode = fmt.Sprintf("leader election on Lease %s/%s: reconciling only while leader", namespace, leaseName(opts))
	}
	show.Note(out, "manager for namespace %q: PodTally with GenerationChangedPredicate, pods metadata-only through a map function; %s (Ctrl-C to stop)", namespace, mode)
	// 每個副本都要說出自己的快取何時同步好，不論是不是 leader：這個 runnable 不需要 leader election。
	// Every replica says when its caches have synced, leader or not: this runnable needs no leader election.
	if err := mgr.Add(synced{mgr: mgr, out: out, ready: ready}); err != nil {
		return err
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
	err = mgr.Start(ctx)
	show.Note(out, "workers stopped; the manager has shut down")
	return err
}

// synced 等 tally 與 Pod 的 informer 同步之後印一行。GetInformer 在快取啟動之後會等到同步；
// NeedLeaderElection 回傳 false，所以每個副本都會執行它。
//
// synced prints a line once the tally and pod informers have synced.
// GetInformer, once the cache runs, waits for the sync; NeedLeaderElection
// returns false, so every replica runs it.
type synced struct {
	mgr   manager.Manager
	out   io.Writer
	ready chan struct{}
}

func (s synced) NeedLeaderElection() bool { return false }

func (s synced) Start(ctx context.Context) error {
	for _, obj := range []client.Object{&labv1alpha1.PodTally{}, podsMeta()} {
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

// leaseName 是 leader election 用的 Lease 的名字。 / leaseName names the Lease leader election uses.
func leaseName(opts options) string {
	if opts.leaderElectionID != "" {
		return opts.leaderElectionID
	}
	return "podtally-controller-runtime"
}
