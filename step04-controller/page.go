package main

import "github.com/informer-walkthrough/informer-walkthrough/internal/liveview"

// page 是這一步在即時頁面（--ui）上的樣子：親手組出的 informer 每一段都看得到。processLoop 先寫 Indexer、
// 再呼叫處理函式（兩者並排），處理函式把 key 放進 workqueue；worker 取出 key 之後從 Indexer 讀（虛線）。
//
// page is this step on the live page (--ui): every part of the informer
// assembled by hand is visible. processLoop writes the Indexer, then calls
// the handlers (side by side), which put keys into the workqueue; a worker
// takes a key and then reads the Indexer (dashed).
func page(opts options) liveview.Pipeline {
	push := liveview.Stage{
		ID:      "push",
		Label:   liveview.Text{En: "Reflector → RealFIFO", Zh: "Reflector → RealFIFO"},
		Caption: liveview.Text{En: "what the Reflector pushes into cache.RealFIFO: a list is one ReplacedAll", Zh: "Reflector 推進 cache.RealFIFO 的東西：一次 List 是一個 ReplacedAll"},
		Sources: []string{"queue"},
		Rank:    1,
		Depth:   "informer_queued_items",
	}
	variant := liveview.Text{}
	if opts.fifo == "per-object" {
		push.Caption = liveview.Text{En: "what the Reflector pushes into cache.RealFIFO: a list is one Replaced per pod", Zh: "Reflector 推進 cache.RealFIFO 的東西：一次 List 是每個 Pod 一個 Replaced"}
		variant = liveview.Text{En: "--fifo per-object (KUBE_FEATURE_AtomicFIFO=false)", Zh: "--fifo per-object（KUBE_FEATURE_AtomicFIFO=false）"}
	}
	process := liveview.Stage{
		ID:      "process",
		Label:   liveview.Text{En: "processLoop", Zh: "processLoop"},
		Caption: liveview.Text{En: "pops from the queue: Config.Process, or ProcessBatch for a batch", Zh: "從佇列取出：Config.Process，一批時是 ProcessBatch"},
		Sources: []string{"fifo"},
		Rank:    2,
	}
	handlers := liveview.Stage{
		ID:      "handlers",
		Label:   liveview.Text{En: "Handlers", Zh: "處理函式"},
		Caption: liveview.Text{En: "ResourceEventHandler: compute the key, queue it", Zh: "ResourceEventHandler：算出 key，放進佇列"},
		Sources: []string{"handler"},
		Rank:    3,
	}
	indexer := liveview.Stage{
		ID:      "indexer",
		Label:   liveview.Text{En: "Indexer", Zh: "Indexer"},
		Caption: liveview.Text{En: "cache.Indexer, the local cache: written before the handlers run", Zh: "cache.Indexer，本機快取：在處理函式執行之前寫入"},
		Sources: []string{"indexer"},
		Rank:    3,
		Row:     1,
	}
	return liveview.Pipeline{
		Step:    "step04-controller",
		Title:   liveview.Text{En: "Step 04: the Controller under the informer, and a controller on top", Zh: "步驟 04：informer 底下的 Controller，與建在它上面的控制器"},
		Variant: variant,
		Chapter: liveview.Chapter("04-controller"),
		Stages:  []liveview.Stage{liveview.APIServer(), push, process, handlers, indexer, liveview.Workqueue(4, true), liveview.Workers(5)},
		Edges: append(liveview.Flows("api", "push", "process", "handlers", "workqueue", "workers"),
			liveview.Edge{From: "process", To: "indexer", Kind: liveview.Write, Label: liveview.Text{En: "Add, Update, Delete", Zh: "Add、Update、Delete"}},
			liveview.Edge{From: "indexer", To: "workers", Kind: liveview.Read, Label: liveview.Text{En: "GetByKey", Zh: "GetByKey"}},
		),
		Panels:         []string{"cache", "workqueue"},
		FailAnnotation: true,
	}
}
