package main

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/fields"
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
			show.Line(out, "handler", "OnAdd", show.Key(pod), show.Pod(pod)+show.InitialList(isInInitialList),
				show.OpHandle, show.Cached(pod), show.Initial(isInInitialList))
			showIndex(out, indexer)
		},
		UpdateFunc: func(oldObj, newObj any) {
			pod := newObj.(*corev1.Pod)
			show.Line(out, "handler", "OnUpdate", show.Key(pod), show.Changes(oldObj.(*corev1.Pod), pod), show.OpHandle, show.Cached(pod))
			showIndex(out, indexer)
		},
		DeleteFunc: func(obj any) {
			onDelete(out, obj)
			showIndex(out, indexer)
		},
	}
	indexer, informer := newInformer(lw, handler, opts)
	show.Note(out, "informer for pods in namespace %q via %s (Ctrl-C to stop)", namespace, constructorName(opts.constructor))
	// informer 在 ctx 結束時停下；run 先取消 ctx、等它停了才 return（defer 反序執行），
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
	keys := indexer.ListKeys()
	sort.Strings(keys)
	show.With(show.At("indexer"), show.OpRead).Note(out, "cache synced (HasSynced=true): ListKeys() = [%s]", strings.Join(keys, " "))
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
// 可能已經過時，也可能是 nil；可靠的只有 Key。
//
// onDelete handles a delete and is tombstone-safe: when the informer did not
// see the delete event itself (say the pod was deleted while the watch was
// down, and a relist noticed), it gets a cache.DeletedFinalStateUnknown, not a
// *corev1.Pod. Its Obj is the last state in the cache, possibly stale, possibly
// nil; only its Key is certain.
func onDelete(out io.Writer, obj any) {
	if tombstone, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		detail := "tombstone: deleted while we were not watching"
		pod, ok := tombstone.Obj.(*corev1.Pod)
		if ok {
			detail += "; last known " + show.Pod(pod)
		}
		show.Line(out, "handler", "OnDelete", tombstone.Key, detail, show.OpHandle, show.Uncached(pod))
		return
	}
	pod, ok := obj.(*corev1.Pod)
	if !ok {
		show.Line(out, "handler", "OnDelete", "?", fmt.Sprintf("unexpected %T", obj), show.OpHandle)
		return
	}
	show.Line(out, "handler", "OnDelete", show.Key(pod), show.Pod(pod), show.OpHandle, show.Uncached(pod))
}

// showIndex 印出自訂索引目前的內容：對每個 app 值呼叫 ByIndex，列出那些 Pod 的 key。
// 處理函式被呼叫時，快取已經更新，所以這裡看到的是變化之後的狀態。
//
// showIndex prints the custom index as it is now: ByIndex for each app value,
// listing those pods' keys. By the time a handler runs the cache is already
// updated, so this is the state after the change.
func showIndex(out io.Writer, indexer cache.Indexer) {
	values := indexer.ListIndexFuncValues(byApp)
	sort.Strings(values)
	var parts []string
	buckets := map[string][]string{}
	for _, v := range values {
		pods, err := indexer.ByIndex(byApp, v)
		if err != nil || len(pods) == 0 {
			continue
		}
		keys := make([]string, 0, len(pods))
		for _, obj := range pods {
			keys = append(keys, show.Key(obj.(*corev1.Pod)))
		}
		sort.Strings(keys)
		buckets[v] = keys
		parts = append(parts, v+"=["+strings.Join(keys, " ")+"]")
	}
	if len(parts) == 0 {
		parts = []string{"(empty)"}
	}
	show.With(show.At("indexer"), show.Index(buckets)).Note(out, "index %s: %s", byApp, strings.Join(parts, " "))
}
