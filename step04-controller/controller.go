package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"golang.org/x/time/rate"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/fields"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"

	"github.com/informer-walkthrough/informer-walkthrough/internal/show"
)

// failAnnotation 設為 "true" 時，這個 Pod 的同步會故意失敗，讓你看到重試與退避。
//
// failAnnotation set to "true" makes this pod's sync fail on purpose, so you
// can watch retries and backoff.
const failAnnotation = "informer-lab/fail"

type options struct {
	workers    int
	maxRetries int
	// baseDelay 是第一次重試前的等待；之後每次加倍（5ms、10ms、20ms…），與 client-go 的預設相同。
	//
	// baseDelay is the wait before the first retry; it doubles each time
	// (5ms, 10ms, 20ms, …), as in client-go's default.
	baseDelay time.Duration
	// syncTime 是每次同步假裝要花的時間，就像真正的控制器要呼叫其他 API 那樣（--sync-time）。
	// 同步期間到來的變化會讓 key 再排一次，而且只排一次：合併因此看得見。
	//
	// syncTime is how long each sync pretends to take, as a real controller
	// calling other APIs would (--sync-time). Changes that arrive during a
	// sync queue the key once more, and only once: that makes merging visible.
	syncTime time.Duration
	// fifo 是 "atomic"（v0.37.2 的預設）或 "per-object"（KUBE_FEATURE_AtomicFIFO=false 時的舊佇列）。
	//
	// fifo is "atomic" (v0.37.2's default) or "per-object" (the old queue,
	// as with KUBE_FEATURE_AtomicFIFO=false).
	fifo   string
	resync time.Duration
	// limiter 是 "default"（每個 key 的退避與共用的 token bucket 取最長的，跟 workqueue.DefaultTypedControllerRateLimiter
	// 一樣）或 "per-key"（只有每個 key 的退避）。
	//
	// limiter is "default" (the longer of each key's backoff and a shared
	// token bucket, as workqueue.DefaultTypedControllerRateLimiter) or
	// "per-key" (each key's backoff only).
	limiter string
	// why 讓每次同步之前先說出是哪些事件讓這個 key 排進佇列（演練「這次同步為什麼會跑？」，--why）。
	//
	// why has each sync say first which events queued its key (the drill
	// "why did this sync run?", --why).
	why bool
	// name 讓 informer 回報 client-go 的 informer metrics；nil 表示不回報。
	//
	// name makes the informer report client-go's informer metrics; nil
	// reports none.
	name *cache.InformerName
}

// controller 是標準的控制迴圈（control loop）：處理函式只把 key（namespace/name）放進 workqueue，
// worker 取出 key，從 Indexer 讀出物件，再做同步。
//
// controller is the canonical controller loop: handlers only put keys
// (namespace/name) into the workqueue; workers take keys out, read the object
// from the Indexer, and sync it.
type controller struct {
	indexer     cache.Indexer
	informer    cache.Controller
	storage     *noticingQueue
	queue       workqueue.TypedRateLimitingInterface[string]
	rateLimiter workqueue.TypedRateLimiter[string]
	// perKey 與 bucket 是 rateLimiter 的兩半（--limiter per-key 時 bucket 是 nil），分開留著，才說得出是哪一半決定了延遲。
	// perKey and bucket are rateLimiter's two halves (bucket is nil with --limiter per-key), kept apart so the step can
	// say which half set a delay.
	perKey workqueue.TypedRateLimiter[string]
	bucket workqueue.TypedRateLimiter[string]
	opts   options
	out    io.Writer
	// reasons 是每個 key 從上次被取走以來讓它排進佇列的事件（只在 --why 時記），由 storage 的鎖保護。
	// reasons is, per key, the events that queued it since it was last taken (kept only with --why), guarded by the
	// storage's lock.
	reasons map[string][]string
}

func newController(client kubernetes.Interface, namespace string, opts options, out io.Writer) *controller {
	// 與 workqueue.DefaultTypedControllerRateLimiter 相同，只是起始延遲可以調整：
	// 每個 key 各自指數退避，再加上整體每秒 10 次的上限。
	// The same as workqueue.DefaultTypedControllerRateLimiter with an
	// adjustable first delay: per-key exponential backoff, plus an overall
	// limit of 10 per second.
	perKey := workqueue.NewTypedItemExponentialFailureRateLimiter[string](opts.baseDelay, 1000*time.Second)
	bucket := &workqueue.TypedBucketRateLimiter[string]{Limiter: rate.NewLimiter(rate.Limit(10), 100)}
	var rl workqueue.TypedRateLimiter[string] = workqueue.NewTypedMaxOfRateLimiter[string](perKey, bucket)
	// --limiter per-key：只有每個 key 自己的退避，沒有共用的 bucket（controller-runtime 預設的 priority queue 就是這樣）。
	// --limiter per-key: only each key's own backoff, no shared bucket (as controller-runtime's default priority queue has it).
	var shared workqueue.TypedRateLimiter[string] = bucket
	if opts.limiter == "per-key" {
		rl, shared = perKey, nil
	}
	// workqueue 有三層：限速（AddRateLimited、Forget）包著延遲（AddAfter）；延遲又包著基本佇列（Add、Get、Done），
	// 基本佇列的儲存也可以換掉。這裡換成 noticingQueue，處理函式才能說出每次 Add 的結果。
	// The workqueue has three layers: rate limiting (AddRateLimited, Forget)
	// wraps delaying (AddAfter), which wraps the basic queue (Add, Get, Done),
	// whose storage can be replaced too. Here it is a noticingQueue, so the
	// handler can say what each Add did.
	storage := newNoticingQueue("pods", func(key string) {
		show.Quiet(out, "workqueue", "Add", key, "queue.Done hands the key out again: it changed while being synced", show.OpAdd, show.Queued("workqueue"))
	})
	c := &controller{
		storage: storage,
		queue: workqueue.NewTypedRateLimitingQueueWithConfig(rl, workqueue.TypedRateLimitingQueueConfig[string]{
			Name: "pods",
			DelayingQueue: workqueue.NewTypedDelayingQueueWithConfig(workqueue.TypedDelayingQueueConfig[string]{
				Name:  "pods",
				Queue: storage.basicQueue(),
			}),
		}),
		rateLimiter: rl,
		perKey:      perKey,
		bucket:      shared,
		opts:        opts,
		out:         out,
		reasons:     map[string][]string{},
	}
	lw := cache.NewListWatchFromClient(client.CoreV1().RESTClient(), "pods", namespace, fields.Everything())
	// 處理函式只做一件事：算出 key、放進佇列。佇列裡每個 key 最多一份：還在等待的 key 再被加入，
	// 會合併成一次同步；正在同步的 key 再被加入，會在這次同步結束後再同步一次。
	// Handlers do one thing: compute the key and queue it. The queue holds each
	// key at most once: a key added again while it waits merges into one sync;
	// one added while it is being synced is synced once more afterwards.
	enqueue := func(obj any, reason func() string) {
		key, err := cache.DeletionHandlingMetaNamespaceKeyFunc(obj)
		if err != nil {
			// 只有沒有 metadata 的物件才會這樣；Pod 的 informer 不會遇到，遇到了也不該默不作聲。
			// Only an object without metadata does this; a pod informer never meets one, and if it did it should say so.
			utilruntime.HandleError(err)
			return
		}
		// 等同於 c.queue.Add(key)；經過儲存，說明才準確。 / The same as c.queue.Add(key); through the storage, so the note is exact.
		storage.add(key, func(a added) {
			if opts.why && a != shuttingDown {
				c.reasons[key] = append(c.reasons[key], reason())
			}
			switch a {
			case pushed:
				show.Quiet(out, "handler", "Add", key, "queue.Add", show.OpAdd, show.Queued("workqueue"))
			case merged:
				show.With(show.At("handler"), show.About(key), show.OpMerge, show.Queued("workqueue")).
					Note(out, "%s is already waiting in the workqueue: no second entry; its one sync reads the latest state", key)
			case beingSynced:
				// 不是合併：Done 之後 key 再被交出去一次，那一次同步讀到這個變化。
				// Not a merge: after Done the key is handed out once more, and that sync reads this change.
				show.With(show.At("handler"), show.About(key)).
					Note(out, "%s is being synced: the workqueue hands it out once more after Done, and that sync reads the latest state", key)
			}
		})
	}
	c.indexer, c.informer = newInformer(lw, cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) { enqueue(obj, func() string { return "OnAdd" }) },
		UpdateFunc: func(oldObj, newObj any) {
			enqueue(newObj, func() string { return "OnUpdate (" + show.Changes(oldObj.(*corev1.Pod), newObj.(*corev1.Pod)) + ")" })
		},
		DeleteFunc: func(obj any) { enqueue(obj, func() string { return "OnDelete" }) },
	}, opts.fifo == "per-object", opts.resync, opts.name, out)
	return c
}

// run 建立並執行控制器，直到 ctx 結束。
//
// run builds and runs the controller until ctx ends.
func run(ctx context.Context, client kubernetes.Interface, namespace string, opts options, out io.Writer) error {
	queue := "RealFIFO (atomic events, batches)"
	if opts.fifo == "per-object" {
		queue = "RealFIFO (per-object deltas, batches)"
	}
	show.Note(out, "controller for pods in namespace %q: Reflector -> %s -> processLoop -> Indexer + handlers -> workqueue -> workers (Ctrl-C to stop)", namespace, queue)
	newController(client, namespace, opts, out).run(ctx)
	return nil
}

// run 啟動 informer，等它同步，再啟動 worker。ctx 結束時關閉佇列：佇列不再收新的 key，
// 還在延遲中的重試被丟掉，但 worker 仍會把已經排進佇列的 key 一一處理完；ShutDownWithDrain
// 再等到沒有 key 正在處理，run 才結束。
//
// run starts the informer, waits for it to sync, then starts the workers.
// When ctx ends it shuts the queue down: the queue takes no new keys and drops
// retries still waiting out their delay, but the workers still process every
// key already queued; ShutDownWithDrain also waits until no key is being
// processed before run returns.
func (c *controller) run(ctx context.Context) {
	var informer sync.WaitGroup
	defer informer.Wait()
	informer.Go(func() { c.informer.RunWithContext(ctx) })
	// WaitFor 等 HasSyncedChecker 關閉它的通道，不必輪詢；空字串表示不寫進度 log。
	// WaitFor waits for the HasSyncedChecker's channel to close, with no
	// polling; the empty name means no progress logging.
	if !cache.WaitFor(ctx, "", c.informer.HasSyncedChecker()) {
		c.queue.ShutDown()
		return
	}
	show.Note(c.out, "informer synced; watching from there; starting %d worker(s)", c.opts.workers)
	var wg sync.WaitGroup
	for i := range c.opts.workers {
		// 每個 worker 有自己的名字（worker1、worker2…），輸出才看得出是誰同步了哪個 key。
		// Each worker has a name (worker1, worker2, …), so the output shows who synced which key.
		name := fmt.Sprintf("worker%d", i+1)
		wg.Go(func() {
			for c.processNextItem(ctx, name) {
			}
		})
	}
	<-ctx.Done()
	show.Note(c.out, "shutting down: no new keys, delayed retries dropped, queued keys still synced")
	// 先等 informer 停下：之後沒有處理函式會再放 key，也不會再印東西。
	// Wait for the informer first: after it no handler adds a key or prints anything.
	informer.Wait()
	c.queue.ShutDownWithDrain()
	wg.Wait()
	show.Note(c.out, "workers stopped")
}

// processNextItem 取出一個 key、同步它、處理結果。佇列關閉時回傳 false。
// Done 一定要呼叫：在那之前，同一個 key 不會交給另一個 worker。
//
// processNextItem takes one key, syncs it and handles the result. It returns
// false once the queue is shut down. Done must always be called: until then
// the same key is not handed to another worker.
func (c *controller) processNextItem(ctx context.Context, worker string) bool {
	key, quit := c.queue.Get()
	if quit {
		return false
	}
	// 即時頁面看得到 worker 什麼時候拿到 key（經過 storage.taken，才不會排在處理函式的 Add 前面）、什麼時候還回去（Done）；
	// 加上 --why 時，why 說出是哪些事件讓它排進佇列。
	// The live page sees when a worker took the key (through storage.taken, so it never comes before the handler's Add) and when it gave it back (Done);
	// with --why, why says which events queued it.
	c.storage.taken(func() {
		show.Quiet(c.out, worker, "Get", key, "queue.Get", show.OpGet)
		c.why(worker, key)
	})
	// Done 的記號在 queue.Done 之前送出：之後另一個 worker 才可能拿到這個 key，它的 Get 一定排在這個 Done 後面。
	// The Done note goes out before queue.Done: only after that can another worker take the key, so its Get always
	// comes after this Done.
	defer c.queue.Done(key)
	defer show.Quiet(c.out, worker, "Done", key, "queue.Done", show.OpDone)
	c.handleErr(worker, key, c.syncToStdout(ctx, worker, key))
	return true
}

// syncToStdout 是這個控制器實際要做的事：從快取讀出最新狀態並印出來。
// 它只看 key，不看事件：不論中間發生過幾次變化，它處理的都是目前的狀態（level-based）。
//
// syncToStdout is this controller's "business logic": read the latest state
// from the cache and print it. It sees a key, not an event: however many
// changes happened, it deals with the state as it is now (level-based).
func (c *controller) syncToStdout(ctx context.Context, worker, key string) error {
	obj, exists, err := c.indexer.GetByKey(key)
	if err != nil {
		return err
	}
	if !exists {
		show.Line(c.out, worker, "sync", key, "gone from the cache: the pod was deleted", show.OpSync, show.Gone(nil), show.From("indexer"))
		return nil
	}
	pod := obj.(*corev1.Pod)
	if pod.Annotations[failAnnotation] == "true" {
		return fmt.Errorf("annotation %s=true", failAnnotation)
	}
	show.Line(c.out, worker, "sync", key, show.Pod(pod), show.OpSync, show.Saw(pod), show.From("indexer"))
	// 假裝在工作（--sync-time）。ctx 結束時立刻停下：排乾佇列時不必一個一個等。
	// Pretend to work (--sync-time). Stop at once when ctx ends: draining the queue need not wait for each.
	select {
	case <-time.After(c.opts.syncTime):
	case <-ctx.Done():
	}
	return nil
}

// handleErr 決定失敗之後怎麼辦：成功就 Forget（清掉退避計數）；失敗且還沒到上限，
// 就延遲之後再放回佇列；到了上限就放棄，免得一個壞掉的物件永遠占住 worker。
//
// handleErr decides what follows a sync: on success, Forget (reset the
// backoff); on failure below the limit, put the key back after a delay; at the
// limit, give up, so one broken object cannot occupy a worker forever.
func (c *controller) handleErr(worker, key string, err error) {
	if err == nil {
		c.queue.Forget(key)
		return
	}
	retries := c.queue.NumRequeues(key)
	if retries < c.opts.maxRetries {
		// 等同於 c.queue.AddRateLimited(key)：拆開寫，才能印出這次要等多久，以及是哪個限速器決定的（見 when）。
		// The same as c.queue.AddRateLimited(key), spelled out so the delay,
		// and which limiter set it, can be printed (see when).
		delay, which := c.when(key)
		show.Line(c.out, worker, "FAILED", key, fmt.Sprintf("%v; retry %d/%d in %s%s", err, retries+1, c.opts.maxRetries, delay, which),
			show.Retrying(retries+1, c.opts.maxRetries, delay), show.From("indexer"))
		c.because(key, fmt.Sprintf("retry %d/%d", retries+1, c.opts.maxRetries))
		c.queue.AddAfter(key, delay)
		return
	}
	c.queue.Forget(key)
	show.Line(c.out, worker, "FAILED", key, fmt.Sprintf("%v; giving up after %d retries (dropped from the queue)", err, retries), show.OpDrop, show.From("indexer"))
}

// why 是演練「這次同步為什麼會跑？」（--why）：worker 取走 key 時（拿著 storage 的鎖），說出從上次取走以來
// 讓它排進佇列的每一個事件。好幾個變化合成一次同步，這一行把它們列在一起。
//
// why is the drill "why did this sync run?" (--why): when a worker takes a
// key (under the storage's lock), it says every event that queued the key
// since it was last taken. Several changes make one sync, and this line
// lists them together.
func (c *controller) why(worker, key string) {
	reasons := c.reasons[key]
	if len(reasons) == 0 {
		return
	}
	show.With(show.At(worker), show.About(key)).Note(c.out, "%s: %s synced for %d event(s) since its last sync: %s", worker, key, len(reasons), strings.Join(reasons, ", "))
	delete(c.reasons, key)
}

// because 在 --why 時記下一個不是來自處理函式的理由（重試），拿著 storage 的鎖。
//
// because records, with --why, a reason that does not come from a handler
// (a retry), under the storage's lock.
func (c *controller) because(key, reason string) {
	if !c.opts.why {
		return
	}
	c.storage.taken(func() { c.reasons[key] = append(c.reasons[key], reason) })
}

// when 跟 rateLimiter.When(key) 一樣（MaxOf 本來就問每一個限速器，取最長的），只是分開問兩半：
// 共用的 bucket 比 key 自己的退避還長時，第二個回傳值（呼叫端的 which）會說出來（每秒 10 個、burst 100；一陣失敗把 token 用光之後，
// 後面的 key 不管自己的退避多短，都要排隊等 token）。
//
// when is rateLimiter.When(key) (MaxOf asks every limiter and takes the
// longest anyway), asking the two halves apart: when the shared bucket is
// longer than the key's own backoff, which says so (10 per second, burst
// 100; once a burst of failures has used the tokens up, later keys queue for
// a token however short their own backoff).
func (c *controller) when(key string) (time.Duration, string) {
	own := c.perKey.When(key)
	if c.bucket == nil {
		return own, ""
	}
	shared := c.bucket.When(key)
	if shared <= own {
		return own, ""
	}
	return shared, fmt.Sprintf(" (set by the shared token bucket, 10 per second, burst 100; its own backoff says %s)", own)
}
