package liveview

// 幾個步驟共用的階段：API server、client-go informer 的內部、workqueue 與 worker。步驟可以照用，也可以改掉
// 名字與說明；其他的階段由步驟在自己的 page.go 裡宣告。中文照 docs/zh-TW/glossary.md 的寫法
// （go test ./docs 檢查每一個字串）。說明點出這個階段背後的 client-go 型別。
// Stages several steps share: the API server, the inside of a client-go
// informer, the workqueue and the workers. A step may use them as they are or
// change their names and captions; every other stage a step declares in its
// own page.go. The zh-TW follows docs/zh-TW/glossary.md (go test ./docs checks
// every string). The caption names the client-go type behind the stage.

// APIServer 是 API server：每個請求都是它的一筆事件（來源 request）；寫回它的事件用 show.Into("api")。
//
// APIServer is the API server: every request is one of its events (source
// request); events that write back to it use show.Into("api").
func APIServer() Stage {
	return Stage{
		ID:      "api",
		Label:   Text{"API server", "API server"},
		Caption: Text{"kube-apiserver: every request, with its status", "kube-apiserver：每個請求，以及它的狀態碼"},
		Sources: []string{"request", "api"},
	}
}

// InformerInside 是 client-go informer 的內部（Reflector 與它的佇列）：看得到的只有佇列的深度。
//
// InformerInside is the inside of a client-go informer (the Reflector and
// its queue): only the queue's depth is visible.
func InformerInside(rank int) Stage {
	return Stage{
		ID:      "informer",
		Label:   Text{"Reflector and queue", "Reflector 與佇列"},
		Caption: Text{"inside client-go's informer: only the queue's depth is visible (client-go's informer metrics)", "在 client-go 的 informer 裡面：看得到的只有佇列的深度（client-go 的 informer metrics）"},
		Rank:    rank,
		Depth:   "informer_queued_items",
		Opaque:  true,
	}
}

// Workqueue 是 key 的 workqueue（來源 workqueue）；depth 表示它的深度來自 client-go 的 workqueue metrics。
//
// Workqueue is the workqueue of keys (source workqueue); depth says its
// depth comes from client-go's workqueue metrics.
func Workqueue(rank int, depth bool) Stage {
	s := Stage{
		ID:      "workqueue",
		Label:   Text{"workqueue", "workqueue"},
		Caption: Text{"workqueue.TypedRateLimitingInterface: each key at most once", "workqueue.TypedRateLimitingInterface：每個 key 最多一份"},
		Sources: []string{"workqueue"},
		Rank:    rank,
	}
	if depth {
		s.Depth = "workqueue_depth"
	}
	return s
}

// Workers 是取出 key、讀快取、同步的 goroutine（來源 worker1、worker2…）。
//
// Workers are the goroutines that take a key, read the cache and sync
// (sources worker1, worker2, …).
func Workers(rank int) Stage {
	return Stage{
		ID:      "workers",
		Label:   Text{"Workers", "Worker"},
		Caption: Text{"goroutines that take a key, read the cache and sync: the control loop", "取出 key、讀快取、同步的 goroutine：控制迴圈"},
		Sources: []string{"worker*"},
		Rank:    rank,
	}
}

// Flows 回傳一串 flow 邊：ids[0] → ids[1] → …。
//
// Flows returns a chain of flow edges: ids[0] → ids[1] → ….
func Flows(ids ...string) []Edge {
	var out []Edge
	for i := 1; i < len(ids); i++ {
		out = append(out, Edge{From: ids[i-1], To: ids[i], Kind: Flow})
	}
	return out
}
