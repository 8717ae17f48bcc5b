// Package liveview 是步驟的第二個檢視：一個在 127.0.0.1 上的網頁，看著同一串事件（internal/show 的
// Stream）在管線的各個階段之間移動，可以倒帶、錄製、在沒有叢集時重播，並從 client-go 自己的 metrics
// 掛鉤提供 /metrics。文字輸出不變：頁面只是同一串事件的另一種畫法。
//
// Package liveview is a step's second view: a page on 127.0.0.1 that
// watches the same events (internal/show's Stream) move between the stages
// of the pipeline, rewindable, recordable and replayable with no cluster,
// with /metrics fed by client-go's own metrics hooks. The text output does
// not change: the page draws the same events another way.
package liveview

// Text 是一段兩種語言的文字；頁面依使用者選的語言顯示其中一種。
//
// Text is a piece of text in both languages; the page shows the one the user
// picked.
type Text struct {
	En string `json:"en"`
	Zh string `json:"zh"`
}

// Stage 是頁面上的一個方框：步驟真的觀察得到的一個階段。Sources 是點亮它的事件來源（結尾的 * 表示前置字串，
// 例如 worker*）；Depth 是它的深度來自哪個 metric（client-go 的 informer 或 workqueue metrics），DepthOf
// 在一個步驟有幾個 informer 時指定是哪個資源的；Opaque 表示頁面看不到裡面個別的項目，只畫成有深度的方框，
// 不畫移動的標記。
//
// Stage is one box on the page: a stage the step really observes. Sources
// are the event sources that light it up (a trailing * is a prefix, as in
// worker*); Depth names the metric its depth comes from (client-go's
// informer or workqueue metrics), and DepthOf which resource's, when a step
// has several informers; Opaque says the page cannot see the items inside
// it, so it is drawn as a box with a depth, not with moving tokens.
type Stage struct {
	ID      string   `json:"id"`
	Label   Text     `json:"label"`
	Caption Text     `json:"caption"`
	Sources []string `json:"sources,omitempty"`
	Depth   string   `json:"depth,omitempty"`
	DepthOf string   `json:"depthOf,omitempty"`
	Opaque  bool     `json:"opaque,omitempty"`
}

// Pipeline 是一個步驟對頁面的宣告：它的名字、標題、依序的各個階段，以及頁面要畫的面板
// （cache：快取的內容；index：byApp 索引；listeners：每個處理函式的積壓；workqueue：key 的佇列）。
//
// Pipeline is what a step declares to the page: its name, title, its stages
// in order, and the panels the page draws (cache: what the cache holds;
// index: the byApp index; listeners: each handler's backlog; workqueue: the
// queue of keys).
type Pipeline struct {
	Step    string   `json:"step"`
	Title   Text     `json:"title"`
	Chapter string   `json:"chapter"`
	Stages  []Stage  `json:"stages"`
	Panels  []string `json:"panels,omitempty"`
	// FailAnnotation 表示步驟的 sync 讀 informer-lab/fail：頁面才畫出讓它失敗與恢復的按鈕。
	// FailAnnotation says the step's sync reads informer-lab/fail, so the page draws the buttons that make it fail and recover.
	FailAnnotation bool `json:"failAnnotation,omitempty"`
}

// Chapter 是一章在 repo 裡的路徑（英文版；頁面切到中文時換成中文版）。頁面把它當文字顯示：
// 學習者手上有 clone，匯出的檔案也不必依賴任何網站。
//
// Chapter is a chapter's path in the repository (the English one; the page
// swaps in the zh-TW one when switched to Chinese). The page shows it as
// text: learners have the clone, and an exported file depends on no site.
func Chapter(name string) string {
	return "docs/en/" + name + ".md"
}
