package main

import "github.com/informer-walkthrough/informer-walkthrough/internal/liveview"

// page 是這一步在即時頁面（--ui）上的樣子。Reflector 是 client-go 的：步驟看不到它裡面，只看得到它發出的請求
// （API server 方框裡，可以看到 optionsModifier 加上的選擇器）與它對 Store 的每一次呼叫。
//
// page is this step on the live page (--ui). The Reflector is client-go's:
// the step cannot see inside it, only the requests it sends (in the API
// server box, with the selectors the optionsModifier added) and each call it
// makes on the Store.
func page() liveview.Pipeline {
	reflector := liveview.Stage{
		ID:      "reflector",
		Label:   liveview.Text{En: "Reflector", Zh: "Reflector"},
		Caption: liveview.Text{En: "cache.Reflector: lists and watches through the ListWatch, backs off, resumes", Zh: "cache.Reflector：透過 ListWatch 做 List 與 Watch，退避之後接續"},
		Rank:    1,
		Opaque:  true,
	}
	store := liveview.Stage{
		ID:      "store",
		Label:   liveview.Text{En: "Store", Zh: "Store"},
		Caption: liveview.Text{En: "cache.Store: Replace brings the initial state, then Add, Update, Delete", Zh: "cache.Store：Replace 帶來初始狀態，之後是 Add、Update、Delete"},
		Sources: []string{"store"},
		Rank:    2,
	}
	return liveview.Pipeline{
		Step:    "step02-listwatch-from-client",
		Title:   liveview.Text{En: "Step 02: the ListWatch client-go builds, run by a Reflector", Zh: "步驟 02：client-go 建出的 ListWatch，由 Reflector 執行"},
		Chapter: liveview.Chapter("02-listwatch-from-client"),
		Stages:  []liveview.Stage{liveview.APIServer(), reflector, store},
		Edges:   liveview.Flows("api", "reflector", "store"),
		Panels:  []string{"cache"},
	}
}
