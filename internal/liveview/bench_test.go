package liveview_test

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/informer-walkthrough/informer-walkthrough/internal/browser"
	"github.com/informer-walkthrough/informer-walkthrough/internal/liveview"
	"github.com/informer-walkthrough/informer-walkthrough/internal/show"
)

// nopCloser 讓 bytes 的寫入者也能當錄製檔的目的地。 / nopCloser lets a byte writer stand in for a recording file.
type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }

// BenchmarkLine 量一行輸出要花多少：只印文字（沒有 --ui），以及同時交給頁面的 Hub 與錄製檔
// （--ui --record）。兩者的差就是即時頁面加在步驟身上的成本。
//
//	go test -run '^$' -bench Line -benchmem ./internal/liveview
//
// BenchmarkLine measures what one line of output costs: text only (no
// --ui), and handed to the page's Hub and a recording as well (--ui
// --record). The difference is what the live page adds to a step.
func BenchmarkLine(b *testing.B) {
	line := func(b *testing.B, w io.Writer) {
		for i := 0; b.Loop(); i++ {
			show.Line(w, "fifo", "Updated", "default/demo-"+strconv.Itoa(i%64), "indexer.Update, OnUpdate")
		}
	}
	b.Run("text", func(b *testing.B) { line(b, io.Discard) })
	b.Run("text+hub+record", func(b *testing.B) {
		rec, err := liveview.NewRecorder(nopCloser{io.Discard}, liveview.Pipeline{Step: "bench"})
		if err != nil {
			b.Fatal(err)
		}
		line(b, show.NewStream(io.Discard, liveview.NewHub(), rec))
	})
}

// BenchmarkPage 量頁面在真的 chromium 裡的兩件事：把一筆事件收進時間軸（套用到狀態上）要多久，
// 以及在五萬筆事件裡拉動滑桿、算出任一時刻的狀態要多久（從最近的檢查點往後算）。事件是步驟 04
// 錄下的 demo，重複到五萬筆。
//
//	go test -run '^$' -bench Page ./internal/liveview
//
// BenchmarkPage measures two things about the page in real chromium: how long
// taking one event into the timeline (applying it to the state) takes, and
// how long computing the state at any moment of 50,000 events takes when the
// slider moves (from the nearest checkpoint on). The events are step 04's
// recorded demo, repeated up to 50,000.
func BenchmarkPage(b *testing.B) {
	_, rec := recording(b, filepath.Join(root, "step04-controller", "testdata", "demo.recording.jsonl"))
	_, srv := serve(b, rec.Header.Pipeline, rec.Events, true, nil)
	br := browser.Start(b, 1280, 900)
	br.Open(b, srv.URL+"?at=end")
	br.Wait(b, "the replay to load", `document.body.dataset.synced === "true" && LV.app.ended`, `document.body.dataset.total`)
	// many(n) 把錄下的事件重複成 n 筆（seq 一路往上），收進一條新的時間軸，回傳花了幾毫秒。
	// many(n) repeats the recorded events up to n (seq rising), takes them into a new timeline, and returns the milliseconds.
	browser.Eval[bool](b, br, `(() => {
		const base = LV.app.timeline.events;
		window.many = (n) => {
			const tl = new LV.Timeline(LV.app.timeline.pipeline);
			const t0 = performance.now();
			for (let i = 0; i < n; i++) {
				const e = Object.assign({}, base[i % base.length]);
				e.seq = i + 1;
				tl.add(e);
			}
			window.tl = tl;
			return performance.now() - t0;
		};
		return true;
	})()`)
	const n = 50000
	b.Run("add", func(b *testing.B) {
		var ms float64
		for b.Loop() {
			ms += browser.Eval[float64](b, br, "many("+strconv.Itoa(n)+")")
		}
		b.ReportMetric(ms*1e6/float64(b.N*n), "ns/event")
	})
	b.Run("seek", func(b *testing.B) {
		browser.Eval[float64](b, br, "many("+strconv.Itoa(n)+")")
		var ms float64
		for i := 0; b.Loop(); i++ {
			at := (i*7919 + 1) % n
			ms += browser.Eval[float64](b, br, `(() => { const t0 = performance.now(); tl.stateAt(`+strconv.Itoa(at)+`); return performance.now() - t0; })()`)
		}
		b.ReportMetric(ms/float64(b.N), "ms/seek")
	})
}

// BenchmarkPageLive 量整條路：步驟在一個 Stream 上盡快寫出一萬行（步驟 04 的 demo 重複），
// 到頁面透過 server-sent events 收齊、畫出最後一筆為止。回報頁面每秒收得下幾筆。
//
//	go test -run '^$' -bench PageLive ./internal/liveview
//
// BenchmarkPageLive measures the whole path: a step writes 10,000 lines on a
// Stream as fast as it can (step 04's demo, repeated), until the page has
// received them all through server-sent events and drawn the last. It
// reports how many events a second the page takes in.
func BenchmarkPageLive(b *testing.B) {
	_, rec := recording(b, filepath.Join(root, "step04-controller", "testdata", "demo.recording.jsonl"))
	br := browser.Start(b, 1280, 900)
	const n = 10000
	var total time.Duration
	for b.Loop() {
		hub, srv := serve(b, rec.Header.Pipeline, nil, false, nil)
		br.Open(b, srv.URL)
		br.Wait(b, "the page to connect", `document.body.dataset.synced === "true"`, `document.body.dataset.total`)
		stream := show.NewStream(io.Discard, hub)
		start := time.Now()
		for i := 0; i < n; i++ {
			e := rec.Events[i%len(rec.Events)]
			stream.Emit(show.Event{Source: e.Source, What: e.What, Key: e.Key, Detail: e.Detail, Note: e.Note, Quiet: e.Quiet})
		}
		br.Wait(b, "the page to draw every event", `document.body.dataset.total === "`+strconv.Itoa(n)+`" && LV.app.frame === 0`, `document.body.dataset.total`)
		total += time.Since(start)
	}
	b.ReportMetric(float64(n*b.N)/total.Seconds(), "events/s")
}

// BenchmarkExportOpen 量一個六萬筆事件的匯出檔，在真的 chromium 裡從開始載入到頁面讀完、畫好第一格要多久
// （performance.now()，從導覽開始算）。事件是步驟 04 的 demo，換成一千個不同的 Pod 一直重複。
//
//	go test -run '^$' -bench ExportOpen -count 5 ./internal/liveview
//
// BenchmarkExportOpen measures how long an exported file of 60,000 events
// takes in real chromium, from the start of loading until the page has read
// it and drawn its first frame (performance.now(), counted from the start
// of navigation). The events are step 04's demo, over a thousand different
// pods, repeated.
func BenchmarkExportOpen(b *testing.B) {
	raw, rec := recording(b, filepath.Join(root, "step04-controller", "testdata", "demo.recording.jsonl"))
	header, _, _ := bytes.Cut(raw, []byte("\n"))
	var buf bytes.Buffer
	buf.Write(header)
	buf.WriteByte('\n')
	const n = 60000
	for i := range n {
		e := rec.Events[i%len(rec.Events)]
		round := i / len(rec.Events)
		e.Seq, e.T = uint64(i+1), int64(i)
		pod := "default/pod-" + strconv.Itoa(round%1000)
		if show.Op(e.Op) != show.OpMetric && strings.HasPrefix(e.Key, "default/") {
			e.Key = pod
		}
		if len(e.Keys) > 0 {
			e.Keys = []string{pod}
		}
		line, err := json.Marshal(e)
		if err != nil {
			b.Fatal(err)
		}
		buf.Write(line)
		buf.WriteByte('\n')
	}
	html := filepath.Join(b.TempDir(), "big.html")
	f, err := os.Create(html)
	if err != nil {
		b.Fatal(err)
	}
	if err := liveview.Export(buf.Bytes(), nil, f); err != nil {
		b.Fatal(err)
	}
	f.Close()
	br := browser.Start(b, 1280, 800)
	var total float64
	for b.Loop() {
		br.Open(b, "file://"+html+"?at=end")
		br.Wait(b, "the big recording to load", `LV.app && LV.app.ended && LV.app.frame === 0 && document.body.dataset.total === "`+strconv.Itoa(n)+`"`, `document.body.dataset.total`)
		total += browser.Eval[float64](b, br, `performance.now()`)
	}
	b.ReportMetric(total/float64(b.N), "ms/open")
}
