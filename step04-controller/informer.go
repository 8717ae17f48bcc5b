package main

import (
	"fmt"
	"io"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/informer-walkthrough/informer-walkthrough/internal/show"
)

// newInformer 親手組出步驟 03 裡 NewInformerWithOptions 替我們組好的東西：
//
//	API server → ListerWatcher → Reflector → RealFIFO → processLoop → Process → Indexer + 處理函式
//
// cache.New 只負責接線：它建立 Reflector，讓 Reflector 把 List 與 Watch 的結果
// 推進佇列（Queue），再由 processLoop 一個一個 Pop 出來交給 Process。
//
// newInformer assembles by hand what NewInformerWithOptions assembled for us
// in step 03:
//
//	API server → ListerWatcher → Reflector → RealFIFO → processLoop → Process → Indexer + handlers
//
// cache.New only wires it up: it creates the Reflector, which pushes what List
// and Watch return into the Queue, and processLoop pops the entries one by one
// and hands them to Process.
func newInformer(lw cache.ListerWatcher, handler cache.ResourceEventHandler, out io.Writer) (cache.Indexer, cache.Controller) {
	indexer := cache.NewIndexer(cache.DeletionHandlingMetaNamespaceKeyFunc, cache.Indexers{})

	// 佇列是 RealFIFO：事件依到達的順序排隊，一個都不合併。舊文章（以及原始文章的年代）
	// 描述的是 DeltaFIFO，它把同一個物件的變化累積成一串 Deltas；v0.37 的 informer 用的是 RealFIFO。
	// KnownObjects 讓它在重新 List 時，能替消失的物件產生 Deleted（墓碑）。
	// The queue is a RealFIFO: events queue in arrival order, none merged.
	// Older material (and the source article's era) describes the DeltaFIFO,
	// which accumulated one object's changes into a list of Deltas; v0.37
	// informers run a RealFIFO. KnownObjects lets it emit a Deleted (a
	// tombstone) for objects that vanished by the time of a relist.
	fifo := cache.NewRealFIFOWithOptions(cache.RealFIFOOptions{
		KeyFunction:  cache.MetaNamespaceKeyFunc,
		KnownObjects: indexer,
	})

	cfg := &cache.Config{
		Queue:         fifo,
		ListerWatcher: lw,
		ObjectType:    &corev1.Pod{},
		// Process 是 processLoop 每 Pop 一次就呼叫一次的函式。
		// Process is what processLoop calls for every Pop.
		Process: func(obj any, isInInitialList bool) error {
			for _, d := range obj.(cache.Deltas) {
				if err := process(d, isInInitialList, indexer, handler, out); err != nil {
					return err
				}
			}
			return nil
		},
	}
	return indexer, cache.New(cfg)
}

// process 處理一個變化（Delta）：先更新 Indexer，再呼叫處理函式——順序很重要，
// 處理函式（以及之後的 worker）讀快取時，看到的必須已經是新的狀態。
// 這就是 client-go 的 processDeltas 做的事，少了批次處理與記錄。
//
// process handles one change (a Delta): update the Indexer first, then call
// the handler. The order matters: when the handler (and later a worker) reads
// the cache, it must already hold the new state. This is what client-go's
// processDeltas does, without the batching and logging.
func process(d cache.Delta, isInInitialList bool, indexer cache.Indexer, handler cache.ResourceEventHandler, out io.Writer) error {
	key, err := cache.DeletionHandlingMetaNamespaceKeyFunc(d.Object)
	if err != nil {
		return err
	}
	switch d.Type {
	case cache.Deleted:
		if err := indexer.Delete(d.Object); err != nil {
			return err
		}
		detail := "indexer.Delete, OnDelete"
		if _, ok := d.Object.(cache.DeletedFinalStateUnknown); ok {
			detail += " (tombstone)"
		}
		show.Line(out, "fifo", string(d.Type), key, detail)
		handler.OnDelete(d.Object)
	case cache.Added, cache.Updated, cache.Replaced, cache.Sync:
		old, exists, err := indexer.Get(d.Object)
		if err != nil {
			return err
		}
		if exists {
			if err := indexer.Update(d.Object); err != nil {
				return err
			}
			show.Line(out, "fifo", string(d.Type), key, "indexer.Update, OnUpdate")
			handler.OnUpdate(old, d.Object)
			return nil
		}
		if err := indexer.Add(d.Object); err != nil {
			return err
		}
		detail := "indexer.Add, OnAdd"
		if isInInitialList {
			detail += " (initial list)"
		}
		show.Line(out, "fifo", string(d.Type), key, detail)
		handler.OnAdd(d.Object, isInInitialList)
	default:
		return fmt.Errorf("unexpected delta type %q", d.Type)
	}
	return nil
}
