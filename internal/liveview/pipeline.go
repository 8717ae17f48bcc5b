// Package liveview 是步驟的第二個檢視：一個在 127.0.0.1 上的網頁，看著同一串事件（internal/show 的
// Stream）在管線的各個階段之間移動，可以倒帶、錄製、在沒有叢集時重播，並從 client-go 自己的 metrics
// 掛鉤提供 /metrics。文字輸出不變：頁面只是同一串事件的另一種畫法。每個步驟在自己的目錄裡宣告它的頁面
// （page.go：階段、邊、面板、兩種語言的名字）；這個套件與頁面的程式碼不認得任何一個步驟。
//
// Package liveview is a step's second view: a page on 127.0.0.1 that
// watches the same events (internal/show's Stream) move between the stages
// of the pipeline, rewindable, recordable and replayable with no cluster,
// with /metrics fed by client-go's own metrics hooks. The text output does
// not change: the page draws the same events another way. Each step
// declares its page in its own directory (page.go: stages, edges, panels,
// names in both languages); this package and the page's code know no step.
package liveview

import "strings"

// Text 是一段兩種語言的文字；頁面依使用者選的語言顯示其中一種。
//
// Text is a piece of text in both languages; the page shows the one the user
// picked.
type Text struct {
	En string `json:"en"`
	Zh string `json:"zh"`
}

// Stage 是頁面上的一個方框：步驟真的觀察得到的一個階段。Sources 是課程程式用來指這個地方的名字
// （事件的來源，以及 show.Queued、show.Into 的目的地；結尾的 * 表示前置字串，例如 worker*）。
// Rank 是它在第幾欄（由左到右）；同時在跑的階段（同一個 informer 的幾個處理函式、兩個並排的 informer）
// 有同一個 Rank、不同的 Row。Depth 是它的深度來自哪個 metric（client-go 的 informer 或 workqueue metrics），
// DepthOf 在一個步驟有幾個 informer 時指定是哪個資源的；沒有 Depth 的階段不畫深度。Opaque 表示頁面看不到
// 裡面個別的項目，只畫成有深度的方框，不畫移動的圓標。Lane 表示這是一個共享 informer 的處理函式之一：
// 每個處理函式照自己的步調收到每一個事件，所以它的圓標是它自己的，不會把 key 從別的階段拉過來。
//
// Stage is one box on the page: a stage the step really observes. Sources
// are the names lesson code uses for this place (events' sources, and the
// destinations of show.Queued and show.Into; a trailing * is a prefix, as in
// worker*). Rank is its column, left to right; stages that run side by side
// (one informer's handlers, two informers next to each other) share a Rank
// on different Rows. Depth names the metric its depth comes from (client-go's
// informer or workqueue metrics), and DepthOf which resource's, when a step
// has several informers; a stage without Depth draws no depth. Opaque says
// the page cannot see the items inside it, so it is drawn as a box with a
// depth, not with moving tokens. Lane says this is one of a shared
// informer's handlers: each gets every event at its own pace, so its tokens
// are its own and never pull a key away from another stage.
type Stage struct {
	ID      string   `json:"id"`
	Label   Text     `json:"label"`
	Caption Text     `json:"caption"`
	Sources []string `json:"sources,omitempty"`
	Rank    int      `json:"rank"`
	Row     int      `json:"row"`
	Depth   string   `json:"depth,omitempty"`
	DepthOf string   `json:"depthOf,omitempty"`
	Opaque  bool     `json:"opaque,omitempty"`
	Lane    bool     `json:"lane,omitempty"`
}

// Edge 是兩個階段之間的一條邊。Kind 是 flow（物件或 key 沿著它移動）、read（To 從 From 讀：快取的讀取）
// 或 write（To 被寫入：例如 status 寫回 API server）。read 與 write 畫成虛線，標上 Label。
//
// Edge is an edge between two stages. Kind is flow (objects or keys move
// along it), read (To reads from From: reads of a cache) or write (To is
// written to: status going back to the API server, say). read and write are
// drawn dashed, with their Label.
type Edge struct {
	From  string `json:"from"`
	To    string `json:"to"`
	Kind  string `json:"kind"`
	Label Text   `json:"label"`
}

// 邊的種類。 / The kinds of edge.
const (
	Flow  = "flow"
	Read  = "read"
	Write = "write"
)

// Pipeline 是一個步驟對頁面的宣告：它的名字、標題、這次執行的變化（Variant，例如一個旗標）、各個階段與
// 它們之間的邊，以及頁面要畫的面板（cache：快取的內容；index：索引；listeners：每個處理函式的積壓；
// workqueue：key 的佇列）。
//
// Pipeline is what a step declares to the page: its name, title, what this
// run varies (Variant, such as a flag), its stages and the edges between
// them, and the panels the page draws (cache: what the cache holds; index:
// the index; listeners: each handler's backlog; workqueue: the queue of
// keys).
type Pipeline struct {
	Step    string   `json:"step"`
	Title   Text     `json:"title"`
	Variant Text     `json:"variant,omitzero"`
	Chapter string   `json:"chapter"`
	Stages  []Stage  `json:"stages"`
	Edges   []Edge   `json:"edges,omitempty"`
	Panels  []string `json:"panels,omitempty"`
	// FailAnnotation 表示步驟的 sync 讀 informer-lab/fail：頁面才畫出讓它失敗與恢復的按鈕。
	// FailAnnotation says the step's sync reads informer-lab/fail, so the page draws the buttons that make it fail and recover.
	FailAnnotation bool `json:"failAnnotation,omitempty"`
}

// Place 回傳課程程式叫做 source 的那個地方是哪個階段（沒有時是空字串）。show.Stream 用它替每筆事件填上階段。
//
// Place returns the stage that lesson code calls source (the empty string
// when none is). show.Stream fills in each event's stages with it.
func (p Pipeline) Place(source string) string {
	for _, s := range p.Stages {
		for _, src := range s.Sources {
			if src == source || (strings.HasSuffix(src, "*") && strings.HasPrefix(source, strings.TrimSuffix(src, "*"))) {
				return s.ID
			}
		}
	}
	return ""
}

// Chapter 是一章在 repo 裡的路徑（英文版；頁面切到中文時換成中文版）。頁面把它當文字顯示：
// 學習者手上有 clone，匯出的檔案也不必仰賴任何網站。
//
// Chapter is a chapter's path in the repository (the English one; the page
// swaps in the zh-TW one when switched to Chinese). The page shows it as
// text: learners have the clone, and an exported file depends on no site.
func Chapter(name string) string {
	return "docs/en/" + name + ".md"
}
