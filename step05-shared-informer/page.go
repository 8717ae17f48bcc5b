package main

import "github.com/informer-walkthrough/informer-walkthrough/internal/liveview"

// page 是這一步在即時頁面（--ui）上的樣子。導覽：一個共享 informer，後面並排著每個處理函式自己的 lane
// （printer、--slow-handler 時的 slow、Start 之後才加的 late），各自照自己的步調收到同樣的事件；lister 從
// informer 的快取讀（虛線）。--controller：處理函式把 key 放進 workqueue，worker 透過 lister 讀。
//
// page is this step on the live page (--ui). The tour: one shared informer
// and, side by side behind it, a lane of its own for each handler (printer,
// slow with --slow-handler, late added after Start), each getting the same
// events at its own pace; the lister reads the informer's cache (dashed).
// --controller: handlers put keys into the workqueue, and workers read
// through the lister.
func page(opts options) liveview.Pipeline {
	p := liveview.Pipeline{
		Step:    "step05-shared-informer",
		Title:   liveview.Text{En: "Step 05: shared informers, the factory and listers", Zh: "步驟 05：共享 informer、工廠與 lister"},
		Chapter: liveview.Chapter("05-shared-informer"),
		Stages:  []liveview.Stage{liveview.APIServer(), liveview.InformerInside(1)},
		Edges:   liveview.Flows("api", "informer"),
	}
	lister := liveview.Text{En: "Lister().Get", Zh: "Lister().Get"}
	if opts.controller {
		handlers := liveview.Stage{
			ID:      "handlers",
			Label:   liveview.Text{En: "Handlers", Zh: "處理函式"},
			Caption: liveview.Text{En: "typed handlers: queue the cache.ObjectName", Zh: "型別化的處理函式：把 cache.ObjectName 放進佇列"},
			Sources: []string{"handler"},
			Rank:    2,
		}
		p.Variant = liveview.Text{En: "--controller", Zh: "--controller"}
		p.Stages = append(p.Stages, handlers, liveview.Workqueue(3, true), liveview.Workers(4))
		p.Edges = append(p.Edges, liveview.Flows("informer", "handlers", "workqueue", "workers")...)
		p.Edges = append(p.Edges, liveview.Edge{From: "informer", To: "workers", Kind: liveview.Read, Label: lister})
		p.Panels = []string{"cache", "workqueue"}
		p.FailAnnotation = true
		return p
	}
	lane := func(id string, row int, en, zh string) liveview.Stage {
		return liveview.Stage{
			ID: id, Label: liveview.Text{En: id, Zh: id}, Caption: liveview.Text{En: en, Zh: zh},
			Sources: []string{id}, Rank: 2, Row: row, Lane: true,
		}
	}
	lanes := []liveview.Stage{lane("printer", 0, "prints each event as it comes", "事件一來就印出")}
	if opts.slow > 0 || opts.slowWait != nil {
		p.Variant = liveview.Text{En: "--slow-handler", Zh: "--slow-handler"}
		lanes = append(lanes, lane("slow", len(lanes), "takes its time: its processorListener buffers the rest", "慢慢處理：其餘的事件在它的 processorListener 緩衝區裡排隊"))
	}
	lanes = append(lanes, lane("late", len(lanes), "added after Start: synthetic adds from the cache", "Start 之後才加：從快取補送合成的 OnAdd"))
	for _, l := range lanes {
		p.Stages = append(p.Stages, l)
		p.Edges = append(p.Edges, liveview.Edge{From: "informer", To: l.ID, Kind: liveview.Flow})
	}
	p.Stages = append(p.Stages, liveview.Stage{
		ID:      "lister",
		Label:   liveview.Text{En: "Lister", Zh: "Lister"},
		Caption: liveview.Text{En: "listers/core/v1.PodLister: reads answered from the cache, no request", Zh: "listers/core/v1.PodLister：讀取由快取回應，不發請求"},
		Sources: []string{"lister"},
		Rank:    2,
		Row:     len(lanes),
	})
	p.Edges = append(p.Edges, liveview.Edge{From: "informer", To: "lister", Kind: liveview.Read, Label: lister})
	p.Panels = []string{"cache", "listeners"}
	return p
}
