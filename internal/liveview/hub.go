package liveview

import (
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/informer-walkthrough/informer-walkthrough/internal/show"
)

// MaxHistory 是 Hub 保留的事件數上限：超過時丟掉最舊的（一筆大約 200 位元組，五萬筆約 10 MB），
// 頁面會說它從第幾筆開始。頁面自己也最多留這麼多。
//
// MaxHistory bounds the events a Hub keeps: past it the oldest are dropped
// (about 200 bytes each, so 50,000 are about 10 MB), and the page says where
// its history starts. The page keeps at most as many itself.
const MaxHistory = 50000

// flushEvery 是伺服器把一批事件送給瀏覽器的間隔：一筆事件到了之後，再等這麼久收集同一批的其他事件。
//
// flushEvery is how often the server sends a batch of events to the
// browser: once an event arrives, it waits this long for others to join it.
const flushEvery = 10 * time.Millisecond

// subscriberBuffer 是每個瀏覽器連線的緩衝；塞滿時那個連線被關掉（瀏覽器會帶著 Last-Event-ID
// 重新連上、從歷史補齊），絕不讓步驟等它。
//
// subscriberBuffer is each browser connection's buffer; when it fills up the
// connection is closed (the browser reconnects with Last-Event-ID and catches
// up from the history), so the step never waits for it.
const subscriberBuffer = 4096

// Hub 是一個 show.Sink：它保留事件的歷史，並把每一筆送給連著的每個頁面（server-sent events）。
// 重新連上的頁面帶著最後看到的 Seq，Hub 先補上之後的歷史再繼續即時送：跟步驟 01 的先 List 再 Watch 一樣，
// Seq 就是 resourceVersion。
//
// Hub is a show.Sink: it keeps the events' history and sends each one to
// every connected page (server-sent events). A page that reconnects brings
// the last Seq it saw; the Hub replays the history after it, then streams
// live: step 01's list-then-watch, with Seq as the resourceVersion.
type Hub struct {
	mu      sync.Mutex
	history []show.Event
	subs    map[chan show.Event]struct{}
	closed  bool
}

func NewHub() *Hub {
	return &Hub{subs: map[chan show.Event]struct{}{}}
}

// Emit 記下事件並交給每個訂閱者；訂閱者的緩衝滿了就斷開它，不等待。
//
// Emit records the event and offers it to every subscriber; a subscriber
// whose buffer is full is cut off, never waited for.
func (h *Hub) Emit(e show.Event) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.history) == MaxHistory {
		h.history = append(h.history[:0:0], h.history[MaxHistory/10:]...)
	}
	h.history = append(h.history, e)
	for ch := range h.subs {
		select {
		case ch <- e:
		default:
			delete(h.subs, ch)
			close(ch)
		}
	}
}

// Load 用錄製檔的事件當作歷史（重播時）。
//
// Load makes a recording's events the history (for replay).
func (h *Hub) Load(events []show.Event) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.history = append([]show.Event(nil), events...)
	if len(h.history) > MaxHistory {
		h.history = h.history[len(h.history)-MaxHistory:]
	}
}

// Events 回傳目前的歷史。
//
// Events returns the history so far.
func (h *Hub) Events() []show.Event {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]show.Event(nil), h.history...)
}

// Close 結束每個訂閱者的串流；之後的 Emit 照樣記進歷史。
//
// Close ends every subscriber's stream; later Emits still go into the
// history.
func (h *Hub) Close() {
	h.mu.Lock()
	defer h.mu.Unlock()
	for ch := range h.subs {
		close(ch)
	}
	h.subs = map[chan show.Event]struct{}{}
	h.closed = true
}

// subscribe 回傳 after 之後的歷史，以及接下來的事件的通道（Hub 關閉後是 nil）。
//
// subscribe returns the history after after, and a channel for the events
// that follow (nil once the Hub is closed).
func (h *Hub) subscribe(after uint64) ([]show.Event, chan show.Event) {
	h.mu.Lock()
	defer h.mu.Unlock()
	var past []show.Event
	for _, e := range h.history {
		if e.Seq > after {
			past = append(past, e)
		}
	}
	if h.closed {
		return past, nil
	}
	ch := make(chan show.Event, subscriberBuffer)
	h.subs[ch] = struct{}{}
	return past, ch
}

// cutOff 斷開每個訂閱者，就像它們都跟不上一樣（Hub 沒有關閉）。
//
// cutOff cuts every subscriber off, as if each had fallen behind (the Hub
// stays open).
func (h *Hub) cutOff() {
	h.mu.Lock()
	defer h.mu.Unlock()
	for ch := range h.subs {
		delete(h.subs, ch)
		close(ch)
	}
}

// ended 說 Hub 是否已經關閉：通道關閉的原因若不是這個，就是訂閱者跟不上被斷開了。
//
// ended reports whether the Hub is closed: a channel closed for any other
// reason means the subscriber fell behind and was cut off.
func (h *Hub) ended() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.closed
}

func (h *Hub) unsubscribe(ch chan show.Event) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if _, ok := h.subs[ch]; ok {
		delete(h.subs, ch)
		close(ch)
	}
}

// ServeHTTP 是 /events：server-sent events，每筆一個 "id: Seq"。瀏覽器斷線重連時送 Last-Event-ID，
// 從那之後接續；歷史送完之後送一個 "synced" 事件，頁面據此知道它已經趕上。
//
// ServeHTTP is /events: server-sent events, each with "id: Seq". A browser
// reconnecting sends Last-Event-ID and resumes after it; once the history
// is sent a "synced" event tells the page it has caught up.
func (h *Hub) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	flusher, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "streaming unsupported", http.StatusInternalServerError)
		return
	}
	after, _ := strconv.ParseUint(r.Header.Get("Last-Event-ID"), 10, 64)
	past, ch := h.subscribe(after)
	if ch != nil {
		defer h.unsubscribe(ch)
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	var buf []byte
	send := func(e show.Event) error {
		buf = append(buf[:0], "id: "...)
		buf = strconv.AppendUint(buf, e.Seq, 10)
		buf = append(buf, "\ndata: "...)
		buf = e.AppendJSON(buf)
		buf = append(buf, "\n\n"...)
		_, err := w.Write(buf)
		return err
	}
	fmt.Fprint(w, "retry: 250\n\n")
	for _, e := range past {
		if send(e) != nil {
			return
		}
	}
	fmt.Fprint(w, "event: synced\ndata: {}\n\n")
	// end 告訴頁面不會再有事件（步驟結束了，或這是重播），它就不再重新連線。被斷開的訂閱者（跟不上）
	// 不送 end，只結束回應：瀏覽器在 retry 的 250 毫秒後帶著 Last-Event-ID 重新連上，從歷史補齊。
	// end tells the page no more events will come (the step ended, or this is a replay), so it stops reconnecting. A
	// subscriber cut off for falling behind gets no end, only the response ending: the browser reconnects after
	// retry's 250 ms with Last-Event-ID and catches up from the history.
	end := func() {
		if h.ended() {
			fmt.Fprint(w, "event: end\ndata: {}\n\n")
		}
		flusher.Flush()
	}
	flusher.Flush()
	if ch == nil {
		end()
		return
	}
	for {
		select {
		case <-r.Context().Done():
			return
		case e, open := <-ch:
			if !open {
				end()
				return
			}
			if send(e) != nil {
				return
			}
			// 之後 flushEvery 之內到的也一起送出，再 Flush 一次：爆量時少很多系統呼叫，每筆最多晚這麼久。
			// What arrives within flushEvery after it goes out too, then one flush: far fewer syscalls in a burst,
			// and no event later by more than that.
			window := time.NewTimer(flushEvery)
			for more := true; more; {
				select {
				case e, open := <-ch:
					if !open {
						window.Stop()
						end()
						return
					}
					if send(e) != nil {
						window.Stop()
						return
					}
				case <-window.C:
					more = false
				case <-r.Context().Done():
					window.Stop()
					return
				}
			}
			flusher.Flush()
		}
	}
}
