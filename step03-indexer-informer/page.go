package main

import "github.com/informer-walkthrough/informer-walkthrough/internal/liveview"

// page 是這一步在即時頁面（--ui）上的樣子。informer 是 client-go 的：步驟看不到它的佇列裡面（只有深度），
// 看得到的是它呼叫的處理函式，以及步驟自己對 Indexer 的讀取。informer 先寫 Indexer、再呼叫處理函式，
// 所以處理函式讀到的索引已經包含這次的變化。
//
// page is this step on the live page (--ui). The informer is client-go's:
// the step cannot see inside its queue (only its depth); what it sees is the
// handlers it calls and the step's own reads of the Indexer. The informer
// writes the Indexer, then calls the handlers, so the index a handler reads
// already holds the change.
func page(options) liveview.Pipeline {
	handlers := liveview.Stage{
		ID:      "handlers",
		Label:   liveview.Text{En: "Handlers", Zh: "處理函式"},
		Caption: liveview.Text{En: "ResourceEventHandler: OnAdd, OnUpdate, OnDelete", Zh: "ResourceEventHandler：OnAdd、OnUpdate、OnDelete"},
		Sources: []string{"handler"},
		Rank:    2,
	}
	indexer := liveview.Stage{
		ID:      "indexer",
		Label:   liveview.Text{En: "Indexer", Zh: "Indexer"},
		Caption: liveview.Text{En: "cache.Indexer, the local cache: written first, then read by the handler (ByIndex) and by ListKeys, GetByKey", Zh: "cache.Indexer，本機快取：先寫入，再由處理函式（ByIndex）與 ListKeys、GetByKey 讀取"},
		Sources: []string{"indexer"},
		Rank:    2,
		Row:     1,
	}
	// informer 方框收到 stored 的記號：Indexer 在處理函式之前寫入。 / The informer box gets stored's notes: the Indexer is written before the handler.
	informer := liveview.InformerInside(1)
	informer.Sources = []string{"informer"}
	return liveview.Pipeline{
		Step:    "step03-indexer-informer",
		Title:   liveview.Text{En: "Step 03: the indexer informer", Zh: "步驟 03：indexer informer"},
		Chapter: liveview.Chapter("03-indexer-informer"),
		Stages:  []liveview.Stage{liveview.APIServer(), informer, handlers, indexer},
		Edges: append(liveview.Flows("api", "informer", "handlers"),
			liveview.Edge{From: "informer", To: "indexer", Kind: liveview.Write, Label: liveview.Text{En: "first", Zh: "先寫入"}},
			liveview.Edge{From: "indexer", To: "handlers", Kind: liveview.Read, Label: liveview.Text{En: "ByIndex", Zh: "ByIndex"}},
		),
		Panels: []string{"cache", "index"},
	}
}
