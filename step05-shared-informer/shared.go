package main

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/informers"
	coreinformers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"

	"github.com/informer-walkthrough/informer-walkthrough/internal/show"
)

// options 是這一步的選擇，每一個對應一個旗標。
//
// options are this step's choices, one per flag.
type options struct {
	// selector 是 -l：WithTweakListOptions 放進每個請求的標籤選擇器。
	// selector is -l: the label selector WithTweakListOptions puts on every request.
	selector string
	// resync 是 --resync：工廠預設的 resync 週期。 / resync is --resync: the factory's default resync period.
	resync time.Duration
	// keepManagedFields 是 --transform=false：不加 Transform。 / keepManagedFields is --transform=false: no Transform.
	keepManagedFields bool
	// startTooEarly 是 --start-too-early：示範最常見的錯誤。 / startTooEarly is --start-too-early: make the most common mistake.
	startTooEarly bool
	// mutateCache 是 --mutate-cache：直接改快取裡的物件。 / mutateCache is --mutate-cache: change a cached object in place.
	mutateCache bool
	// controller 與 workers 是 --controller 與 --workers：改跑控制器。
	// controller and workers are --controller and --workers: run the controller instead.
	controller bool
	workers    int
	// slow 是慢處理函式每個事件花的時間（--slow-handler）；0 表示沒有這個處理函式。
	// slowWait 讓測試換掉這段等待；它在 ctx 結束時回傳 false。
	//
	// slow is how long the slow handler takes per event (--slow-handler); 0
	// means there is no such handler. slowWait lets a test replace that wait;
	// it returns false once ctx ends.
	slow     time.Duration
	slowWait func(ctx context.Context) bool
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
	return informers.NewSharedInformerFactoryWithOptions(client, opts.resync, factoryOptions...)
}

// dropManagedFields 是 Transform：伺服器端套用（server-side apply）記錄的 managedFields
// 常常比物件其他部分還大，而控制器幾乎用不到。它直接修改物件（v1.27 起安全，因為 Transform
// 最先看到物件），而且是冪等的：同一個物件再經過一次，結果不變。
//
// dropManagedFields is the Transform: the managedFields that server-side
// apply records are often larger than the rest of the object, and controllers
// hardly ever need them. It changes the object in place (safe since v1.27,
// because the Transform sees the object first) and is idempotent: passing the
// same object through again changes nothing.
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

// tour 依序示範共享 informer 的每一個規則，再印出每次處理函式的呼叫，直到 Ctrl-C。
//
// tour shows each rule of shared informers in turn, then prints every
// handler call until Ctrl-C.
func tour(ctx context.Context, factory informers.SharedInformerFactory, namespace string, opts options, out io.Writer) error {
	if opts.startTooEarly {
		// 常見的錯誤：Start 只啟動「已經有人要過」的 informer。這時還沒有人要，所以它什麼都沒啟動；
		// 之後才要的 informer 永遠不會執行，除非再呼叫一次 Start。
		// The common mistake: Start only starts the informers someone has
		// already asked for. Nobody has yet, so it starts nothing; an informer
		// asked for later never runs unless Start is called again.
		factory.StartWithContext(ctx)
		show.Note(out, "factory.StartWithContext called before any informer was requested: it started nothing")
	}

	// 程式的兩個部分各自向工廠要 Pod 的 informer：一個要加處理函式，一個要讀 lister。
	// Informer() 每次回傳一個新的型別化包裝，所以不能拿它們比較；兩者包著的是同一個 informer，
	// 看快取就知道：GetIndexer() 是同一個。
	// Two parts of the program each ask the factory for the pod informer: one
	// to add handlers, one to read the lister. Informer() returns a new typed
	// wrapper each time, so those cannot be compared; what they wrap is one
	// informer, as the cache shows: GetIndexer() is the same.
	pods := factory.Core().V1().Pods()
	forLister := factory.Core().V1().Pods()
	show.Note(out, "Core().V1().Pods() asked twice: one shared informer underneath (the same Indexer: %t)",
		pods.Informer().GetIndexer() == forLister.Informer().GetIndexer())

	var printed atomic.Int64
	printerReg, err := pods.TypedInformer().AddTypedEventHandler(printer("printer", out, &printed))
	if err != nil {
		return err
	}
	var slowReg cache.ResourceEventHandlerRegistration
	if opts.slow > 0 || opts.slowWait != nil {
		if slowReg, err = pods.TypedInformer().AddTypedEventHandler(slowHandler(ctx, opts, out, &printed)); err != nil {
			return err
		}
	}

	if opts.startTooEarly {
		return startedTooEarly(ctx, factory, printerReg, out)
	}
	// Start 不會等待：它在背景為每個已向工廠要過的 informer 開一個 goroutine。之後的
	// WaitForCacheSyncWithContext 才等待，以 cache.SyncResult 回傳每個 informer 是否同步。
	// Start does not wait: it runs each informer asked for in a goroutine of
	// its own. WaitForCacheSyncWithContext waits, and returns whether each
	// informer synced, as a cache.SyncResult.
	factory.StartWithContext(ctx)
	synced := factory.WaitForCacheSyncWithContext(ctx)
	if synced.AsError() != nil {
		// 只有 ctx 結束（Ctrl-C）時才會這樣。 / This happens only when ctx ended (Ctrl-C).
		return nil
	}
	// informer 同步了，不代表處理函式已經收到初始清單：每個處理函式有自己的佇列與步調。
	// 要知道某個處理函式是否跟上，問它註冊時拿到的 handle。
	// The informer having synced does not mean a handler has had the initial
	// list: each handler has its own queue and its own pace. To know whether
	// one has caught up, ask the handle its registration returned.
	if !cache.WaitFor(ctx, "", printerReg.HasSyncedChecker()) {
		return nil
	}
	show.Note(out, "WaitForCacheSyncWithContext: Synced=%v; printer's registration HasSynced=%t", synced.Synced, printerReg.HasSynced())
	if slowReg != nil {
		show.Note(out, "slow's registration HasSynced=%t: it turns true only once slow's own initial OnAdd calls have run", slowReg.HasSynced())
	}

	if err := lateHandler(ctx, pods, out); err != nil {
		return err
	}
	readLister(forLister, namespace, opts.mutateCache, out)
	show.Note(out, "informer synced; watching from there (Ctrl-C to stop)")
	<-ctx.Done()
	show.Note(out, "shutting down: factory.Shutdown waits for the informer's goroutines")
	return nil
}

// printer 是 v0.37 寫處理函式的方式：PodDetailedHandlerFuncs 就是
// cache.TypedResourceEventHandlerDetailedFuncs[*corev1.Pod]，拿到的已經是 *corev1.Pod，不必型別斷言。
// 刪除拿到的是 DeletedPod（cache.DeletedObject[*corev1.Pod]），它把墓碑也包進來：見 deleted。
//
// printer is how v0.37 writes handlers: PodDetailedHandlerFuncs is
// cache.TypedResourceEventHandlerDetailedFuncs[*corev1.Pod], so each call gets
// a *corev1.Pod, no type assertion. A delete gets a DeletedPod
// (cache.DeletedObject[*corev1.Pod]), which covers tombstones too: see
// deleted.
func printer(name string, out io.Writer, count *atomic.Int64) coreinformers.PodDetailedHandlerFuncs {
	return coreinformers.PodDetailedHandlerFuncs{
		AddFunc: func(pod *corev1.Pod, isInInitialList bool) {
			show.Line(out, name, "OnAdd", show.Key(pod), show.Pod(pod)+show.InitialList(isInInitialList))
			count.Add(1)
		},
		UpdateFunc: func(old, pod *corev1.Pod) {
			show.Line(out, name, "OnUpdate", show.Key(pod), show.Changes(old, pod))
			count.Add(1)
		},
		DeleteFunc: func(d coreinformers.DeletedPod) {
			show.Line(out, name, "OnDelete", d.GetKey(), deleted(d))
			count.Add(1)
		},
	}
}

// deleted 說明 DeletedObject 帶來了什麼。FinalStateUnknown 是 nil 時，OptionalObj 就是刪除時的最後狀態；
// 不是 nil 時，informer 沒看到刪除事件本身（之後重新 List 才發現），OptionalObj 可能過時，甚至是 nil。
// GetKey 與 GetObjectName 三種情況都可靠。
//
// deleted says what a DeletedObject brought. With FinalStateUnknown nil,
// OptionalObj is the final state; otherwise the informer missed the delete
// event itself (a relist found the pod gone later) and OptionalObj may be
// stale, or nil. GetKey and GetObjectName work in all three cases.
func deleted(d coreinformers.DeletedPod) string {
	switch {
	case d.FinalStateUnknown == nil:
		return "final state: " + show.Pod(d.OptionalObj)
	case d.OptionalObj == nil:
		return "tombstone without an object: only the key is known"
	default:
		return "tombstone; last known, maybe stale: " + show.Pod(d.OptionalObj)
	}
}

// slowHandler 是一個慢的處理函式：每個事件先等 opts.slow，才印出來，並說它落後 printer 幾個事件。
// 每個處理函式有自己的 processorListener（自己的 goroutine 加一個無上限的環形緩衝區），
// 所以 printer 不等它；它還沒處理的通知就排在自己的緩衝區裡，代價是記憶體，不會對 informer 造成背壓。
//
// slowHandler is a slow handler: it waits opts.slow before printing each
// event, and says how many events it is behind printer. Each handler has a
// processorListener of its own (goroutines of its own and an unbounded ring buffer),
// so printer does not wait for it; the notifications it has not handled wait
// in its own buffer, which costs memory and never pushes back on the
// informer.
func slowHandler(ctx context.Context, opts options, out io.Writer, printed *atomic.Int64) coreinformers.PodDetailedHandlerFuncs {
	wait := opts.slowWait
	if wait == nil {
		wait = func(ctx context.Context) bool {
			select {
			case <-time.After(opts.slow):
				return true
			case <-ctx.Done():
				return false
			}
		}
	}
	var done int64
	line := func(what, key, detail string) {
		done++
		show.Line(out, "slow", what, key, fmt.Sprintf("%s [%d behind printer]", detail, printed.Load()-done))
	}
	return coreinformers.PodDetailedHandlerFuncs{
		AddFunc: func(pod *corev1.Pod, isInInitialList bool) {
			if wait(ctx) {
				line("OnAdd", show.Key(pod), show.Pod(pod)+show.InitialList(isInInitialList))
			}
		},
		UpdateFunc: func(old, pod *corev1.Pod) {
			if wait(ctx) {
				line("OnUpdate", show.Key(pod), show.Changes(old, pod))
			}
		},
		DeleteFunc: func(d coreinformers.DeletedPod) {
			if wait(ctx) {
				line("OnDelete", d.GetKey(), deleted(d))
			}
		},
	}
}

// lateHandler 在 Start 之後才加一個處理函式。informer 已經在跑，這個處理函式錯過了初始清單，
// 所以 informer 把快取裡現有的每個物件當作「合成的」新增交給它，標記為初始清單的一部分；
// 它的 handle 在這些都處理完之後才 HasSynced。然後用 RemoveEventHandler 移除它：不再有新的事件排給它
// （移除是非同步的：已經在執行的那一次呼叫仍會做完）。
//
// lateHandler adds a handler after Start. The informer is already running
// and the handler missed the initial list, so the informer hands it every
// object now in the cache as a synthetic add, marked as part of the initial
// list; its handle has synced only once those have run. Then
// RemoveEventHandler removes it: no new events are queued for it (removal is
// asynchronous: a call already under way still finishes).
func lateHandler(ctx context.Context, pods coreinformers.TypedPodInformer, out io.Writer) error {
	var got atomic.Int64
	reg, err := pods.TypedInformer().AddTypedEventHandler(printer("late", out, &got))
	if err != nil {
		return err
	}
	if !cache.WaitFor(ctx, "", reg.HasSyncedChecker()) {
		return nil
	}
	if err := pods.Informer().RemoveEventHandler(reg); err != nil {
		return err
	}
	show.Note(out, "late: added after Start, it got the %s in the cache as synthetic adds (initial list); RemoveEventHandler: no new events are queued for it", show.Pods(int(got.Load())))
	return nil
}

// readLister 從 lister 讀：答案來自 informer 的快取，不發任何請求。lister 回傳的物件就是快取裡的那一個，
// 跟每個處理函式共用：絕對不能修改，要改先 DeepCopy。mutate 為 true 時故意違反這條規則。
//
// readLister reads through the lister: the answers come from the informer's
// cache, with no request at all. The objects a lister returns are the very
// ones in the cache, shared with every handler: never modify them; DeepCopy
// first. With mutate set it breaks that rule on purpose.
func readLister(pods coreinformers.TypedPodInformer, namespace string, mutate bool, out io.Writer) {
	lister := pods.Lister().Pods(namespace)
	list, err := lister.List(labels.Everything())
	if err != nil {
		show.Note(out, "Lister: %v", err)
		return
	}
	names := make([]string, 0, len(list))
	for _, pod := range list {
		names = append(names, pod.Name)
	}
	sort.Strings(names)
	show.Note(out, "Lister().Pods(%q).List(everything) = [%s] (from the cache: no request)", namespace, strings.Join(names, " "))
	for _, name := range names {
		if pod, err := lister.Get(name); err == nil {
			show.Note(out, "Lister().Pods(%q).Get(%q): %s, %d managedFields entries", namespace, name, show.Pod(pod), len(pod.ManagedFields))
		}
	}
	if mutate && len(list) > 0 {
		pod := list[0]
		// 錯誤示範：直接改快取裡的物件。正確的寫法是 pod = pod.DeepCopy()，再改那一份。
		// The wrong way, on purpose: changing the cached object itself. The
		// right way is pod = pod.DeepCopy(), then change that copy.
		pod.Labels = map[string]string{"mutated": "yes"}
		show.Note(out, "mutated %s in the cache without DeepCopy: every reader now sees labels=mutated=yes, which the server never had", show.Key(pod))
	}
}

// startedTooEarly 是 --start-too-early 的結局：還沒向工廠要 informer 之前，Start 就已經呼叫過，
// 這次不再呼叫，就像忘了那樣。WaitForCacheSyncWithContext 立刻回傳空的結果（沒有啟動任何
// informer，也就沒有要等的），處理函式的 handle 永遠不會 HasSynced，也不會有任何事件。
//
// startedTooEarly is how --start-too-early ends: Start was called before the
// informer was asked for, and is not called again, as if forgotten.
// WaitForCacheSyncWithContext returns at once with an empty result (no
// informer started, so nothing to wait for), the handler's handle never has
// synced, and no event ever comes.
func startedTooEarly(ctx context.Context, factory informers.SharedInformerFactory, reg cache.ResourceEventHandlerRegistration, out io.Writer) error {
	synced := factory.WaitForCacheSyncWithContext(ctx)
	show.Note(out, "WaitForCacheSyncWithContext returned at once: Synced=%v (no informer was started, so there was nothing to wait for)", synced.Synced)
	show.Note(out, "printer's registration HasSynced=%t, and it stays false: nothing runs the pod informer", reg.HasSynced())
	show.Note(out, "nothing is watching from there: no request, no events. The fix: call factory.StartWithContext after asking for the informers (calling it again is safe)")
	<-ctx.Done()
	return nil
}
