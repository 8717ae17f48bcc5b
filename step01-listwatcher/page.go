package main

import "github.com/informer-walkthrough/informer-walkthrough/internal/liveview"

// page 是這一步在即時頁面（--ui）上的樣子：只有它真的有、真的觀察得到的階段。List 與 Watch 都是向 API server
// 發的請求；Watch 從清單的 resourceVersion 開始，之後每個事件都把它往前推，下一次 watch 就從那裡接續。
//
// page is this step on the live page (--ui): only the stages it really has
// and really observes. List and Watch are both requests to the API server;
// Watch starts from the list's resourceVersion, each event moves it on, and
// the next watch continues from there.
func page() liveview.Pipeline {
	api := liveview.APIServer()
	list := liveview.Stage{
		ID:      "list",
		Label:   liveview.Text{En: "List", Zh: "List"},
		Caption: liveview.Text{En: "ListerWatcher.ListWithContext: every pod now, and the list's resourceVersion", Zh: "ListerWatcher.ListWithContext：目前每個 Pod，以及清單的 resourceVersion"},
		Sources: []string{"list"},
		Rank:    1,
	}
	watch := liveview.Stage{
		ID:      "watch",
		Label:   liveview.Text{En: "Watch", Zh: "Watch"},
		Caption: liveview.Text{En: "ListerWatcher.WatchWithContext: the changes after a resourceVersion", Zh: "ListerWatcher.WatchWithContext：某個 resourceVersion 之後的變化"},
		Sources: []string{"watch"},
		Rank:    2,
	}
	return liveview.Pipeline{
		Step:    "step01-listwatcher",
		Title:   liveview.Text{En: "Step 01: a ListerWatcher by hand", Zh: "步驟 01：親手實作 ListerWatcher"},
		Chapter: liveview.Chapter("01-listwatcher"),
		Stages:  []liveview.Stage{api, list, watch},
		Edges: append(liveview.Flows("api", "list"), liveview.Edge{
			From: "list", To: "watch", Kind: liveview.Flow,
			Label: liveview.Text{En: "from the list's resourceVersion", Zh: "從清單的 resourceVersion 開始"},
		}),
	}
}
