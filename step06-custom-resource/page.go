package main

import "github.com/informer-walkthrough/informer-walkthrough/internal/liveview"

// page 是這一步在即時頁面（--ui）上的樣子：兩個 informer 並排（同時在跑），各自的處理函式把 tally 的 key
// 放進同一個 workqueue；worker 從兩個快取讀（虛線），再把 status 寫回 API server（虛線往回）。那次寫入的
// 更新事件會回到 PodTally informer，在那裡因為 generation 沒變而被擋下。
// 只有具名的 informer（產生的那一個）會回報佇列深度；metadata 與 dynamic 的 informer 沒有 InformerName 選項，
// 所以兩者都畫成看不到裡面的方框。
//
// page is this step on the live page (--ui): two informers side by side
// (running at the same time), whose handlers put tally keys into one
// workqueue; a worker reads both caches (dashed) and writes status back to
// the API server (dashed, going back). The update that write causes comes
// back to the PodTally informer and stops there, its generation unchanged.
// Only named informers report their queue depth (the generated one); the
// metadata and dynamic informers take no InformerName, so both are drawn as
// boxes the page cannot see into.
func page(opts options) liveview.Pipeline {
	tallies := liveview.Stage{
		ID:      "tallies",
		Label:   liveview.Text{En: "PodTally informer", Zh: "PodTally informer"},
		Caption: liveview.Text{En: "the generated shared informer for PodTally: its handlers queue tally keys", Zh: "產生的 PodTally 共享 informer：它的處理函式把 tally 的 key 放進佇列"},
		Sources: []string{"tallies"},
		Rank:    1,
		Depth:   "informer_queued_items",
		// code-generator v0.37.2 的 informer-gen 替 metrics 取資源名稱時只在型別名稱後面加 "s"
		// （cmd/informer-gen/generators/informer.go 第 114 行，strings.ToLower(t.Name.Name) + "s"），
		// client-gen 與 CRD 則是 podtallies。這不是筆誤：改成 podtallies，量表就再也不會動。
		// code-generator v0.37.2's informer-gen names the resource for its
		// metrics by adding "s" to the type's name (line 114 of
		// cmd/informer-gen/generators/informer.go,
		// strings.ToLower(t.Name.Name) + "s"), where client-gen and the CRD say
		// podtallies. It is no typo: "fixed" to podtallies, the gauge never
		// moves again.
		DepthOf: "podtallys",
		Opaque:  true,
	}
	if opts.dynamic {
		tallies.Caption = liveview.Text{En: "dynamicinformer's shared informer for PodTally (unstructured): its handlers queue tally keys", Zh: "dynamicinformer 的 PodTally 共享 informer（unstructured）：它的處理函式把 tally 的 key 放進佇列"}
		tallies.Depth, tallies.DepthOf = "", ""
	}
	pods := liveview.Stage{
		ID:      "pods",
		Label:   liveview.Text{En: "Pod metadata informer", Zh: "只看 metadata 的 Pod informer"},
		Caption: liveview.Text{En: "metadatainformer: PartialObjectMetadata only; a label change queues every tally that selects the pod", Zh: "metadatainformer：只有 PartialObjectMetadata；標籤一變，就把選中這個 Pod 的每個 tally 放進佇列"},
		Sources: []string{"pods"},
		Rank:    1,
		Row:     1,
		Opaque:  true,
	}
	variant := liveview.Text{}
	if opts.dynamic {
		variant = liveview.Text{En: "--dynamic", Zh: "--dynamic"}
	}
	return liveview.Pipeline{
		Step:    "step06-custom-resource",
		Title:   liveview.Text{En: "Step 06: your own resource, generated and metadata-only informers", Zh: "步驟 06：自己的資源、產生的 informer 與只看 metadata 的 informer"},
		Variant: variant,
		Chapter: liveview.Chapter("06-custom-resource"),
		Stages:  []liveview.Stage{liveview.APIServer(), tallies, pods, liveview.Workqueue(2, true), liveview.Workers(3)},
		Edges: append(append(liveview.Flows("api", "tallies", "workqueue", "workers"), liveview.Flows("api", "pods", "workqueue")...),
			liveview.Edge{From: "pods", To: "workers", Kind: liveview.Read, Label: liveview.Text{En: "count pods", Zh: "計算 Pod 數"}},
			liveview.Edge{From: "workers", To: "api", Kind: liveview.Write, Label: liveview.Text{En: "UpdateStatus", Zh: "UpdateStatus"}},
		),
		Panels: []string{"workqueue"},
	}
}
