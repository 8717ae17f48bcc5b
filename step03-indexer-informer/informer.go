package main

import (
	"context"
	"fmt"
	"io"
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/fields"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"

	"github.com/informer-walkthrough/informer-walkthrough/internal/show"
)

// byApp 是自訂索引的名稱：依 Pod 的 app 標籤值分組。
//
// byApp names a custom index: pods grouped by the value of their app label.
const byApp = "byApp"

// indexByApp 是索引函式（IndexFunc）：回傳這個物件應該放進哪些索引值底下。
// 沒有 app 標籤的 Pod 不進這個索引。
//
// indexByApp is the IndexFunc: it returns the index values this object is
// filed under. A pod without an app label is not in this index.
func indexByApp(obj any) ([]string, error) {
	pod, ok := obj.(*corev1.Pod)
	if !ok {
		return nil, fmt.Errorf("indexByApp: unexpected %T", obj)
	}
	if app, ok := pod.Labels["app"]; ok {
		return []string{app}, nil
	}
	return nil, nil
}

type options struct {
	// constructor 是 "options"（現行的 NewInformerWithOptions）或 "indexer"（原始文章的 NewIndexerInformer）。
	//
	// constructor is "options" (today's NewInformerWithOptions) or "indexer"
	// (the source article's NewIndexerInformer).
	constructor string
	resync      time.Duration
	// name 讓 informer 回報 client-go 的 informer metrics（佇列深度等，v0.37）；nil 表示不回報。
	//
	// name makes the informer report client-go's informer metrics (queue
	// depth and more, v0.37); nil reports none.
	name *cache.InformerName
}

// newInformer 用兩種方式之一建立同一個 informer。兩者都建立一個以
// DeletionHandlingMetaNamespaceKeyFunc 為 key 的 Indexer（索引器）當作本機快取，
// 再加上一個 Controller（控制器，步驟 04 會拆開來看）。
//
// newInformer builds the same informer in one of two ways. Both create an
// Indexer keyed by DeletionHandlingMetaNamespaceKeyFunc as the local cache,
// plus a Controller (step 04 opens it up).
func newInformer(lw cache.ListerWatcher, handler cache.ResourceEventHandler, opts options) (cache.Indexer, cache.Controller) {
	indexers := cache.Indexers{byApp: indexByApp}
	if opts.constructor == "indexer" {
		// 原始文章的寫法。自 client-go v0.31 起已棄用，改用下面的 NewInformerWithOptions。
		// The source article's call. Deprecated since client-go v0.31 in favour
		// of NewInformerWithOptions below.
		//lint:ignore SA1019 刻意示範已棄用的建構函式，取代者是 NewInformerWithOptions。 / Deprecated on purpose; NewInformerWithOptions replaces it.
		return cache.NewIndexerInformer(lw, &corev1.Pod{}, opts.resync, handler, indexers)
	}
	// 現行的寫法：一個選項結構，之後新增的設定（Transform、MinWatchTimeout…）不必再改函式簽章。
	// 它回傳 cache.Store；給了 Indexers 時，底下其實是 cache.Indexer。
	// Today's call: one options struct, so later settings (Transform,
	// MinWatchTimeout, …) need no new signature. It returns a cache.Store; with
	// Indexers set, that store is a cache.Indexer underneath.
	options := cache.InformerOptions{
		ListerWatcher: lw,
		ObjectType:    &corev1.Pod{},
		ResyncPeriod:  opts.resync,
		Handler:       handler,
		Indexers:      indexers,
	}
	if opts.name != nil {
		options.Identifier = opts.name.WithResource(corev1.SchemeGroupVersion.WithResource("pods"))
	}
	store, controller := cache.NewInformerWithOptions(options)
	return store.(cache.Indexer), controller
}

// run 建立 informer 並執行它：等待初始清單（HasSynced），查詢快取，然後印出每次處理函式的呼叫。
//
// run builds the informer and runs it: it waits for the initial list
// (HasSynced), queries the cache, then prints every handler call.
func run(ctx context.Context, client kubernetes.Interface, namespace string, opts options, out io.Writer) error {
	lw := cache.NewListWatchFromClient(client.CoreV1().RESTClient(), "pods", namespace, fields.Everything())

	var indexer cache.Indexer
	handler := cache.ResourceEventHandlerDetailedFuncs{
		AddFunc: func(obj any, isInInitialList bool) {
			pod := obj.(*corev1.Pod)
			stored(out, pod)
			show.Line(out, "handler", "OnAdd", show.Key(pod), show.Pod(pod)+show.InitialList(isInInitialList),
				show.OpHandle, show.Cached(pod), show.Initial(isInInitialList))
			showIndex(out, indexer, show.Key(pod), nil, pod)
		},
		UpdateFunc: func(oldObj, newObj any) {
			pod := newObj.(*corev1.Pod)
			stored(out, pod)
			show.Line(out, "handler", "OnUpdate", show.Key(pod), show.Changes(oldObj.(*corev1.Pod), pod), show.OpHandle, show.Cached(pod))
			showIndex(out, indexer, show.Key(pod), oldObj.(*corev1.Pod), pod)
		},
		DeleteFunc: func(obj any) {
			stored(out, obj)
			key, last := onDelete(out, obj)
			showIndex(out, indexer, key, last, nil)
		},
	}
	indexer, informer := newInformer(lw, handler, opts)
	show.Note(out, "informer for pods in namespace %q via %s (Ctrl-C to stop)", namespace, constructorName(opts.constructor))
	// informer 在 ctx 結束時停下；run 先取消 ctx、等它停了才結束（defer 反序執行），
	// 之後就不會再有處理函式印出東西。
	// The informer stops when ctx ends; run cancels ctx and waits for it
	// before returning (defers run in reverse), so no handler prints afterwards.
	var wg sync.WaitGroup
	defer wg.Wait()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	wg.Go(func() { informer.RunWithContext(ctx) })

	// 在初始清單處理完之前，快取是不完整的：查不到某個 Pod 不代表它不存在。
	// 所以先等 HasSynced，再相信快取。
	// Until the initial list is processed the cache is incomplete: a pod
	// missing from it may still exist. So wait for HasSynced before trusting it.
	if !cache.WaitForCacheSync(ctx.Done(), informer.HasSynced) {
		return nil
	}
	// 讀取來自本機快取，不是 API server：沒有請求、沒有延遲，也不會給伺服器增加負擔。
	// 快取裡的物件是共用的：絕對不要修改它們，要改就先 DeepCopy。
	// Reads come from the local cache, not the API server: no request, no
	// latency, no load on the server. Objects in the cache are shared: never
	// modify them; DeepCopy first if you must change one.
	// 快取很大時，ListKeys 那一行跟桶子一樣只寫數目與前幾個 key，GetByKey 也只讀前幾個：
	// 兩千個 Pod 的快取，沒有人會讀完兩千行。
	// When the cache is big, the ListKeys line shows, as a big bucket does,
	// the count and the first few keys, and GetByKey reads only those: nobody
	// reads two thousand lines of a cache of two thousand pods.
	keys := indexer.ListKeys()
	sort.Strings(keys)
	listed := "[" + strings.Join(keys, " ") + "]"
	if len(keys) > bucketShown {
		listed = fmt.Sprintf("%d keys [%s …]", len(keys), strings.Join(keys[:3], " "))
		keys = keys[:3]
	}
	show.With(show.At("indexer"), show.OpRead).Note(out, "cache synced (HasSynced=true): ListKeys() = %s", listed)
	for _, key := range keys {
		obj, exists, err := indexer.GetByKey(key)
		if err != nil {
			return err
		}
		// ListKeys 之後 Pod 可能已經被刪掉：快取一直在變。 / The pod may be gone since ListKeys: the cache keeps changing.
		if exists {
			pod := obj.(*corev1.Pod)
			show.With(show.At("indexer"), show.OpRead, show.About(key), show.Cached(pod)).Note(out, "GetByKey(%q): %s", key, show.Pod(pod))
		}
	}
	show.Note(out, "informer synced; watching from there")
	<-ctx.Done()
	return nil
}

func constructorName(c string) string {
	if c == "indexer" {
		return "NewIndexerInformer (deprecated)"
	}
	return "NewInformerWithOptions"
}

// onDelete 處理刪除，且對墓碑（tombstone）安全：如果 informer 沒看到刪除事件本身
// （例如 watch 中斷期間 Pod 被刪掉，之後重新 List 才發現），拿到的是
// cache.DeletedFinalStateUnknown，而不是 *corev1.Pod。裡面的 Obj 是快取裡最後的狀態，
// 可能已經過時，也可能是 nil；可靠的只有 Key。它回傳 key 與最後知道的 Pod（可能是 nil）。
//
// onDelete handles a delete and is tombstone-safe: when the informer did not
// see the delete event itself (say the pod was deleted while the watch was
// down, and a relist noticed), it gets a cache.DeletedFinalStateUnknown, not a
// *corev1.Pod. Its Obj is the last state in the cache, possibly stale, possibly
// nil; only its Key is certain. It returns the key and the last known pod
// (possibly nil).
func onDelete(out io.Writer, obj any) (string, *corev1.Pod) {
	if tombstone, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		detail := "tombstone: deleted while we were not watching"
		pod, ok := tombstone.Obj.(*corev1.Pod)
		if ok {
			detail += "; last known " + show.Pod(pod)
		}
		show.Line(out, "handler", "OnDelete", tombstone.Key, detail, show.OpHandle, show.Uncached(pod))
		return tombstone.Key, pod
	}
	pod, ok := obj.(*corev1.Pod)
	if !ok {
		show.Line(out, "handler", "OnDelete", "?", fmt.Sprintf("unexpected %T", obj), show.OpHandle)
		return "", nil
	}
	show.Line(out, "handler", "OnDelete", show.Key(pod), show.Pod(pod), show.OpHandle, show.Uncached(pod))
	return show.Key(pod), pod
}

// stored 在處理函式一開始告訴即時頁面（不印出來）：informer 已經先把這次變化寫進 Indexer，才呼叫處理函式。
// processDeltas 先 Add、Update 或 Delete 快取，再呼叫 OnAdd、OnUpdate 或 OnDelete；
// 見 https://github.com/kubernetes/client-go/blob/v0.37.2/tools/cache/controller.go#L856-L870。
// 所以頁面上 Indexer 先變，處理函式才動。
//
// stored tells the live page (nothing printed), as the handler begins, that
// the informer has already written this change into the Indexer before
// calling the handler. processDeltas Adds, Updates or Deletes in the cache
// first and then calls OnAdd, OnUpdate or OnDelete; see
// https://github.com/kubernetes/client-go/blob/v0.37.2/tools/cache/controller.go#L856-L870.
// So on the page the Indexer changes before the handler moves.
func stored(out io.Writer, obj any) {
	key, err := cache.DeletionHandlingMetaNamespaceKeyFunc(obj)
	if err != nil {
		return
	}
	rv := ""
	if pod, ok := obj.(*corev1.Pod); ok {
		rv = pod.ResourceVersion
	}
	show.Quiet(out, "informer", "store", key, "written into the Indexer before the handler call", show.OpProcess, show.RV(rv), show.Into("indexer"))
}

// bucketShown 是一個桶子最多列出幾個 key；更大的桶子只寫它的大小、這次的變化與前幾個 key，
// 這樣每一行的長度不隨 Pod 的數目增加，兩千個 Pod 的輸出也只是兩百個的十倍左右。
//
// bucketShown is how many keys a bucket lists at most; a bigger bucket shows
// its size, this change and its first few keys, so no line grows with the
// number of pods, and the output for two thousand pods is about ten times
// that for two hundred.
const bucketShown = 5

// showIndex 印出這次變化碰到的索引桶子：它前後的 app 值（before、after 可以是 nil）。處理函式被呼叫時，
// 快取已經更新，所以 ByIndex 看到的是變化之後的狀態；變空的桶子寫成 []。
//
// showIndex prints the index buckets this change touched: the app values
// before and after it (either may be nil). By the time a handler runs the
// cache is already updated, so ByIndex sees the state after the change; a
// bucket that emptied shows as [].
func showIndex(out io.Writer, indexer cache.Indexer, key string, before, after *corev1.Pod) {
	touched := map[string]string{}
	for _, p := range []struct {
		pod  *corev1.Pod
		sign string
	}{{before, "-"}, {after, "+"}} {
		if p.pod == nil {
			continue
		}
		if app, ok := p.pod.Labels["app"]; ok {
			if _, both := touched[app]; both {
				touched[app] = ""
			} else {
				touched[app] = p.sign
			}
		}
	}
	if len(touched) == 0 {
		return
	}
	buckets, sizes := map[string][]string{}, map[string]int{}
	var parts []string
	for _, app := range slices.Sorted(maps.Keys(touched)) {
		// ByIndex 交回桶子裡的物件，沒有排序。小的桶子全部列出（排序過）；大的桶子只要它的大小與最小的幾個 key：
		// 走過一次就找得到，不必每一次都把整個桶子排序（IndexKeys 會排序），兩千個 Pod 時那正是時間花掉的地方。
		// ByIndex hands back the bucket's objects, unsorted. A small bucket is listed whole (sorted); a big one needs
		// only its size and its smallest few keys, found in one pass rather than by sorting the whole bucket every
		// time (IndexKeys sorts), which is where the time went with two thousand pods.
		pods, err := indexer.ByIndex(byApp, app)
		if err != nil {
			utilruntime.HandleError(err)
			return
		}
		sizes[app] = len(pods)
		first := smallest(pods, bucketShown)
		if len(pods) <= bucketShown {
			buckets[app] = first
			parts = append(parts, app+"=["+strings.Join(first, " ")+"]")
			continue
		}
		first = first[:3]
		buckets[app] = first
		change := ""
		if touched[app] != "" {
			change = ", " + touched[app] + key
		}
		parts = append(parts, fmt.Sprintf("%s=[%s%s; %s …]", app, show.Pods(len(pods)), change, strings.Join(first, " ")))
	}
	// 頁面上 Indexer 那一格顯示的 resourceVersion，是這次變化的 Pod 的。 / The resourceVersion the page's Indexer box shows is the changed pod's.
	rv := ""
	for _, p := range []*corev1.Pod{before, after} {
		if p != nil {
			rv = p.ResourceVersion
		}
	}
	show.With(show.At("indexer"), show.For("handler"), show.Index(buckets, sizes), show.RV(rv)).Note(out, "index %s: %s", byApp, strings.Join(parts, " "))
}

// smallest 回傳 objs 裡 key 最小的 n 個 Pod 的 key（已排序），只走過 objs 一次，只替留下來的組出字串。
//
// smallest returns the keys of the n pods in objs with the smallest keys
// (sorted), in one pass over objs, building strings only for those kept.
func smallest(objs []any, n int) []string {
	less := func(a, b *corev1.Pod) bool {
		if a.Namespace != b.Namespace {
			return a.Namespace < b.Namespace
		}
		return a.Name < b.Name
	}
	kept := make([]*corev1.Pod, 0, n+1)
	for _, obj := range objs {
		p := obj.(*corev1.Pod)
		if len(kept) == n && !less(p, kept[n-1]) {
			continue
		}
		i := len(kept)
		for i > 0 && less(p, kept[i-1]) {
			i--
		}
		kept = slices.Insert(kept, i, p)
		if len(kept) > n {
			kept = kept[:n]
		}
	}
	keys := make([]string, len(kept))
	for i, p := range kept {
		keys[i] = show.Key(p)
	}
	return keys
}
