package main

import (
	"fmt"
	"io"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/informer-walkthrough/informer-walkthrough/internal/show"
)

// newInformer 親手組出步驟 03 的 NewInformerWithOptions 在 v0.37.2 預設設定下組出的東西，
// perObject 時則是 KUBE_FEATURE_AtomicFIFO=false 時的舊佇列。cache.New 只把 Config 存起來；
// RunWithContext 才建立並啟動 Reflector，再跑 processLoop，把佇列交出的項目交給 Process 或 ProcessBatch：
//
//	API server → ListerWatcher → Reflector → RealFIFO → processLoop → Process / ProcessBatch → Indexer + handlers
//
// newInformer assembles by hand what step 03's NewInformerWithOptions builds
// with v0.37.2's default settings, or with perObject the old queue of
// KUBE_FEATURE_AtomicFIFO=false. cache.New only stores the Config;
// RunWithContext creates and starts the Reflector, then runs processLoop,
// which hands what the queue yields to Process or ProcessBatch:
//
//	API server → ListerWatcher → Reflector → RealFIFO → processLoop → Process / ProcessBatch → Indexer + handlers
func newInformer(lw cache.ListerWatcher, handler cache.ResourceEventHandler, perObject bool, resync time.Duration, name *cache.InformerName, out io.Writer) (cache.Indexer, cache.Controller) {
	// 有名字時，佇列與 Indexer 回報 client-go 的 informer metrics（v0.37），即時頁面的深度就是它。
	// With a name, the queue and the Indexer report client-go's informer metrics (v0.37); the live page's depth is that.
	var id cache.InformerNameAndResource
	if name != nil {
		id = name.WithResource(corev1.SchemeGroupVersion.WithResource("pods"))
	}
	indexer := cache.NewIndexer(cache.DeletionHandlingMetaNamespaceKeyFunc, cache.Indexers{}, cache.WithStoreMetrics(id, nil))
	p := &processor{indexer: indexer, handler: handler, out: out}

	// 佇列是 RealFIFO：Reflector 推進來的每一筆都依到達順序排隊，不合併。預設（AtomicFIFO）下，
	// 一次 List（或 WatchList 的初始事件）是「一個」ReplacedAll，resync 是一個 SyncAll，
	// bookmark 是一個 Bookmark；消失的物件要等處理時跟 Indexer 比對才知道。
	// 舊模式改給 KnownObjects：佇列自己跟 Indexer 比對，把 List 拆成每個物件一筆 Replaced，
	// 並為消失的物件排入 Deleted（墓碑）。
	// The queue is a RealFIFO: everything the Reflector pushes waits in arrival
	// order, nothing merged. By default (AtomicFIFO) a list (or a WatchList's
	// initial events) is ONE ReplacedAll, a resync one SyncAll, a bookmark one
	// Bookmark; what vanished is found only when processing compares with the
	// Indexer. The old mode gives the queue KnownObjects instead: the queue
	// itself compares with the Indexer, splits a list into one Replaced per
	// object and queues a Deleted (a tombstone) for each object that vanished.
	fifoOpts := cache.RealFIFOOptions{
		KeyFunction:           cache.MetaNamespaceKeyFunc,
		AtomicEvents:          true,
		UnlockWhileProcessing: true,
		EmitDeltaTypeBookmark: true,
		Identifier:            id,
	}
	if perObject {
		fifoOpts = cache.RealFIFOOptions{KeyFunction: cache.MetaNamespaceKeyFunc, KnownObjects: indexer, Identifier: id}
	}
	queue := &printingQueue{RealFIFO: cache.NewRealFIFOWithOptions(fifoOpts), out: out, atomic: !perObject}

	cfg := &cache.Config{
		Queue:            queue,
		ListerWatcher:    lw,
		ObjectType:       &corev1.Pod{},
		FullResyncPeriod: resync,
		// processLoop 一次 Pop 一個項目時呼叫 Process。參數是 cache.Deltas（一串變化），
		// 但 RealFIFO 每次只放一個進去：這個型別留自 DeltaFIFO，它會把同一個物件累積的變化一起交出。
		// processLoop calls Process when it pops one item. Its argument is a
		// cache.Deltas (a list of changes), but a RealFIFO always puts exactly
		// one in it: the type is left over from the DeltaFIFO, which handed
		// over all the changes one object had accumulated.
		Process: func(obj any, isInInitialList bool) error {
			return p.processDeltas(obj.(cache.Deltas), isInInitialList)
		},
		// processLoop 呼叫 ProcessBatch 處理一批（最多 1000 個、每個 key 一次）逐物件的變化；
		// 這是 InOrderInformersBatchProcess 的預設行為，兩種模式都一樣。
		// processLoop calls ProcessBatch for a batch of per-object changes (up
		// to 1000, each key once); that is InOrderInformersBatchProcess, on by
		// default, in both modes.
		ProcessBatch: p.processDeltasInBatch,
	}
	return indexer, cache.New(cfg)
}

// processor 把佇列交出來的變化套用到 Indexer，再呼叫處理函式：先更新快取、後通知，
// 處理函式（以及之後的 worker）讀快取時，看到的至少是事件裡的狀態。
//
// processor applies what the queue hands over to the Indexer, then calls the
// handlers: cache first, notification second, so a handler (and later a
// worker) reading the cache sees at least the state in the event.
type processor struct {
	indexer cache.Indexer
	handler cache.ResourceEventHandler
	out     io.Writer
}

// processDeltas 處理一個項目，對應 client-go 的 processDeltas。
//
// processDeltas processes one item, as client-go's processDeltas does.
func (p *processor) processDeltas(deltas cache.Deltas, isInInitialList bool) error {
	for _, d := range deltas {
		if err := p.processDelta(d, isInInitialList); err != nil {
			return err
		}
	}
	return nil
}

func (p *processor) processDelta(d cache.Delta, isInInitialList bool) error {
	switch d.Type {
	case cache.ReplacedAll:
		return p.processReplacedAllInfo(d.Object.(cache.ReplacedAllInfo), isInInitialList)
	case cache.SyncAll:
		pods := p.indexer.List()
		show.With(show.At("fifo"), show.OpPop).Note(p.out, "fifo: SyncAll: OnUpdate(obj, obj) for each of the %s in the indexer", show.Pods(len(pods)))
		for _, obj := range pods {
			show.Line(p.out, "fifo", "OnUpdate", key(obj), "resync: old and new are the same object", show.OpResync)
			p.handler.OnUpdate(obj, obj)
		}
	case cache.Bookmark:
		rv := d.Object.(cache.BookmarkInfo).ResourceVersion
		p.indexer.Bookmark(rv)
		show.Line(p.out, "fifo", "Bookmark", "", "indexer.Bookmark(resourceVersion="+rv+"), no handler call", show.OpBookmark, show.RV(rv), show.Into("indexer"))
	case cache.Deleted:
		if err := p.indexer.Delete(d.Object); err != nil {
			return err
		}
		show.Line(p.out, "fifo", string(d.Type), key(d.Object), "indexer.Delete, OnDelete"+tombstone(d.Object), wrote(d.Object, true)...)
		p.handler.OnDelete(d.Object)
	case cache.Added, cache.Updated, cache.Replaced, cache.Sync:
		old, exists, err := p.indexer.Get(d.Object)
		if err != nil {
			return err
		}
		if exists {
			if err := p.indexer.Update(d.Object); err != nil {
				return err
			}
			show.Line(p.out, "fifo", string(d.Type), key(d.Object), "indexer.Update, OnUpdate", wrote(d.Object, false)...)
			p.handler.OnUpdate(old, d.Object)
			return nil
		}
		if err := p.indexer.Add(d.Object); err != nil {
			return err
		}
		show.Line(p.out, "fifo", string(d.Type), key(d.Object), "indexer.Add, OnAdd"+show.InitialList(isInInitialList), wrote(d.Object, false)...)
		p.handler.OnAdd(d.Object, isInInitialList)
	default:
		return fmt.Errorf("unexpected delta type %q", d.Type)
	}
	return nil
}

// processReplacedAllInfo 處理一次 List 或重新 List 的結果，與 client-go 的同名函式相同：
// 先跟 Indexer 比對出消失的物件（墓碑，帶著快取裡最後的狀態）與每個物件的舊狀態，
// 再一次換掉整個 Indexer，最後才呼叫處理函式：先所有刪除，再依清單順序新增或更新。
// 所以第一個 OnAdd 執行時，快取裡已經是整份清單。
//
// processReplacedAllInfo handles the result of a list or relist, as
// client-go's function of that name does: compare with the Indexer to find what vanished
// (tombstones carrying the last state in the cache) and each object's old
// state; replace the whole Indexer at once; only then call the handlers, every
// delete first, then adds or updates in list order. So when the first OnAdd
// runs, the cache already holds the whole list.
func (p *processor) processReplacedAllInfo(info cache.ReplacedAllInfo, isInInitialList bool) error {
	listed := make(map[string]bool, len(info.Objects))
	olds := make([]any, len(info.Objects))
	for i, obj := range info.Objects {
		listed[key(obj)] = true
		old, exists, err := p.indexer.Get(obj)
		if err != nil {
			return err
		}
		if exists {
			olds[i] = old
		}
	}
	var gone []cache.DeletedFinalStateUnknown
	for _, k := range p.indexer.ListKeys() {
		if !listed[k] {
			// processLoop 是唯一改 Indexer 的地方，而我們就在裡面：ListKeys 列出的 key 一定還在。
			// processLoop is the only writer of the Indexer and we are inside it: a key ListKeys listed is still there.
			last, _, err := p.indexer.GetByKey(k)
			if err != nil {
				return err
			}
			gone = append(gone, cache.DeletedFinalStateUnknown{Key: k, Obj: last})
		}
	}

	if err := p.indexer.Replace(info.Objects, info.ResourceVersion); err != nil {
		return err
	}
	show.With(show.At("fifo"), show.OpPop, show.Holding(keys(info.Objects)...)).
		Note(p.out, "fifo: ReplacedAll with %s: indexer.Replace first, then one handler call per pod", show.Pods(len(info.Objects)))
	for _, t := range gone {
		show.Line(p.out, "fifo", "OnDelete", t.Key, "not in the new list"+tombstone(t), wrote(t, true)...)
		p.handler.OnDelete(t)
	}
	for i, obj := range info.Objects {
		if olds[i] != nil {
			show.Line(p.out, "fifo", "OnUpdate", key(obj), "already in the cache before this list", wrote(obj, false)...)
			p.handler.OnUpdate(olds[i], obj)
			continue
		}
		show.Line(p.out, "fifo", "OnAdd", key(obj), "new to the cache"+show.InitialList(isInInitialList), wrote(obj, false)...)
		p.handler.OnAdd(obj, isInInitialList)
	}
	return nil
}

// processDeltasInBatch 處理一批逐物件的變化，與 client-go 的同名函式相同：
// 先在一個 Indexer 交易（Transaction）裡套用全部，再依序呼叫處理函式。
//
// processDeltasInBatch processes a batch of per-object changes, as
// client-go's function of that name does: apply them all in one Indexer Transaction, then
// call the handlers in order.
func (p *processor) processDeltasInBatch(deltas []cache.Delta, isInInitialList bool) error {
	txns := make([]cache.Transaction, 0, len(deltas))
	calls := make([]func(), 0, len(deltas))
	for _, d := range deltas {
		obj, k := d.Object, key(d.Object)
		switch d.Type {
		case cache.Deleted:
			txns = append(txns, cache.Transaction{Type: cache.TransactionTypeDelete, Object: obj})
			calls = append(calls, func() {
				show.Line(p.out, "fifo", string(d.Type), k, "indexer.Delete (in the batch), OnDelete"+tombstone(obj), wrote(obj, true)...)
				p.handler.OnDelete(obj)
			})
		case cache.Added, cache.Updated, cache.Replaced, cache.Sync:
			old, exists, err := p.indexer.Get(obj)
			if err != nil {
				return err
			}
			if exists {
				txns = append(txns, cache.Transaction{Type: cache.TransactionTypeUpdate, Object: obj})
				calls = append(calls, func() {
					show.Line(p.out, "fifo", string(d.Type), k, "indexer.Update (in the batch), OnUpdate", wrote(obj, false)...)
					p.handler.OnUpdate(old, obj)
				})
				continue
			}
			txns = append(txns, cache.Transaction{Type: cache.TransactionTypeAdd, Object: obj})
			calls = append(calls, func() {
				show.Line(p.out, "fifo", string(d.Type), k, "indexer.Add (in the batch), OnAdd"+show.InitialList(isInInitialList), wrote(obj, false)...)
				p.handler.OnAdd(obj, isInInitialList)
			})
		default:
			return fmt.Errorf("delta type %q cannot be batched", d.Type)
		}
	}
	batch := make([]string, 0, len(deltas))
	for _, d := range deltas {
		batch = append(batch, key(d.Object))
	}
	show.With(show.At("fifo"), show.OpPop, show.Holding(batch...)).
		Note(p.out, "fifo: a batch of %d changes: one indexer transaction, then the handlers", len(deltas))
	if err := p.indexer.(cache.TransactionStore).Transaction(txns...); err != nil {
		return err
	}
	for _, call := range calls {
		call()
	}
	return nil
}

// key 是 DeletionHandlingMetaNamespaceKeyFunc；它只在物件沒有 metadata 時失敗，Pod 的 informer 不會遇到，
// 萬一遇到就把錯誤印出來，不藏起來。
//
// key is DeletionHandlingMetaNamespaceKeyFunc, which fails only for an object
// without metadata, never seen in a pod informer; if it ever happens, the
// error is shown rather than hidden.
func key(obj any) string {
	k, err := cache.DeletionHandlingMetaNamespaceKeyFunc(obj)
	if err != nil {
		return fmt.Sprintf("<%v>", err)
	}
	return k
}

func tombstone(obj any) string {
	if _, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		return " (tombstone)"
	}
	return ""
}

// wrote 是 processLoop 那一行給即時頁面的欄位：它寫了 Indexer（加入或更新 obj，或者刪掉它），
// 然後呼叫處理函式。
//
// wrote is the fields of a processLoop line for the live page: it wrote
// the Indexer (adding or updating obj, or deleting it), then called the
// handler.
func wrote(obj any, deleted bool) []show.Field {
	if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = t.Obj
	}
	pod, _ := obj.(*corev1.Pod)
	change := show.Uncached(pod)
	if !deleted {
		change = show.Cached(pod)
	}
	return []show.Field{show.OpProcess, change, show.Into("indexer")}
}
