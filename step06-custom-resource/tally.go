package main

import (
	"context"
	"fmt"
	"io"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiextensions "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/metadata/metadatainformer"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"

	"github.com/informer-walkthrough/informer-walkthrough/internal/cli"
	"github.com/informer-walkthrough/informer-walkthrough/internal/show"
	labv1alpha1 "github.com/informer-walkthrough/informer-walkthrough/step06-custom-resource/apis/lab/v1alpha1"
	"github.com/informer-walkthrough/informer-walkthrough/step06-custom-resource/generated/clientset/versioned"
)

// options 是這一步的旗標。 / options are this step's flags.
type options struct {
	workers         int
	dynamic         bool
	staleWrite      bool
	retryOnConflict bool
	apply           bool
	demoTally       bool
	// watchDelay 與 waitForCache 是演練「讀回自己的寫入」（見 readback.go）。
	// watchDelay and waitForCache are the drill "reading your own write" (see readback.go).
	watchDelay   time.Duration
	waitForCache bool
	name         *cache.InformerName
}

// maxRetries 跟步驟 04、05 一樣：一個 key 失敗五次就放棄。
//
// maxRetries is steps 04 and 05's: a key that fails five times is given up.
const maxRetries = 5

// podsGVR 是 metadata client 要的 Pod 資源名稱。 / podsGVR names pods for the metadata client.
var podsGVR = corev1.SchemeGroupVersion.WithResource("pods")

// controller 是 PodTally 的控制器。兩個 informer 來自兩個工廠：PodTally 的（產生的，或 dynamic），
// 以及 Pod 的 metadata-only informer。兩邊的處理函式都只把 tally 的 key 放進同一個 workqueue；
// worker 從兩個 lister 讀，再透過 status 子資源寫 status。
//
// controller is PodTally's controller. Its two informers come from two
// factories: PodTally's (generated, or dynamic) and a metadata-only pod
// informer. Both sides' handlers only put tally keys into one workqueue;
// workers read both listers and write status through the status subresource.
type controller struct {
	tallies tallies
	pods    cache.GenericLister
	queue   workqueue.TypedRateLimitingInterface[cache.ObjectName]
	opts    options
	out     io.Writer

	// stale 是 --stale-write 記住的第一份複本：故意犯的錯。 / stale holds --stale-write's first copies: the mistake made on purpose.
	staleMu sync.Mutex
	stale   map[cache.ObjectName]*labv1alpha1.PodTally

	// replaced 是 --wait-for-cache 記下的：每個 key 上一次寫入取代掉的 resourceVersion（見 readback.go）。
	// replaced is what --wait-for-cache keeps: per key, the resourceVersion its last write replaced (see readback.go).
	replacedMu sync.Mutex
	replaced   map[cache.ObjectName]string
}

// run 安裝 CRD、（需要時）建立示範用的 tally，然後執行控制器直到 ctx 結束。
//
// run installs the CRD, creates the demo tally (when asked), then runs the
// controller until ctx ends.
func run(ctx context.Context, cfg *rest.Config, namespace string, opts options, out io.Writer) error {
	// --watch-delay 只扣住 tally 的 watch：Pod 的事件照常立刻到，寫入的回音晚到，落差每次都在。
	// --watch-delay holds back the tallies' watch only: pod events arrive at once as usual, the echo of a write
	// arrives late, and the gap is there every time.
	tallyCfg := cfg
	if opts.watchDelay > 0 {
		tallyCfg = cli.HoldWatches(cfg, opts.watchDelay)
	}
	crds, err := apiextensions.NewForConfig(cfg)
	if err != nil {
		return err
	}
	if err := ensureCRD(ctx, crds, out); err != nil || ctx.Err() != nil {
		return err
	}
	client, err := versioned.NewForConfig(tallyCfg)
	if err != nil {
		return err
	}
	if opts.demoTally {
		if err := ensureDemoTally(ctx, client, namespace, out); err != nil {
			return err
		}
	}
	var source tallies
	if opts.dynamic {
		dyn, err := dynamic.NewForConfig(tallyCfg)
		if err != nil {
			return err
		}
		source = newDynamic(dyn, namespace)
	} else {
		source = newGenerated(client, namespace, opts.name)
	}
	metaClient, err := metadata.NewForConfig(cfg)
	if err != nil {
		return err
	}
	return runController(ctx, source, metaClient, namespace, opts, out)
}

// ensureDemoTally 建立 PodTally app-demo（選 app=demo），讓 scripts/scene.sh demo 建立的 Pod 有 tally 來數。
// 這是使用者的動作（寫 spec），不是控制器的：控制器從不寫 spec，所以 rbac/controller.yaml 不給 create。
// 以那個角色執行時，建立得到 403（授權在檢查物件存不存在之前），這時改用 GET 看 tally 是不是已經在了。
//
// ensureDemoTally creates the PodTally app-demo (selecting app=demo), so the
// pods of scripts/scene.sh demo get counted. It acts as a user (it writes a
// spec), not as the controller: the controller never writes spec, so
// rbac/controller.yaml grants no create. Run under that role, the create
// gets 403 (authorization comes before the existence check), and a GET
// tells whether the tally is there already.
func ensureDemoTally(ctx context.Context, client versioned.Interface, namespace string, out io.Writer) error {
	t := &labv1alpha1.PodTally{
		ObjectMeta: metav1.ObjectMeta{Name: "app-demo", Namespace: namespace},
		Spec:       labv1alpha1.PodTallySpec{Selector: "app=demo"},
	}
	err := createWhenServed(ctx, servedBackoff, func() error {
		_, err := client.LabV1alpha1().PodTallies(namespace).Create(ctx, t, metav1.CreateOptions{})
		return err
	})
	if apierrors.IsForbidden(err) {
		if _, getErr := client.LabV1alpha1().PodTallies(namespace).Get(ctx, t.Name, metav1.GetOptions{}); getErr == nil {
			err = apierrors.NewAlreadyExists(labv1alpha1.Resource("podtallies"), t.Name)
		} else {
			return fmt.Errorf("creating PodTally %s/app-demo: %v (create it as a user who may, or pass --demo-tally=false)", namespace, err)
		}
	}
	switch {
	case apierrors.IsAlreadyExists(err):
		show.Note(out, "PodTally %s/app-demo is already there; leaving its spec as it is", namespace)
	case err != nil:
		return fmt.Errorf("creating PodTally %s/app-demo: %v", namespace, err)
	default:
		show.Note(out, "created PodTally %s/app-demo (selector app=demo)", namespace)
	}
	return nil
}

// runController 接上兩個 informer 的處理函式，依序啟動它們，等兩邊都同步之後才啟動 worker。
//
// runController wires both informers' handlers, starts them in order, and
// starts the workers only once both have synced.
func runController(ctx context.Context, source tallies, metaClient metadata.Interface, namespace string, opts options, out io.Writer) error {
	// Pod 的 informer 只看 metadata：它的請求要的是 as=PartialObjectMetadataList（LIST）與
	// as=PartialObjectMetadata（WATCH），protobuf 優先。快取裡每個 Pod 只有名字、標籤、annotation、
	// ownerReferences 這些，沒有 spec 與 status。
	// The pod informer sees metadata only: its requests accept
	// as=PartialObjectMetadataList (LIST) and as=PartialObjectMetadata (WATCH),
	// protobuf first. The cache holds each pod's name, labels, annotations,
	// ownerReferences and the like, no spec and no status.
	podFactory := metadatainformer.NewFilteredSharedInformerFactory(metaClient, 0, namespace, nil)
	podInformer := podFactory.ForResource(podsGVR)
	c := &controller{
		tallies: source,
		pods:    podInformer.Lister(),
		queue: workqueue.NewTypedRateLimitingQueueWithConfig(
			workqueue.DefaultTypedControllerRateLimiter[cache.ObjectName](),
			workqueue.TypedRateLimitingQueueConfig[cache.ObjectName]{Name: "podtallies"},
		),
		opts:     opts,
		out:      out,
		stale:    map[cache.ObjectName]*labv1alpha1.PodTally{},
		replaced: map[cache.ObjectName]string{},
	}
	tallyReg, err := source.informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    c.tallyAdded,
		UpdateFunc: c.tallyUpdated,
		DeleteFunc: c.tallyDeleted,
	})
	if err != nil {
		return err
	}
	podReg, err := podInformer.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { c.podChanged("OnAdd", nil, obj) },
		UpdateFunc: func(old, obj any) { c.podChanged("OnUpdate", old, obj) },
		DeleteFunc: func(obj any) { c.podChanged("OnDelete", nil, obj) },
	})
	if err != nil {
		return err
	}
	kind := "the generated informer (generated/informers)"
	if opts.dynamic {
		kind = "dynamicinformer (unstructured objects)"
	}
	show.Note(out, "tallies in namespace %q through %s; pods through a metadata-only informer (Ctrl-C to stop)", namespace, kind)
	defer c.queue.ShutDown()

	// 先讓 PodTally 的快取同步，再啟動 Pod 的 informer：Pod 的處理函式靠 tally 的 lister 找出要放進佇列的
	// tally，tally 的快取還是空的時候，它什麼都找不到。
	// Let PodTally's cache sync before the pod informer starts: the pod
	// handler finds the tallies to queue through the tally lister, which
	// finds nothing while the tally cache is still empty.
	source.start(ctx)
	if !cache.WaitFor(ctx, "", tallyReg.HasSyncedChecker()) {
		return nil
	}
	podFactory.Start(ctx.Done())
	if !cache.WaitFor(ctx, "", podReg.HasSyncedChecker()) {
		return nil
	}
	show.Note(out, "both informers synced; watching from there; starting %d worker(s)", opts.workers)
	var wg sync.WaitGroup
	for i := range opts.workers {
		name := fmt.Sprintf("worker%d", i+1)
		wg.Go(func() {
			for c.processNextItem(ctx, name) {
			}
		})
	}
	<-ctx.Done()
	c.queue.ShutDownWithDrain()
	wg.Wait()
	podFactory.Shutdown()
	source.shutdown()
	show.Note(out, "workers stopped")
	return nil
}
