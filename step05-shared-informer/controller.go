package main

import (
	"context"
	"fmt"
	"io"
	"sync"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/informers"
	coreinformers "k8s.io/client-go/informers/core/v1"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"

	"github.com/informer-walkthrough/informer-walkthrough/internal/show"
)

// failAnnotation 設為 "true" 時，這個 Pod 的同步會故意失敗，跟步驟 04 一樣。
//
// failAnnotation set to "true" makes this pod's sync fail on purpose, as in
// step 04.
const failAnnotation = "informer-lab/fail"

// maxRetries 是一個 key 最多失敗幾次就放棄，這個規則來自 client-go 的 examples/workqueue。退避用
// workqueue.DefaultTypedControllerRateLimiter：每個 key 從 5ms 起每次加倍，最多 1000 秒，
// 所有 key 加起來每秒最多 10 次（可累積 100 次）。
//
// maxRetries is how many failures of a key before giving up, a rule taken
// from client-go's examples/workqueue. The backoff is
// workqueue.DefaultTypedControllerRateLimiter: per key from 5ms, doubling up
// to 1000 s, and at most 10 per second for all keys together (burst 100).
const maxRetries = 5

// controller 是步驟 04 的控制器，建在這一層上：佇列裡放的是 cache.ObjectName（namespace 與 name
// 的結構，不是字串），worker 透過 lister 讀出物件，這兩點與 sample-controller 相同；它自己沒有
// Indexer，也沒有 informer：都是工廠的。
//
// controller is step 04's controller on this layer: the queue holds
// cache.ObjectName (a namespace and name struct, not a string) and workers
// read through the lister, as in sample-controller; it owns no Indexer and
// no informer: both are the factory's.
type controller struct {
	lister corelisters.PodLister
	queue  workqueue.TypedRateLimitingInterface[cache.ObjectName]
	synced cache.DoneChecker
	out    io.Writer
}

// newController 向工廠要 Pod 的 informer，加上只放 key 的處理函式。它必須在 factory.Start
// 之前呼叫：Start 只啟動已經向工廠要過的 informer。
//
// newController asks the factory for the pod informer and adds handlers that
// only queue keys. It must be called before factory.Start: Start only starts
// the informers that were asked for.
func newController(factory informers.SharedInformerFactory, out io.Writer) (*controller, error) {
	pods := factory.Core().V1().Pods()
	c := &controller{
		lister: pods.Lister(),
		queue: workqueue.NewTypedRateLimitingQueueWithConfig(
			workqueue.DefaultTypedControllerRateLimiter[cache.ObjectName](),
			workqueue.TypedRateLimitingQueueConfig[cache.ObjectName]{Name: "pods"},
		),
		out: out,
	}
	reg, err := pods.TypedInformer().AddTypedEventHandler(coreinformers.PodHandlerFuncs{
		AddFunc:    func(pod *corev1.Pod) { c.enqueue(cache.MetaObjectToName(pod)) },
		UpdateFunc: func(_, pod *corev1.Pod) { c.enqueue(cache.MetaObjectToName(pod)) },
		// 刪除時 GetObjectName 一定拿得到 key，墓碑也一樣。 / On a delete GetObjectName always has the key, tombstones included.
		DeleteFunc: func(d coreinformers.DeletedPod) { c.enqueue(d.GetObjectName()) },
	})
	if err != nil {
		return nil, err
	}
	// 等的是這個處理函式的 handle：它 HasSynced 時，informer 已同步，初始清單的每個 key 也都已經放進佇列。
	// Wait on this handler's handle: once it has synced, the informer has
	// synced and every key of the initial list is in the queue.
	c.synced = reg.HasSyncedChecker()
	return c, nil
}

// enqueue 把 key 放進佇列；即時頁面看得到這一步（不印出來）。
//
// enqueue queues the key; the live page sees it (nothing is printed).
func (c *controller) enqueue(key cache.ObjectName) {
	// 先報再放：worker 可能立刻取走這個 key，它的 Get 不該排在這一筆前面。
	// Report, then queue: a worker may take the key at once, and its Get must not come before this.
	show.Quiet(c.out, "handler", "Add", key.String(), "queue.Add", show.OpAdd, show.Queued("workqueue"))
	c.queue.Add(key)
}

// runController 建立控制器、啟動工廠、等處理函式同步，再啟動 worker，直到 ctx 結束。
//
// runController builds the controller, starts the factory, waits for the
// handler to sync, then runs the workers until ctx ends.
func runController(ctx context.Context, factory informers.SharedInformerFactory, namespace string, workers int, out io.Writer) error {
	c, err := newController(factory, out)
	if err != nil {
		return err
	}
	show.Note(out, "controller for pods in namespace %q: handlers queue cache.ObjectName keys; workers read through the lister (Ctrl-C to stop)", namespace)
	factory.StartWithContext(ctx)
	if !cache.WaitFor(ctx, "", c.synced) {
		c.queue.ShutDown()
		return nil
	}
	show.Note(out, "informer synced; watching from there; starting %d worker(s)", workers)
	var wg sync.WaitGroup
	for i := range workers {
		name := fmt.Sprintf("worker%d", i+1)
		wg.Go(func() {
			for c.processNextItem(name) {
			}
		})
	}
	<-ctx.Done()
	show.Note(out, "shutting down: no new keys, delayed retries dropped, queued keys still synced")
	c.queue.ShutDownWithDrain()
	wg.Wait()
	show.Note(out, "workers stopped")
	return nil
}

// processNextItem 跟步驟 04 的一樣：取出一個 key、同步、處理結果；Done 一定要呼叫。
//
// processNextItem is step 04's: take a key, sync it, handle the result; Done
// must always be called.
func (c *controller) processNextItem(worker string) bool {
	key, quit := c.queue.Get()
	if quit {
		return false
	}
	show.Quiet(c.out, worker, "Get", key.String(), "queue.Get", show.OpGet)
	defer show.Quiet(c.out, worker, "Done", key.String(), "queue.Done", show.OpDone)
	defer c.queue.Done(key)
	err := c.sync(worker, key)
	switch {
	case err == nil:
		c.queue.Forget(key)
	case c.queue.NumRequeues(key) < maxRetries:
		show.Line(c.out, worker, "FAILED", key.String(), fmt.Sprintf("%v; retry %d/%d", err, c.queue.NumRequeues(key)+1, maxRetries),
			show.Retrying(c.queue.NumRequeues(key)+1, maxRetries, 0), show.From("informer"))
		c.queue.AddRateLimited(key)
	default:
		c.queue.Forget(key)
		show.Line(c.out, worker, "FAILED", key.String(), fmt.Sprintf("%v; giving up after %d retries", err, maxRetries), show.OpDrop, show.From("informer"))
	}
	return true
}

// sync 透過 lister 讀出 Pod。lister 找不到時，自己做出一個 NotFound 錯誤（apierrors.IsNotFound 為真）：
// 這正是「物件已被刪除」的訊號，而不是失敗。
//
// sync reads the pod through the lister. When the lister does not have it, it
// makes a NotFound error itself (apierrors.IsNotFound is true): that is the
// signal that the object was deleted, not a failure.
func (c *controller) sync(worker string, key cache.ObjectName) error {
	pod, err := c.lister.Pods(key.Namespace).Get(key.Name)
	if apierrors.IsNotFound(err) {
		show.Line(c.out, worker, "sync", key.String(), "not in the lister: the pod was deleted", show.OpSync, show.Gone(nil), show.From("informer"))
		return nil
	}
	if err != nil {
		return err
	}
	if pod.Annotations[failAnnotation] == "true" {
		return fmt.Errorf("annotation %s=true", failAnnotation)
	}
	show.Line(c.out, worker, "sync", key.String(), show.Pod(pod), show.OpSync, show.Saw(pod), show.From("informer"))
	return nil
}
