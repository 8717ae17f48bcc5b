package show

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
)

// Event 是一個步驟觀察到的一次轉變：印出的一行（Source、What、Key、Detail）、一行說明（Note），
// 或只給即時頁面看的一筆（Quiet，例如一個 HTTP 請求或一個 metric 的新值）。Seq 是全序，T 是從串流開始的毫秒數。
// 其餘是型別化欄位（fields.go）：頁面只讀它們。Stage 與 Into 是頁面的階段，由串流依步驟的宣告從來源名稱填上。
//
// Event is one transition a step observes: a printed line (Source, What,
// Key, Detail), a line of narration (Note), or one for the live page alone
// (Quiet, such as an HTTP request or a metric's new value). Seq is a total
// order; T counts milliseconds since the stream started. The rest are typed
// fields (fields.go), the only thing the page reads. Stage and Into are the
// page's stages, filled in by the stream from source names, as the step
// declares them.
type Event struct {
	Seq    uint64 `json:"seq"`
	T      int64  `json:"t"`
	Source string `json:"source,omitempty"`
	What   string `json:"what,omitempty"`
	Key    string `json:"key,omitempty"`
	Detail string `json:"detail,omitempty"`
	Note   bool   `json:"note,omitempty"`
	Quiet  bool   `json:"quiet,omitempty"`

	Op        Op                  `json:"op,omitempty"`
	Stage     string              `json:"stage,omitempty"`
	Into      string              `json:"into,omitempty"`
	From      string              `json:"from,omitempty"`
	For       string              `json:"for,omitempty"`
	Keys      []string            `json:"keys,omitempty"`
	Obj       *Object             `json:"obj,omitempty"`
	Cache     string              `json:"cache,omitempty"`
	RV        string              `json:"rv,omitempty"`
	Retry     *Retry              `json:"retry,omitempty"`
	Behind    *int64              `json:"behind,omitempty"`
	Initial   bool                `json:"initial,omitempty"`
	Index     map[string][]string `json:"index,omitempty"`
	IndexSize map[string]int      `json:"indexSize,omitempty"`
	Value     *float64            `json:"value,omitempty"`
	Req       *Request            `json:"req,omitempty"`
}

// Text 是一筆事件印出來的那一行（不含換行），跟 golden file 裡的一模一樣；Quiet 的事件沒有這一行。
//
// Text is the line an event prints (without the newline), exactly as the
// golden files hold it; a Quiet event has none.
func (e Event) Text() string {
	if e.Note {
		return "-- " + e.Detail
	}
	return strings.TrimRight(fmt.Sprintf("%-*s %-*s %-24s %s", sourceWidth, e.Source, whatWidth, e.What, e.Key, e.Detail), " ")
}

// sourceWidth 與 whatWidth 是 source 與 what 兩欄的寬度；更長的名字會把後面的欄位推開，所以 Line 不接受。
//
// sourceWidth and whatWidth are the widths of the source and what columns; a
// longer name would push the columns after it out of line, so Line refuses
// one.
const (
	sourceWidth = 8
	whatWidth   = 9
)

// Sink 收到串流的每一筆事件，一次一筆、依 Seq 的順序。規則：Emit 不能阻塞，
// 因為它在串流的鎖裡執行，慢的接收者會拖慢步驟本身。
//
// Sink receives every event of a stream, one at a time, in Seq order. The
// rule: Emit must not block, since it runs under the stream's lock, and a
// slow sink would slow the step itself.
type Sink interface {
	Emit(Event)
}

// Stream 是步驟輸出事件的地方：把每一筆印成原本那一行，再交給每個 Sink（即時頁面、錄製、metrics）。
// 它也是一個 io.Writer，所以課程程式照舊把它當作 out 傳下去。
//
// Stream is where a step's events go: each is printed as its usual line,
// then handed to every Sink (the live page, the recording, metrics). It is
// an io.Writer too, so lesson code passes it down as out, as before.
type Stream struct {
	mu      sync.Mutex
	seq     uint64
	start   time.Time
	text    io.Writer
	sinks   []Sink
	stageOf func(source string) string
}

// NewStream 回傳一個把文字寫到 text、把事件交給 sinks 的串流。
//
// NewStream returns a stream that writes text to text and hands events to
// sinks.
func NewStream(text io.Writer, sinks ...Sink) *Stream {
	return &Stream{start: time.Now(), text: text, sinks: sinks}
}

// Places 讓串流替每筆事件填上頁面的階段：stageOf 把一個來源名稱（事件的 Source、Queued 的 place）
// 對應到步驟宣告的階段，沒有對應時回傳空字串。
//
// Places has the stream fill in each event's page stages: stageOf maps a
// source name (an event's Source, Queued's place) to a stage the step
// declares, or to the empty string.
func (s *Stream) Places(stageOf func(source string) string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stageOf = stageOf
}

// Also 再加一個 Sink，之後的每筆事件它都收得到（測試用它等待不印出的事件，例如 Done）。
//
// Also adds one more sink, which receives every event from then on (tests
// use it to wait for events that are not printed, such as Done).
func (s *Stream) Also(sink Sink) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sinks = append(s.sinks, sink)
}

// Start 是串流開始的時刻：每筆事件的 T 都從這裡算起（毫秒）。
//
// Start is when the stream began: every event's T counts from here (in
// milliseconds).
func (s *Stream) Start() time.Time { return s.start }

// Write 把原始的位元組寫到文字輸出，跟事件行在同一把鎖下，順序不會交錯。
//
// Write passes raw bytes to the text output, under the same lock as the
// event lines, so the order never interleaves.
func (s *Stream) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.text.Write(p)
}

// Emit 為事件編上 Seq 與時間，印出它那一行（Quiet 的除外），再交給每個 Sink。
//
// Emit numbers the event and stamps its time, prints its line (unless it is
// Quiet), then hands it to every Sink.
func (s *Stream) Emit(e Event) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seq++
	e.Seq, e.T = s.seq, time.Since(s.start).Milliseconds()
	if s.stageOf != nil {
		if e.Source != "" {
			e.Stage = s.stageOf(e.Source)
		}
		if e.Into != "" {
			e.Into = s.stageOf(e.Into)
		}
		if e.From != "" {
			e.From = s.stageOf(e.From)
		}
		if e.For != "" {
			e.For = s.stageOf(e.For)
		}
	}
	if !e.Quiet {
		fmt.Fprintln(s.text, e.Text())
	}
	for _, sink := range s.sinks {
		sink.Emit(e)
	}
}

// Prefix 是一行事件開頭到 key 為止的樣子，後面接一個空格：source、what 與 key 照 Text 的欄寬排好；
// key 是空字串時，只到 key 那一欄的開頭。測試用它找一行事件，不必自己數空格；欄寬改了，它跟著改。
//
// Prefix is how an event line reads from its start up to its key, followed
// by a space: source, what and key laid out in Text's columns; with an empty
// key, only up to where the key column starts. Tests find an event line with
// it instead of counting spaces themselves; when a column's width changes,
// it changes with it.
func Prefix(source, what, key string) string {
	start := fmt.Sprintf("%-*s %-*s ", sourceWidth, source, whatWidth, what)
	if key == "" {
		return start
	}
	return start + key + " "
}
