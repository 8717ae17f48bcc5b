package liveview

import "fmt"

// stageLabels 是頁面上每個階段的名字與說明，兩種語言在同一張表裡；中文照 docs/zh-TW/glossary.md 的寫法
// （go test ./docs 也檢查這張表）。說明點出這個階段背後的 client-go 型別。
//
// stageLabels holds each stage's name and caption on the page, both
// languages in one table; the zh-TW follows docs/zh-TW/glossary.md (go test
// ./docs checks this table too). The caption names the client-go type
// behind the stage.
var stageLabels = map[string]struct{ label, caption Text }{
	"api": {
		Text{"API server", "API server"},
		Text{"kube-apiserver: every LIST and WATCH request, with its status", "kube-apiserver：每個 LIST 與 WATCH 請求，以及它的狀態碼"},
	},
	"list": {
		Text{"List", "List"},
		Text{"ListerWatcher.ListWithContext: every pod now, and the list's resourceVersion", "ListerWatcher.ListWithContext：目前每個 Pod，以及清單的 resourceVersion"},
	},
	"watch": {
		Text{"Watch", "Watch"},
		Text{"ListerWatcher.WatchWithContext: the changes after a resourceVersion", "ListerWatcher.WatchWithContext：某個 resourceVersion 之後的變化"},
	},
	"store": {
		Text{"Store", "Store"},
		Text{"cache.Store, filled by a cache.Reflector: Replace brings the initial state, then Add, Update, Delete", "cache.Store，由 cache.Reflector 填入：Replace 帶來初始狀態，之後是 Add、Update、Delete"},
	},
	"informer": {
		Text{"Reflector and queue", "Reflector 與佇列"},
		Text{"inside client-go's informer: only the queue's depth is visible (client-go's informer metrics)", "在 client-go 的 informer 裡面：看得到的只有佇列的深度（client-go 的 informer metrics）"},
	},
	"push": {
		Text{"Reflector → RealFIFO", "Reflector → RealFIFO"},
		Text{"what the Reflector pushes into cache.RealFIFO: a list is one ReplacedAll", "Reflector 推進 cache.RealFIFO 的東西：一次 List 是一個 ReplacedAll"},
	},
	"process": {
		Text{"processLoop", "processLoop"},
		Text{"pops batches, writes the Indexer, then calls the handlers (Config.Process, ProcessBatch)", "一次取出一批，寫進 Indexer，再呼叫處理函式（Config.Process、ProcessBatch）"},
	},
	"indexer": {
		Text{"Indexer", "Indexer"},
		Text{"cache.Indexer, the informer's local cache, as the handlers see it", "cache.Indexer，informer 的本機快取，以處理函式看到的樣子"},
	},
	"handlers": {
		Text{"Handlers", "處理函式"},
		Text{"ResourceEventHandler: OnAdd, OnUpdate, OnDelete", "ResourceEventHandler：OnAdd、OnUpdate、OnDelete"},
	},
	"listeners": {
		Text{"processorListeners", "processorListener"},
		Text{"a shared informer's relay to each handler, with its own buffer: the backlog is its own", "共享 informer 交給每個處理函式的中繼站，各有自己的緩衝區：積壓只算它自己的"},
	},
	"lister": {
		Text{"Lister", "Lister"},
		Text{"listers/core/v1.PodLister: reads answered from the cache, no request", "listers/core/v1.PodLister：從快取回應的讀取，不發請求"},
	},
	"tallies": {
		Text{"PodTally informer", "PodTally informer"},
		Text{"the generated (or, with --dynamic, the dynamic) shared informer for PodTally: its handlers queue tally keys", "產生的（加上 --dynamic 時是 dynamic 的）PodTally 共享 informer：它的處理函式把 tally 的 key 放進佇列"},
	},
	"pods": {
		Text{"Pod metadata informer", "Pod 的 metadata informer"},
		Text{"metadatainformer: PartialObjectMetadata only; a label change queues every tally that selects the pod", "metadatainformer：只有 PartialObjectMetadata；標籤一變，就把選中這個 Pod 的每個 tally 放進佇列"},
	},
	"workqueue": {
		Text{"workqueue", "workqueue"},
		Text{"workqueue.TypedRateLimitingInterface: each key at most once; depth from client-go's workqueue metrics", "workqueue.TypedRateLimitingInterface：每個 key 最多一份；深度來自 client-go 的 workqueue metrics"},
	},
	"workers": {
		Text{"Workers", "Worker"},
		Text{"goroutines that take a key, read the cache and sync: the control loop", "取出 key、讀快取、同步的 goroutine：控制迴圈"},
	},
}

// StageOf 回傳表裡的一個階段，由 sources 點亮；表裡沒有這個 id 是程式錯誤。
//
// StageOf returns a stage from the table, lit up by sources; an id missing
// from the table is a programming error.
func StageOf(id string, sources ...string) Stage {
	l, ok := stageLabels[id]
	if !ok {
		panic(fmt.Sprintf("liveview: no labels for stage %q", id))
	}
	return Stage{ID: id, Label: l.label, Caption: l.caption, Sources: sources}
}

// Labels 回傳每個階段的中文名字與說明，給檢查詞彙表的測試用。
//
// Labels returns every stage's zh-TW name and caption, for the test that
// checks the glossary.
func Labels() map[string][]string {
	out := map[string][]string{}
	for id, l := range stageLabels {
		out[id] = []string{l.label.Zh, l.caption.Zh}
	}
	return out
}
