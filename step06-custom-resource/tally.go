package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"

	corev1 "k8s.io/api/core/v1"
	apiextensions "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/metadata/metadatainformer"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/retry"
	"k8s.io/client-go/util/workqueue"

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
	demoTally       bool
	name            *cache.InformerName
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

	// stale 是 --stale-write 記住的第一份副本：故意犯的錯。 / stale holds --stale-write's first copies: the mistake made on purpose.
	staleMu sync.Mutex
	stale   map[cache.ObjectName]*labv1alpha1.PodTally
}

// run 安裝 CRD、（需要時）建立示範用的 tally，然後執行控制器直到 ctx 結束。
//
// run installs the CRD, creates the demo tally (when asked), then runs the
// controller until ctx ends.
func run(ctx context.Context, cfg *rest.Config, namespace string, opts options, out io.Writer) error {
	crds, err := apiextensions.NewForConfig(cfg)
	if err != nil {
		return err
	}
	if err := ensureCRD(ctx, crds, out); err != nil || ctx.Err() != nil {
		return err
	}
	client, err := versioned.NewForConfig(cfg)
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
		dyn, err := dynamic.NewForConfig(cfg)
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

// ensureDemoTally 建立 PodTally app-demo（選 app=demo），讓 scripts/scene.sh demo 的 Pod 有人數。
// 這是使用者的動作（寫 spec），不是控制器的：控制器從不寫 spec。
//
// ensureDemoTally creates the PodTally app-demo (selecting app=demo), so the
// pods of scripts/scene.sh demo get counted. It acts as a user (it writes a
// spec), not as the controller: the controller never writes spec.
func ensureDemoTally(ctx context.Context, client versioned.Interface, namespace string, out io.Writer) error {
	t := &labv1alpha1.PodTally{
		ObjectMeta: metav1.ObjectMeta{Name: "app-demo", Namespace: namespace},
		Spec:       labv1alpha1.PodTallySpec{Selector: "app=demo"},
	}
	_, err := client.LabV1alpha1().PodTallies(namespace).Create(ctx, t, metav1.CreateOptions{})
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
	// Pod 的 informer 只看 metadata：Accept: application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1。
	// 快取裡每個 Pod 只有名字、標籤、annotation、ownerReferences 這些，沒有 spec 與 status。
	// The pod informer sees metadata only: Accept:
	// application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1. The
	// cache holds each pod's name, labels, annotations, ownerReferences and
	// the like, no spec and no status.
	podFactory := metadatainformer.NewFilteredSharedInformerFactory(metaClient, 0, namespace, nil)
	podInformer := podFactory.ForResource(podsGVR)
	c := &controller{
		tallies: source,
		pods:    podInformer.Lister(),
		queue: workqueue.NewTypedRateLimitingQueueWithConfig(
			workqueue.DefaultTypedControllerRateLimiter[cache.ObjectName](),
			workqueue.TypedRateLimitingQueueConfig[cache.ObjectName]{Name: "podtallies"},
		),
		opts:  opts,
		out:   out,
		stale: map[cache.ObjectName]*labv1alpha1.PodTally{},
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
	show.Note(out, "workers stopped")
	return nil
}

// tallyAdded 一律把新的 tally（或初始清單裡的每一個）放進佇列。
//
// tallyAdded always queues a new tally (or each one in the initial list).
func (c *controller) tallyAdded(obj any) {
	t, err := c.tallies.toTally(obj)
	if err != nil {
		show.Line(c.out, "tallies", "OnAdd", "?", err.Error())
		return
	}
	c.queue.Add(cache.MetaObjectToName(t))
	show.Line(c.out, "tallies", "OnAdd", show.Key(t), fmt.Sprintf("selector %q, generation %d: queued", t.Spec.Selector, t.Generation))
}

// tallyUpdated 用 generation 過濾。控制器自己寫 status 之後，這個寫入會以一次更新回來：resourceVersion 變了，
// generation 沒變（有 status 子資源時，只有 spec 的變化會讓 API server 把 generation 加一）。
// 比 resourceVersion 是錯的測試：每一次寫入都會改它，包括我們自己的 status，所以每次寫 status
// 都會換來一次多餘的同步；它唯一擋得住的是 resync。
//
// tallyUpdated filters by generation. After the controller writes status,
// that write comes back as an update: the resourceVersion changed, the
// generation did not (with the status subresource, the API server adds one
// to generation only for a change of spec). Comparing resourceVersions is
// the wrong test: every write changes it, our own status writes included,
// so each status write would buy one more sync; all it stops is a resync.
func (c *controller) tallyUpdated(oldObj, newObj any) {
	old, err1 := c.tallies.toTally(oldObj)
	t, err2 := c.tallies.toTally(newObj)
	if err := cmpErr(err1, err2); err != nil {
		show.Line(c.out, "tallies", "OnUpdate", "?", err.Error())
		return
	}
	if old.Generation == t.Generation {
		show.Line(c.out, "tallies", "OnUpdate", show.Key(t), fmt.Sprintf("generation %d unchanged (%s): skipped", t.Generation, statusChange(old, t)))
		return
	}
	c.queue.Add(cache.MetaObjectToName(t))
	show.Line(c.out, "tallies", "OnUpdate", show.Key(t), fmt.Sprintf("generation %d -> %d, selector %q -> %q: queued", old.Generation, t.Generation, old.Spec.Selector, t.Spec.Selector))
}

// tallyDeleted 也放進佇列：worker 在 lister 裡找不到它，就知道它被刪除了。
//
// tallyDeleted queues too: the worker does not find it in the lister, and so
// knows it was deleted.
func (c *controller) tallyDeleted(obj any) {
	key, err := cache.DeletionHandlingObjectToName(obj)
	if err != nil {
		show.Line(c.out, "tallies", "OnDelete", "?", err.Error())
		return
	}
	c.queue.Add(key)
	show.Line(c.out, "tallies", "OnDelete", key.String(), "queued")
}

// podChanged 把選中這個 Pod 的每一個 tally 放進佇列；更新時，新舊標籤任一邊選中都算，
// 這樣 Pod 失去標籤時，原本數到它的 tally 也會重數。標籤沒變的更新（scheduler 綁定節點、kubelet 或
// kwok 寫 status）不影響任何計數，不印也不放：metadata-only 的 informer 還是會收到它們，因為每次寫入
// 都換了 resourceVersion。
//
// podChanged queues every tally that selects the pod; on an update, a
// match with either the old or the new labels counts, so when a pod loses a
// label, the tally that counted it counts again. An update that changes no
// label (the scheduler binding a node, the kubelet or kwok writing status)
// changes no count and is neither printed nor queued: a metadata-only
// informer still receives it, because every write changes the
// resourceVersion.
func (c *controller) podChanged(what string, oldObj, obj any) {
	if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = d.Obj
	}
	pod, ok := obj.(*metav1.PartialObjectMetadata)
	if !ok {
		show.Line(c.out, "pods", what, "?", fmt.Sprintf("not a *PartialObjectMetadata: %T", obj))
		return
	}
	detail := "labels=" + show.Labels(pod.Labels)
	sets := []labels.Set{pod.Labels}
	if old, ok := oldObj.(*metav1.PartialObjectMetadata); ok {
		if labels.Equals(old.Labels, pod.Labels) {
			show.Quiet(c.out, "pods", what, show.Key(pod), "labels unchanged: nothing to queue")
			return
		}
		detail = fmt.Sprintf("labels %s -> %s", show.Labels(old.Labels), show.Labels(pod.Labels))
		sets = append(sets, old.Labels)
	}
	// 找 tally 的方式是掃過 namespace 裡 lister 的每一個 tally，逐一比對選擇器。索引幫不上忙：索引把物件
	// 對應到 key（例如 app=demo），但「這個選擇器選不選中這組標籤」是要計算的，不是查表；
	// tally 數量少時，掃一遍很便宜。
	// Tallies are found by scanning every tally of the namespace in the lister
	// and matching each selector. An index does not help: an index maps an
	// object to keys (such as app=demo), but "does this selector match these
	// labels" is a computation, not a lookup; with few tallies, a scan is cheap.
	ts, err := c.tallies.list(pod.Namespace)
	if err != nil {
		show.Line(c.out, "pods", what, show.Key(pod), err.Error())
		return
	}
	var queued []string
	for _, t := range ts {
		sel, err := labels.Parse(t.Spec.Selector)
		if err != nil {
			// 它的 worker 會在 status 裡說明。 / Its worker reports it in status.
			continue
		}
		if slices.ContainsFunc(sets, func(s labels.Set) bool { return sel.Matches(s) }) {
			c.queue.Add(cache.MetaObjectToName(t))
			queued = append(queued, t.Name)
		}
	}
	slices.Sort(queued)
	if len(queued) == 0 {
		show.Line(c.out, "pods", what, show.Key(pod), detail+": no tally selects it")
		return
	}
	show.Line(c.out, "pods", what, show.Key(pod), detail+": queued tally "+strings.Join(queued, ", "))
}

// processNextItem 跟步驟 04、05 的一樣：取出、同步、依結果 Forget 或限速重排；Done 一定要呼叫。
//
// processNextItem is steps 04 and 05's: take, sync, then Forget or requeue
// rate-limited; Done is always called.
func (c *controller) processNextItem(ctx context.Context, worker string) bool {
	key, quit := c.queue.Get()
	if quit {
		return false
	}
	defer c.queue.Done(key)
	err := c.sync(ctx, worker, key)
	reason := ""
	if err != nil {
		reason = show.Reason(err)
	}
	if apierrors.IsConflict(err) {
		reason = "409 Conflict: the tally was modified after this copy was read"
	}
	switch {
	case err == nil:
		c.queue.Forget(key)
	case c.queue.NumRequeues(key) < maxRetries:
		show.Line(c.out, worker, "FAILED", key.String(), fmt.Sprintf("%s; retry %d/%d", reason, c.queue.NumRequeues(key)+1, maxRetries))
		c.queue.AddRateLimited(key)
	default:
		c.queue.Forget(key)
		show.Line(c.out, worker, "FAILED", key.String(), fmt.Sprintf("%s; giving up after %d retries", reason, maxRetries))
	}
	return true
}

// sync 從 lister 讀出 tally，從 Pod 的 metadata lister 數出符合的 Pod，算出該有的 status；跟現有的
// 一樣就不寫，不一樣就透過 status 子資源寫。控制器從不寫 spec。
//
// sync reads the tally from its lister, counts the matching pods in the pod
// metadata lister and works out the status it should have; when that is the
// status it has, nothing is written, otherwise status is written through the
// status subresource. The controller never writes spec.
func (c *controller) sync(ctx context.Context, worker string, key cache.ObjectName) error {
	cached, err := c.tallies.get(key.Namespace, key.Name)
	if isNotFound(err) {
		show.Line(c.out, worker, "sync", key.String(), "not in the lister: the tally was deleted, nothing to write")
		c.staleMu.Lock()
		delete(c.stale, key)
		c.staleMu.Unlock()
		return nil
	}
	if err != nil {
		return err
	}
	want, summary := c.count(cached)
	if statusEqual(cached.Status, want) {
		show.Line(c.out, worker, "sync", key.String(), summary+"; status up to date, nothing to write")
		return nil
	}
	show.Line(c.out, worker, "sync", key.String(), summary)

	base := cached
	if c.opts.staleWrite {
		base = c.remembered(key, cached)
	}
	attempt := 0
	write := func() error {
		attempt++
		if attempt > 1 {
			// RetryOnConflict 的第二次起：從 API server 重新讀，不是從快取；快取可能還沒收到讓我們衝突的那次寫入。
			// From RetryOnConflict's second try on: read again from the API server, not the cache, which may
			// not have received the write we conflicted with yet.
			if base, err = c.tallies.fresh(ctx, key.Namespace, key.Name); err != nil {
				return err
			}
			want, _ = c.count(base)
		}
		t := base.DeepCopy()
		t.Status = want
		// 這一行在寫入之前印：寫入造成的那次更新（tallies OnUpdate）一定排在它後面。
		// This line is printed before the write: the update the write causes (tallies OnUpdate) always comes after it.
		change := fmt.Sprintf("UpdateStatus: count %d -> %d", base.Status.Count, want.Count)
		if base.Status.ObservedGeneration != want.ObservedGeneration {
			change += fmt.Sprintf(", observedGeneration %d -> %d", base.Status.ObservedGeneration, want.ObservedGeneration)
		}
		show.Line(c.out, worker, "status", key.String(), change)
		_, err := c.tallies.updateStatus(ctx, t)
		if apierrors.IsConflict(err) && c.opts.retryOnConflict {
			show.Line(c.out, worker, "conflict", key.String(), "409 Conflict: the copy was stale; reading it again from the API server")
		}
		return err
	}
	if c.opts.retryOnConflict {
		return retry.RetryOnConflict(retry.DefaultRetry, write)
	}
	return write()
}

// count 算出 tally 該有的 status，以及給輸出用的一句摘要。選擇器解析失敗時，status 的 Ready 條件為
// False、原因 BadSelector，控制器照常運作。
//
// count works out the status a tally should have, and a summary for the
// output. When the selector does not parse, status gets Ready=False with
// reason BadSelector, and the controller carries on.
func (c *controller) count(t *labv1alpha1.PodTally) (labv1alpha1.PodTallyStatus, string) {
	status := labv1alpha1.PodTallyStatus{ObservedGeneration: t.Generation, Conditions: slices.Clone(t.Status.Conditions)}
	sel, err := labels.Parse(t.Spec.Selector)
	if err != nil {
		meta.SetStatusCondition(&status.Conditions, metav1.Condition{
			Type: "Ready", Status: metav1.ConditionFalse, Reason: "BadSelector",
			Message: err.Error(), ObservedGeneration: t.Generation,
		})
		return status, fmt.Sprintf("selector %q does not parse: %v", t.Spec.Selector, err)
	}
	objs, err := c.pods.ByNamespace(t.Namespace).List(sel)
	if err != nil {
		meta.SetStatusCondition(&status.Conditions, metav1.Condition{
			Type: "Ready", Status: metav1.ConditionFalse, Reason: "ListFailed", Message: err.Error(), ObservedGeneration: t.Generation,
		})
		return status, err.Error()
	}
	for _, obj := range objs {
		if m, err := meta.Accessor(obj); err == nil {
			status.Pods = append(status.Pods, m.GetName())
		}
	}
	slices.Sort(status.Pods)
	status.Count = int32(len(status.Pods))
	meta.SetStatusCondition(&status.Conditions, metav1.Condition{
		Type: "Ready", Status: metav1.ConditionTrue, Reason: "Counted",
		Message: fmt.Sprintf("%d pods match", status.Count), ObservedGeneration: t.Generation,
	})
	names := "none"
	if len(status.Pods) > 0 {
		names = strings.Join(status.Pods, ", ")
	}
	verb := "match"
	if len(status.Pods) == 1 {
		verb = "matches"
	}
	return status, fmt.Sprintf("%s %s %q: %s", show.Pods(len(status.Pods)), verb, t.Spec.Selector, names)
}

// remembered 是 --stale-write 故意犯的錯：第一次看到某個 tally 時記住那份副本，之後每次都從它寫。
// 第一次寫入成功後伺服器上的 resourceVersion 就變了，之後每一次都是 409 Conflict：
// 樂觀並行控制（optimistic concurrency）擋下了根據舊版本做的寫入。
// 真實世界裡的樣子比較隱晦：寫完 status 之後立刻又輪到同一個 key，而 informer 還沒把新版本送進快取，
// lister 給的就是舊的 resourceVersion。
//
// remembered is --stale-write's mistake made on purpose: keep the first copy
// of a tally, and write from it every time. After the first write succeeds
// the server's resourceVersion has moved, and every later write is 409
// Conflict: optimistic concurrency refuses a write based on an old version.
// In real life it is subtler: the same key comes up again right after a
// status write, before the informer has delivered the new version, and the
// lister hands out the old resourceVersion.
func (c *controller) remembered(key cache.ObjectName, cached *labv1alpha1.PodTally) *labv1alpha1.PodTally {
	c.staleMu.Lock()
	defer c.staleMu.Unlock()
	if t, ok := c.stale[key]; ok {
		return t
	}
	c.stale[key] = cached
	return cached
}

// statusEqual 比較兩個 status，不看條件的 lastTransitionTime（每次算出來的都是現在）。
//
// statusEqual compares two statuses, ignoring the conditions'
// lastTransitionTime (each computed one says now).
func statusEqual(a, b labv1alpha1.PodTallyStatus) bool {
	if a.ObservedGeneration != b.ObservedGeneration || a.Count != b.Count || !slices.Equal(a.Pods, b.Pods) || len(a.Conditions) != len(b.Conditions) {
		return false
	}
	for i := range a.Conditions {
		x, y := a.Conditions[i], b.Conditions[i]
		if x.Type != y.Type || x.Status != y.Status || x.Reason != y.Reason || x.Message != y.Message || x.ObservedGeneration != y.ObservedGeneration {
			return false
		}
	}
	return true
}

// statusChange 描述一次只改了 status 的更新。 / statusChange describes an update that changed only status.
func statusChange(old, t *labv1alpha1.PodTally) string {
	if old.ResourceVersion == t.ResourceVersion {
		return "same resourceVersion: a resync"
	}
	if old.Status.Count != t.Status.Count {
		return fmt.Sprintf("status count %d -> %d", old.Status.Count, t.Status.Count)
	}
	if !statusEqual(old.Status, t.Status) {
		return "status changed"
	}
	return "metadata changed"
}

func cmpErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
