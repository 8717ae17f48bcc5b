package main

import (
	"context"
	"io"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"

	"github.com/informer-walkthrough/informer-walkthrough/internal/show"
)

// options 是這一步的旗標；零值就是預設值。
//
// options are this step's flags; the zero value is the default.
type options struct {
	selector          string
	resync            time.Duration
	keepManagedFields bool
	startTooEarly     bool
	mutateCache       bool
	controller        bool
	workers           int
	// slow 是慢處理函式每個事件花的時間（--slow-handler）；0 表示沒有這個處理函式。
	// slowWait 讓測試換掉這段等待；它在 ctx 結束時回傳 false。
	//
	// slow is how long the slow handler takes per event (--slow-handler); 0
	// means there is no such handler. slowWait lets a test replace that wait;
	// it returns false once ctx ends.
	slow     time.Duration
	slowWait func(ctx context.Context) bool
	// name 讓工廠的 informer 回報 client-go 的 informer metrics（v0.37）；nil 表示不回報。
	//
	// name makes the factory's informers report client-go's informer metrics
	// (v0.37); nil reports none.
	name *cache.InformerName
}

// newFactory 建立這一步唯一的 SharedInformerFactory。工廠為每一種型別最多建立一個 informer，
// 向它要同一種型別的每個人拿到的都是那一個：一份快取、一條 watch。
// 三個選項套用到它建立的每一個 informer：
//   - WithNamespace：只看這個 namespace；
//   - WithTweakListOptions：正是步驟 02 的 optionsModifier，每次 List 與 Watch 之前修改 ListOptions；
//   - WithTransform：物件進入佇列之前先經過它，這裡丟掉 managedFields 來省記憶體。
//
// newFactory builds this step's one SharedInformerFactory. The factory makes
// at most one informer per type, and everyone who asks for that type gets
// that one: one cache, one watch. Three options apply to every informer it
// makes:
//   - WithNamespace: watch this namespace only;
//   - WithTweakListOptions: step 02's optionsModifier under another name,
//     editing the ListOptions before every List and Watch;
//   - WithTransform: objects pass through it before they enter the queue;
//     here it drops managedFields to save memory.
func newFactory(client kubernetes.Interface, namespace string, opts options) informers.SharedInformerFactory {
	factoryOptions := []informers.SharedInformerOption{
		informers.WithNamespace(namespace),
		informers.WithTweakListOptions(func(o *metav1.ListOptions) {
			o.LabelSelector = opts.selector
		}),
	}
	if !opts.keepManagedFields {
		factoryOptions = append(factoryOptions, informers.WithTransform(dropManagedFields))
	}
	if opts.name != nil {
		factoryOptions = append(factoryOptions, informers.WithInformerName(opts.name))
	}
	return informers.NewSharedInformerFactoryWithOptions(client, opts.resync, factoryOptions...)
}

// dropManagedFields 是 Transform：server-side apply 記錄的 managedFields 常常比物件其他部分還大，
// 控制器幾乎用不到。它直接修改物件：Transform 是第一個看到物件的程式碼，沒有別人持有它。它必須是冪等的：
// 預設的 WatchList 路徑上，清單裡的每個物件會經過它兩次（進 Reflector 的暫存 store 一次，Replace 進 RealFIFO 再一次）。
//
// dropManagedFields is the Transform: the managedFields that server-side
// apply records are often larger than the rest of the object, and
// controllers hardly ever need them. It changes the object in place: the
// Transform is the first code to see it, and nobody else holds it yet. It
// must be idempotent: on the default WatchList path every listed object
// passes through it twice (into the Reflector's temporary store, then again
// as Replace queues it into the RealFIFO).
func dropManagedFields(obj any) (any, error) {
	if m, err := meta.Accessor(obj); err == nil {
		m.SetManagedFields(nil)
	}
	return obj, nil
}

// run 依旗標選擇導覽或控制器。不論哪一個，最後都呼叫 factory.Shutdown：它等工廠啟動的每個
// goroutine 結束，所以要先取消 ctx（defer 的順序是反過來的：先 cancel，再 Shutdown）。
//
// run picks the tour or the controller by flag. Either way it ends with
// factory.Shutdown, which waits for every goroutine the factory started, so
// ctx must be cancelled first (defers run in reverse: cancel, then Shutdown).
func run(ctx context.Context, client kubernetes.Interface, namespace string, opts options, out io.Writer) error {
	factory := newFactory(client, namespace, opts)
	defer factory.Shutdown()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	transform := "drop managedFields"
	if opts.keepManagedFields {
		transform = "none"
	}
	show.Note(out, "SharedInformerFactory for namespace %q: label selector %q, resync %s, transform: %s", namespace, opts.selector, opts.resync, transform)
	if opts.controller {
		return runController(ctx, factory, namespace, opts.workers, out)
	}
	return tour(ctx, factory, namespace, opts, out)
}
