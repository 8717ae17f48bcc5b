// Package show 是每個步驟輸出事件的地方：show.go 是一行的格式（來源、發生了什麼、哪個物件、細節；
// 欄位對齊、不含時間戳記，golden file 才能逐行比對），fields.go 是事件帶給即時頁面的型別化欄位，
// describe.go 是描述物件與變化的詞彙。
// 把拿到的 out 原封不動地傳下去：包上一層別的 io.Writer，頁面與錄製檔就收不到事件了。
//
// Package show is where every step prints its events: show.go is the line
// format (source, what happened, which object, details; aligned, no
// timestamps, so golden files compare line by line), fields.go the typed
// fields an event carries for the live page, describe.go the words that
// describe objects and changes. Pass the writer you were given down as it
// is: wrapped in another io.Writer, it no longer reaches the page or the
// recording.
package show

import (
	"fmt"
	"io"
	"sync"
)

var mu sync.Mutex

// Line 印出一行對齊的事件：source（例如 list、watch、handler）、what（例如 ADDED、OnUpdate）、
// key（namespace/name）與 detail。fields 是給即時頁面的型別化欄位（見 fields.go），不改變印出的那一行。
// 可以從多個 goroutine 呼叫。w 是 *Stream 時，這一行也成為一筆事件。
//
// Line prints one aligned event line: source (such as list, watch,
// handler), what (such as ADDED, OnUpdate), key (namespace/name) and detail.
// fields are typed fields for the live page (see fields.go); they do not
// change the printed line. It is safe to call from several goroutines. When
// w is a *Stream, the line is an event too.
func Line(w io.Writer, source, what, key, detail string, fields ...Field) {
	if len(source) > sourceWidth || len(what) > whatWidth {
		panic(fmt.Sprintf("show.Line: source %q or what %q is wider than its column (%d, %d)", source, what, sourceWidth, whatWidth))
	}
	emit(w, with(Event{Source: source, What: what, Key: key, Detail: detail}, fields))
}

// Note 印出一行說明（不是事件），以 "--" 開頭，讀者一眼就能分辨。要帶型別化欄位的說明用 With(...).Note。
//
// Note prints a line of narration (not an event), starting with "--" so a
// reader tells it apart at a glance. A note with typed fields is
// With(...).Note.
func Note(w io.Writer, format string, args ...any) {
	emit(w, Event{Note: true, Detail: fmt.Sprintf(format, args...)})
}

// Quiet 是只給即時頁面的一筆事件：什麼都不印；w 不是 *Stream 時什麼都不做。
//
// Quiet is an event for the live page alone: it prints nothing, and does
// nothing when w is not a *Stream.
func Quiet(w io.Writer, source, what, key, detail string, fields ...Field) {
	if s, ok := w.(*Stream); ok {
		s.Emit(with(Event{Source: source, What: what, Key: key, Detail: detail, Quiet: true}, fields))
	}
}

// Fields 是先準備好的一組欄位，用來寫一行帶著它們的說明：show.With(show.RV(rv)).Note(out, "…")。
//
// Fields is a set of fields made ready first, to write a note that carries
// them: show.With(show.RV(rv)).Note(out, "…").
type Fields []Field

// With 回傳一組欄位。
//
// With returns a set of fields.
func With(fields ...Field) Fields { return fields }

// Note 跟 show.Note 一樣印出一行說明，並帶著這組欄位。
//
// Note prints a line of narration as show.Note does, carrying these fields.
func (f Fields) Note(w io.Writer, format string, args ...any) {
	emit(w, with(Event{Note: true, Detail: fmt.Sprintf(format, args...)}, f))
}

func with(e Event, fields []Field) Event {
	for _, f := range fields {
		f.apply(&e)
	}
	return e
}

func emit(w io.Writer, e Event) {
	if s, ok := w.(*Stream); ok {
		s.Emit(e)
		return
	}
	mu.Lock()
	defer mu.Unlock()
	fmt.Fprintln(w, e.Text())
}
