// Package show 是每個步驟輸出事件的地方：show.go 是一行的格式（來源、發生了什麼、哪個物件、細節；
// 欄位對齊、不含時間戳記，golden file 才能逐行比對），describe.go 是描述物件與變化的詞彙。
//
// Package show is where every step prints its events: show.go is the line
// format (source, what happened, which object, details; aligned, no
// timestamps, so golden files compare line by line), describe.go the words
// that describe objects and changes.
package show

import (
	"fmt"
	"io"
	"sync"
)

var mu sync.Mutex

// Line 印出一行對齊的事件：source（例如 list、watch、handler）、what（例如 ADDED、OnUpdate）、
// key（namespace/name）與 detail。可以從多個 goroutine 呼叫。w 是 *Stream 時，這一行也成為一筆事件。
//
// Line prints one aligned event line: source (such as list, watch,
// handler), what (such as ADDED, OnUpdate), key (namespace/name) and detail.
// It is safe to call from several goroutines. When w is a *Stream, the line
// is an event too.
func Line(w io.Writer, source, what, key, detail string) {
	emit(w, Event{Source: source, What: what, Key: key, Detail: detail})
}

// Note 印出一行說明（不是事件），以 "--" 開頭，讀者一眼就能分辨。
//
// Note prints a line of narration (not an event), starting with "--" so a
// reader tells it apart at a glance.
func Note(w io.Writer, format string, args ...any) {
	emit(w, Event{Note: true, Detail: fmt.Sprintf(format, args...)})
}

// Quiet 是只給即時頁面的一筆事件：什麼都不印；w 不是 *Stream 時什麼都不做。
//
// Quiet is an event for the live page alone: it prints nothing, and does
// nothing when w is not a *Stream.
func Quiet(w io.Writer, source, what, key, detail string) {
	if s, ok := w.(*Stream); ok {
		s.Emit(Event{Source: source, What: what, Key: key, Detail: detail, Quiet: true})
	}
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
