package liveview_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp/kb"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/informer-walkthrough/informer-walkthrough/internal/browser"
	"github.com/informer-walkthrough/informer-walkthrough/internal/golden"
	"github.com/informer-walkthrough/informer-walkthrough/internal/liveview"
	"github.com/informer-walkthrough/informer-walkthrough/internal/pagetest"
	"github.com/informer-walkthrough/informer-walkthrough/internal/show"
	"github.com/informer-walkthrough/informer-walkthrough/internal/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// root 是 repo 的根，從這個套件的目錄算起。 / root is the repository's root, from this package's directory.
const root = "../.."

var testPipeline = liveview.Pipeline{
	Step:   "test",
	Title:  liveview.Text{En: "test", Zh: "測試"},
	Stages: []liveview.Stage{liveview.APIServer(), {ID: "handlers", Label: liveview.Text{En: "Handlers", Zh: "處理函式"}, Sources: []string{"handler"}, Rank: 1}},
	Edges:  liveview.Flows("api", "handlers"),
	Panels: []string{"cache"},
}

// record 把幾筆事件經過一個 Stream 錄下來，回傳錄製檔的內容。
//
// record puts a few events through a Stream into a recording and returns it.
// Before closing the recorder it checks that every event is in the file
// already: a step that is killed leaves a file that ends at its last event.
func record(t *testing.T, lines int) []byte {
	t.Helper()
	path := filepath.Join(t.TempDir(), "rec.jsonl")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	rec, err := liveview.NewRecorder(f, testPipeline)
	if err != nil {
		t.Fatal(err)
	}
	s := show.NewStream(io.Discard, rec)
	for i := range lines {
		show.Line(s, "handler", "OnAdd", fmt.Sprintf("default/p%d", i), "phase=Running labels=app=demo", show.OpHandle)
	}
	show.Quiet(s, "request", "WATCH", "/api/v1/pods", "watch=true -> 200")
	show.Note(s, "done")
	if b, err := os.ReadFile(path); err != nil || bytes.Count(b, []byte("\n")) != lines+3 {
		t.Fatalf("before Close the file holds %d lines (%v); want the header and %d events, each written at once", bytes.Count(b, []byte("\n")), err, lines+2)
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// 情境：錄下來的讀得回來，一筆不差；最後一行寫到一半被截斷的，讀得到它之前的每一筆，並記下是第幾行；
// 中間壞掉、版本不認得、根本不是錄製檔的，各是一行指出第幾行的錯誤，而且壞掉那一行之前的事件照樣讀得到。
//
// The story: what is recorded reads back, every event; a file whose last
// line was cut off mid-write reads back every event before it and notes
// which line was cut; a broken line before the end, an unknown version or
// a file that is no recording each gives one error line naming the line,
// and the events before a broken line still come back.
func TestRecordingRoundTrip(t *testing.T) {
	data := record(t, 3)
	rec, err := liveview.ReadRecording(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if rec.Header.Pipeline.Step != "test" || len(rec.Events) != 5 || rec.Events[4].Detail != "done" || !rec.Events[3].Quiet || rec.CutOff != 0 {
		t.Fatalf("read back %+v", rec)
	}
	cut, err := liveview.ReadRecording(bytes.NewReader(data[:len(data)-10]))
	if err != nil || cut.CutOff != 6 || len(cut.Events) != 4 {
		t.Errorf("last line cut off: CutOff %d, %d events, err %v; want line 6 cut off, 4 events, no error", cut.CutOff, len(cut.Events), err)
	}
	for name, c := range map[string]struct {
		data   string
		want   string
		events int
	}{
		"broken line":     {strings.Replace(string(data), `"seq":2`, `"seq":`, 1), "line 3: ", 1},
		"unknown version": {strings.Replace(string(data), `"version":2`, `"version":7`, 1), "line 1: recording version 7 is unknown (this program reads version 2)", 0},
		"version 1":       {strings.Replace(string(data), `"version":2`, `"version":1`, 1), "line 1: recording version 1 holds printed text only, which this program no longer reads (it reads version 2): record it again with --record", 0},
		"not a recording": {"{\"hello\":1}\n", "line 1: not an informer-walkthrough recording", 0},
		"empty":           {"", "line 1: the recording is empty", 0},
	} {
		t.Run(name, func(t *testing.T) {
			rec, err := liveview.ReadRecording(strings.NewReader(c.data))
			if err == nil || !strings.HasPrefix(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("err = %v; want one line starting %q", err, c.want)
			}
			if len(rec.Events) != c.events {
				t.Errorf("read %d events before the error; want %d", len(rec.Events), c.events)
			}
		})
	}
}

// 情境：重新連上的頁面帶著最後看到的 Seq（Last-Event-ID），只收到之後的事件，然後是 synced；
// 塞不下的慢連線被斷開，Emit 從不等它。
//
// The story: a page reconnecting with the last Seq it saw (Last-Event-ID)
// gets only the events after it, then synced; a slow connection that cannot
// keep up is cut off, and Emit never waits for it.
func TestHubResumesAndNeverBlocks(t *testing.T) {
	hub := liveview.NewHub()
	s := show.NewStream(io.Discard, hub)
	for i := range 5 {
		show.Line(s, "handler", "OnAdd", fmt.Sprintf("default/p%d", i), "")
	}
	srv, err := liveview.Serve("", hub, testPipeline, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	req, _ := http.NewRequestWithContext(t.Context(), "GET", srv.URL+"events", nil)
	req.Header.Set("Last-Event-ID", "3")
	ctx, cancel := context.WithCancel(t.Context())
	resp, err := http.DefaultClient.Do(req.WithContext(ctx))
	if err != nil {
		t.Fatal(err)
	}
	var got bytes.Buffer
	testenv.Poll(t, "events 4 and 5, then synced", func() bool {
		buf := make([]byte, 4096)
		n, _ := resp.Body.Read(buf)
		got.Write(buf[:n])
		return strings.Contains(got.String(), "event: synced")
	}, &got)
	cancel()
	resp.Body.Close()
	if strings.Contains(got.String(), "id: 3\n") || !strings.Contains(got.String(), "id: 4\n") || !strings.Contains(got.String(), "id: 5\n") {
		t.Errorf("after Last-Event-ID 3 the stream was:\n%s", got.String())
	}

	// 一個從不讀的訂閱者：十萬筆事件之後，Emit 還是立刻回來。 / A subscriber that never reads: after 100,000 events Emit still returns at once.
	slow, err := http.NewRequestWithContext(t.Context(), "GET", srv.URL+"events", nil)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := http.DefaultClient.Do(slow)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Body.Close()
	start := time.Now()
	for i := range 100000 {
		show.Line(s, "handler", "OnUpdate", fmt.Sprintf("default/p%d", i%50), "")
	}
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("100,000 events took %s with a subscriber that never reads", took)
	}
	if n := len(hub.Events()); n > liveview.MaxHistory {
		t.Errorf("the hub keeps %d events; want at most %d", n, liveview.MaxHistory)
	}
	// 被斷開的連線只是結束，沒有 end：end 會讓頁面不再重新連線，永遠停在落後的地方。
	// The cut-off connection just ends, with no end event: end would stop the page from reconnecting, stuck behind for good.
	cut, err := io.ReadAll(conn.Body)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(cut), "event: end") || !strings.Contains(string(cut), "retry: ") {
		t.Errorf("the cut-off stream should carry retry: and no end event; its tail: %q", cut[max(0, len(cut)-200):])
	}
}

// 情境：頁面的連線被斷開（跟不上的連線就是這樣被處理的）：瀏覽器重新連上、帶著 Last-Event-ID 從歷史補齊，
// 斷線前後的每一筆都在頁面上，沒有漏、沒有重複。
//
// The story: the page's connection is cut off (what happens to a connection
// that falls behind): the browser reconnects, catches up from the history
// with Last-Event-ID, and every event from before and after the cut is on the
// page, none missing, none twice.
func TestPageCatchesUpAfterFallingBehind(t *testing.T) {
	hub := liveview.NewHub()
	srv, err := liveview.Serve("", hub, testPipeline, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	b := browser.Start(t, 1280, 900)
	b.Open(t, srv.URL)
	b.Wait(t, "the page to connect", `document.body.dataset.synced === "true"`, `document.body.dataset.total`)
	s := show.NewStream(io.Discard, hub)
	const n = 2000
	for i := range n / 2 {
		show.Line(s, "handler", "OnUpdate", fmt.Sprintf("default/p%d", i%50), "")
	}
	b.Wait(t, "the first half on the page", `document.body.dataset.total === "`+strconv.Itoa(n/2)+`"`, `document.body.dataset.total`)
	hub.CutOff()
	for i := range n / 2 {
		show.Line(s, "handler", "OnUpdate", fmt.Sprintf("default/p%d", i%50), "")
	}
	b.Wait(t, "every event on the page", `LV.app.frame === 0 && document.body.dataset.total === "`+strconv.Itoa(n)+`"`, `document.body.dataset.total`)
	if got := browser.Eval[int](t, b, `new Set(LV.app.timeline.events.map(e => e.seq)).size`); got != n {
		t.Errorf("the page holds %d distinct events; want %d", got, n)
	}
	if errs := b.Errors(); len(errs) > 0 {
		t.Errorf("console errors:\n%s", strings.Join(errs, "\n"))
	}
}

// 情境：預設只聽 loopback，場景按鈕只聽帶著這次 token 的 POST；沒有 token、token 錯、Host 不是自己的
// （DNS rebinding）都被拒絕；重播沒有叢集可改；埠被占用是一行錯誤。
//
// The story: by default it listens on loopback only, and the scene buttons
// obey only a POST carrying this run's token; no token, a wrong one, or a
// Host that is not the server's own (DNS rebinding) are refused; a replay
// has no cluster to change; a port in use is one error line.
func TestServerGuards(t *testing.T) {
	hub := liveview.NewHub()
	acted := 0
	srv, err := liveview.Serve("", hub, testPipeline, func(context.Context, []string) (string, error) {
		acted++
		return "scene: done", nil
	})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	if !strings.HasPrefix(srv.URL, "http://127.0.0.1:") || strings.Contains(srv.URL, "token") {
		t.Errorf("URL %s; want 127.0.0.1 and no token in it", srv.URL)
	}
	page := get(t, srv.URL, "")
	token := between(page, `<meta name="live-token" content="`, `"`)
	if len(token) < 26 {
		t.Fatalf("no token in the page:\n%s", page)
	}
	for name, c := range map[string]struct {
		token, host string
		want        int
	}{
		"no token":    {"", "", http.StatusForbidden},
		"wrong token": {strings.Repeat("0", len(token)), "", http.StatusForbidden},
		"other host":  {token, "evil.example", http.StatusForbidden},
		"the token":   {token, "", http.StatusOK},
	} {
		req, _ := http.NewRequestWithContext(t.Context(), "POST", srv.URL+"scene", strings.NewReader(`{"args":["demo"]}`))
		req.Header.Set("X-Live-Token", c.token)
		if c.host != "" {
			_, port, _ := net.SplitHostPort(req.URL.Host)
			req.Host = c.host + ":" + port
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != c.want {
			t.Errorf("%s: status %d; want %d", name, resp.StatusCode, c.want)
		}
	}
	if acted != 1 {
		t.Errorf("the scene acted %d times; want once, for the request with the token", acted)
	}
	_, port, _ := net.SplitHostPort(strings.TrimSuffix(strings.TrimPrefix(srv.URL, "http://"), "/"))
	if _, err := liveview.Serve("127.0.0.1:"+port, hub, testPipeline, nil); err == nil ||
		!strings.HasPrefix(err.Error(), "the live view cannot listen on 127.0.0.1:"+port+": ") || strings.Contains(err.Error(), "\n") {
		t.Errorf("a port in use: err = %v; want one line", err)
	}
	for _, addr := range []string{"nonsense", "127.0.0.1"} {
		if _, err := liveview.Serve(addr, hub, testPipeline, nil); err == nil || !strings.Contains(err.Error(), "want HOST:PORT") {
			t.Errorf("Serve(%q): %v; want one line asking for HOST:PORT", addr, err)
		}
	}
}

// 情境：遠端的 lab（--ui=0.0.0.0:PORT）。伺服器接聽所有位址，印出的網址帶著 token；不帶 token 的請求，
// 不論讀什麼（頁面、腳本、事件、metrics、管線、解說），從 127.0.0.1 或 127.0.0.2 來，都只得到 403；
// 帶著 token 的都拿得到，頁面自己的檔案也帶著它；場景按鈕也要它。測試只用 loopback 的位址，從不用機器自己的網路位址。
//
// The story: a remote lab (--ui=0.0.0.0:PORT). The server listens on every
// address and its URL carries a token; a request without it, whatever it
// reads (the page, a script, the events, metrics, the pipeline, the tour),
// from 127.0.0.1 or 127.0.0.2, gets 403 and nothing else; with the token
// each is served, the page's own files carrying it too; the scene buttons
// need it as well. The test uses loopback addresses only, never the
// machine's own network address.
func TestRemoteLabNeedsTheToken(t *testing.T) {
	hub := liveview.NewHub()
	show.Line(show.NewStream(io.Discard, hub), "handler", "OnAdd", "default/a", "", show.OpHandle)
	hub.Close()
	acted := 0
	srv, err := liveview.Serve("0.0.0.0:0", hub, testPipeline, func(context.Context, []string) (string, error) {
		acted++
		return "scene: done", nil
	}, liveview.WithTour([]byte(`{"stops":[]}`)))
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	base, token, ok := strings.Cut(srv.URL, "?token=")
	if !ok || len(token) < 26 || !strings.HasPrefix(base, "http://127.0.0.1:") {
		t.Fatalf("URL %s; want http://127.0.0.1:PORT/?token=<at least 128 bits>", srv.URL)
	}
	_, port, _ := net.SplitHostPort(strings.TrimSuffix(strings.TrimPrefix(base, "http://"), "/"))
	for _, host := range []string{"127.0.0.1", "127.0.0.2"} {
		root := "http://" + host + ":" + port + "/"
		for _, path := range []string{"", "static/app.js", "static/style.css", "events", "metrics", "pipeline.json", "tour.json"} {
			for _, q := range []string{"", "?token=" + strings.Repeat("A", len(token))} {
				resp, err := http.Get(root + path + q)
				if err != nil {
					t.Fatal(err)
				}
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusForbidden || strings.Contains(string(body), "default/a") || strings.Contains(string(body), "<html") {
					t.Errorf("GET %s%s without the token: %d %q; want 403 and nothing else", root+path, q, resp.StatusCode, body)
				}
			}
			resp, err := http.Get(root + path + "?token=" + token)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				t.Errorf("GET %s with the token: %d; want 200", root+path, resp.StatusCode)
			}
			if path == "" && !strings.Contains(string(body), `static/app.js?token=`+token) {
				t.Errorf("the page's own scripts do not carry the token:\n%s", body)
			}
		}
	}
	req, _ := http.NewRequestWithContext(t.Context(), "POST", base+"scene?token="+token, strings.NewReader(`{"args":["demo"]}`))
	req.Header.Set("X-Live-Token", token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	req, _ = http.NewRequestWithContext(t.Context(), "POST", base+"scene", strings.NewReader(`{"args":["demo"]}`))
	req.Header.Set("X-Live-Token", token)
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != http.StatusForbidden {
		t.Errorf("a scene POST without the URL's token: %v %v; want 403", resp.StatusCode, err)
	} else {
		resp.Body.Close()
	}
	if acted != 1 {
		t.Errorf("the scene acted %d times; want once, for the request with the token", acted)
	}
}

func get(t *testing.T, url, host string) string {
	t.Helper()
	req, _ := http.NewRequestWithContext(t.Context(), "GET", url, nil)
	if host != "" {
		req.Host = host
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return string(body)
}

func between(s, from, to string) string {
	_, rest, _ := strings.Cut(s, from)
	v, _, _ := strings.Cut(rest, to)
	return v
}

// 情境：頁面的程式碼從不把字串當成 HTML：沒有 innerHTML、outerHTML、insertAdjacentHTML、document.write，
// 也沒有 eval 或字串形式的 setTimeout。叢集來的字串只能走 textContent 與 setAttribute。
//
// The story: the page's code never treats a string as HTML: no innerHTML,
// outerHTML, insertAdjacentHTML or document.write, and no eval or string
// setTimeout. Strings from the cluster can only go through textContent and
// setAttribute.
func TestPageNeverParsesStrings(t *testing.T) {
	files, err := filepath.Glob("page/*.js")
	if err != nil || len(files) == 0 {
		t.Fatalf("no page scripts (%v)", err)
	}
	banned := regexp.MustCompile(`innerHTML|outerHTML|insertAdjacentHTML|document\.write|\beval\(|new Function\(|setTimeout\(\s*["'\x60]`)
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(src), "\n") {
			if code, _, _ := strings.Cut(line, "//"); banned.MatchString(code) {
				t.Errorf("%s:%d: %s", f, i+1, strings.TrimSpace(line))
			}
		}
	}
}

// recordings 是 repo 裡每一份錄製檔，以及它的 golden file（文字）與 final.golden（頁面最後的狀態）。
//
// recordings are the repository's recordings, each with its golden file
// (the text) and its final.golden (the page's final state).
func recordings(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(root, "step[0-9][0-9]-*", "testdata", "*.recording.jsonl"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no recordings found (%v)", err)
	}
	return files
}

// 情境：每一份錄製檔都還是最新的（它的行以那一步的 golden file 開頭），而且不論由伺服器重播，
// 還是匯出成一個 HTML 檔、從磁碟開啟（不連網路），頁面最後的狀態都跟錄下它的即時頁面一樣。
//
// The story: every recording is current (its lines start with the step's
// golden file), and replayed by the server or exported as one HTML file
// opened from disk (no network), the page ends in the same state as the
// live page that recorded it.
func TestReplayRecordings(t *testing.T) {
	b := browser.Start(t, 1400, 1000)
	for _, path := range recordings(t) {
		name := strings.TrimSuffix(filepath.Base(path), ".recording.jsonl")
		dir := filepath.Dir(path)
		t.Run(filepath.Base(filepath.Dir(dir))+"/"+name, func(t *testing.T) {
			raw, rec := recording(t, path)
			tour, err := liveview.TourBeside(path, rec)
			if err != nil {
				t.Error(err)
			}
			var lines strings.Builder
			for _, e := range rec.Events {
				if !e.Quiet {
					lines.WriteString(e.Text() + "\n")
				}
			}
			text, err := os.ReadFile(filepath.Join(dir, name+".golden"))
			if err != nil {
				t.Fatal(err)
			}
			// 測試只比對到它等的那一行為止，錄製檔則錄到程式結束；HTTP trace 行不經過頁面。
			//
			// A test compares up to the line it waits for, while the
			// recording runs to the program's end; HTTP trace lines do not
			// go through the page.
			want := golden.DropTrace(string(text))
			if got := golden.DropBookmarks(golden.StripVersions(lines.String())); !strings.HasPrefix(got, want) {
				t.Fatalf("%s is stale: its lines do not start with %s.golden (record it again: go test ./%s -run TestDemo -update)\n--- recording\n%s--- golden\n%s",
					path, name, filepath.Base(filepath.Dir(dir)), got, want)
			}
			final, err := os.ReadFile(filepath.Join(dir, name+".final.golden"))
			if err != nil {
				t.Fatal(err)
			}

			_, srv := serve(t, rec.Header.Pipeline, rec.Events, true, nil)
			b.Open(t, srv.URL+"?at=end")
			pagetest.CaughtUp(t, b, lines.String())
			if got := pagetest.PageSummary(t, b); got != string(final) {
				t.Errorf("replayed by the server, the page ends as\n%s\nwant (the live page's)\n%s", got, final)
			}

			html := filepath.Join(t.TempDir(), name+".html")
			f, err := os.Create(html)
			if err != nil {
				t.Fatal(err)
			}
			if err := liveview.Export(raw, tour, f); err != nil {
				t.Fatal(err)
			}
			f.Close()
			exported, _ := os.ReadFile(html)
			for _, outside := range []string{`src="http`, `href="static`, `src="static`} {
				if bytes.Contains(exported, []byte(outside)) {
					t.Errorf("the exported file loads %s…: it must hold everything", outside)
				}
			}
			b.Open(t, "file://"+html+"?at=end")
			pagetest.CaughtUp(t, b, lines.String())
			if got := pagetest.PageSummary(t, b); got != string(final) {
				t.Errorf("exported and opened from disk, the page ends as\n%s\nwant\n%s", got, final)
			}
			// 匯出的檔案也能依 key 篩選。 / An exported file filters by key too.
			if n := browser.Eval[int](t, b, `document.querySelectorAll("#filter-key option").length`); n < 2 {
				t.Errorf("exported and opened from disk, the key filter offers %d entries; want every key besides \"every key\"", n)
			}
		})
	}
	if errs := b.Errors(); len(errs) > 0 {
		t.Errorf("console errors:\n%s", strings.Join(errs, "\n"))
	}
}

// 情境：學習者用鍵盤操作即時頁面，焦點在滑桿上也一樣：← 退一筆（只退一筆）、End 回到最新並跟著即時、
// p 切換簡報模式、l 切換語言。接著用「開啟錄製檔」載入另一份錄製檔：頁面換成那份檔案，步驟之後的事件
// 不再進來，按鍵也仍然只作用一次。
//
// The story: a learner drives the live page from the keyboard, with the
// focus on the slider too: ← goes back one event (exactly one), End returns
// to the latest and follows live, p toggles presenter mode, l the language.
// Then "Open a recording" loads another recording: the page becomes that
// file, the step's later events no longer come in, and a key still acts
// once.
func TestPageKeysAndOpeningAFile(t *testing.T) {
	other := filepath.Join(root, "step01-listwatcher", "testdata", "demo.recording.jsonl")
	_, rec := recording(t, filepath.Join(root, "step04-controller", "testdata", "demo.recording.jsonl"))
	nothing := func(context.Context, []string) (string, error) { return "", nil }
	hub, srv := serve(t, rec.Header.Pipeline, rec.Events, false, nothing)
	b := browser.Start(t, 1280, 900)
	b.Open(t, srv.URL)
	total := strconv.Itoa(len(rec.Events))
	b.Wait(t, "the page to hold the history", `document.body.dataset.synced === "true" && document.body.dataset.total === "`+total+`"`, `document.body.dataset.total`)

	cursor := func() int { return browser.Eval[int](t, b, `Number(document.body.dataset.cursor)`) }
	b.Click(t, "#slider")
	at := cursor()
	b.Key(t, kb.ArrowLeft)
	b.Wait(t, "← to go back one event", `LV.app.frame === 0 && Number(document.body.dataset.cursor) === `+strconv.Itoa(at-1), `document.body.dataset.cursor`)
	b.Key(t, kb.End)
	b.Wait(t, "End to follow live", `LV.app.following && document.body.dataset.cursor === document.body.dataset.total`, `document.body.dataset.cursor`)
	b.Key(t, "p")
	b.Wait(t, "p to turn presenter mode on", `document.body.classList.contains("presenter")`, `document.body.className`)
	b.Key(t, "l")
	b.Wait(t, "l to switch to zh-TW", `document.documentElement.lang === "zh-TW"`, `document.documentElement.lang`)
	b.Key(t, "l")
	b.Wait(t, "l to switch back", `document.documentElement.lang === "en"`, `document.documentElement.lang`)

	path, err := filepath.Abs(other)
	if err != nil {
		t.Fatal(err)
	}
	b.Upload(t, "#open", path)
	_, want := recording(t, other)
	n := strconv.Itoa(len(want.Events))
	b.Wait(t, "the page to hold the opened file", `LV.app.timeline.pipeline.step === "step01-listwatcher" && document.body.dataset.total === "`+n+`"`, `document.body.dataset.total`)
	// 步驟之後印出的事件不再進來。 / Events the step prints afterwards no longer come in.
	show.Line(show.NewStream(io.Discard, hub), "queue", "Update", "default/late", "")
	b.Key(t, kb.End)
	b.Key(t, kb.ArrowLeft)
	b.Wait(t, "← to go back exactly one event", `LV.app.frame === 0 && Number(document.body.dataset.cursor) === `+strconv.Itoa(len(want.Events)-1), `document.body.dataset.cursor`)
	if got := browser.Eval[int](t, b, `LV.app.timeline.events.length`); got != len(want.Events) {
		t.Errorf("the page holds %d events after opening a file of %d: the live stream is still coming in", got, len(want.Events))
	}
	if errs := b.Errors(); len(errs) > 0 {
		t.Errorf("console errors:\n%s", strings.Join(errs, "\n"))
	}
}

// 情境：一個 Store 收到一次 Replace，清單裡有 a；之後又一次 Replace，清單是空的（沒有任何一行，只有結束那一筆）。
// 頁面的快取跟 Store 一樣：先有 a，然後什麼都沒有。
//
// The story: a Store gets a Replace listing a, then another Replace with an
// empty list (no line at all, only the event that ends it). The page's cache
// does as the Store does: a, then nothing.
func TestEmptyReplaceEmptiesTheCache(t *testing.T) {
	_, srv := serve(t, testPipeline, nil, true, nil)
	b := browser.Start(t, 1280, 900)
	b.Open(t, srv.URL)
	b.Wait(t, "the page to load", `document.body.dataset.synced === "true"`, `document.body.dataset.total`)
	got := browser.Eval[string](t, b, `(() => {
		const s = new LV.State(LV.app.timeline.pipeline);
		const caches = [];
		s.apply({ seq: 1, t: 0, source: "handler", stage: "handlers", op: "store", cache: "replace", key: "default/a", obj: { phase: "Running", labels: "app=demo" } });
		s.apply({ seq: 2, t: 0, note: true, source: "handler", stage: "handlers", op: "store", cache: "replaced", rv: "5" });
		caches.push(Object.keys(s.cache).join(","));
		s.apply({ seq: 3, t: 0, note: true, source: "handler", stage: "handlers", op: "store", cache: "replaced", rv: "9" });
		caches.push(Object.keys(s.cache).join(","));
		return caches.join(" | ");
	})()`)
	if got != "default/a | " {
		t.Errorf("the cache after a Replace of a, then an empty Replace: %q; want %q", got, "default/a | ")
	}
}

// recording 讀一份錄製檔，回傳原始的位元組與讀出來的內容。
//
// recording reads a recording, returning its raw bytes and what was read.
func recording(tb testing.TB, path string) ([]byte, liveview.Recording) {
	tb.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	rec, err := liveview.ReadRecording(bytes.NewReader(raw))
	if err != nil {
		tb.Fatal(err)
	}
	return raw, rec
}

// serve 在一個空閒的 loopback 埠上提供頁面，歷史是 events；ended 時 Hub 已經關閉（像重播），
// actions 是 nil 時沒有場景按鈕。測試結束時關掉伺服器。
//
// serve serves the page on a free loopback port with events as its history;
// with ended the Hub is already closed (as in a replay), and with nil
// actions there are no scene buttons. The server closes when the test ends.
func serve(tb testing.TB, p liveview.Pipeline, events []show.Event, ended bool, actions liveview.Actions, opts ...liveview.Option) (*liveview.Hub, *liveview.Server) {
	tb.Helper()
	hub := liveview.NewHub()
	hub.Load(events)
	if ended {
		hub.Close()
	}
	srv, err := liveview.Serve("", hub, p, actions, opts...)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = srv.Close() })
	return hub, srv
}

// 情境（一位新手實際操作時遇到的）：步驟 04 的即時頁面畫出讓 sync 失敗的按鈕，步驟 01 的不畫（它沒有 sync）；
// 篩選選單只列出物件的 key，不列請求的路徑與 metric 的名字；倒帶之後按播放，狀態說的是回溯播放，不是即時；
// 等著重試的 key，退避在沒有新事件時也一路倒數；步驟停了，場景按鈕就停用。
//
// The story (what a newcomer met): step 04's live page draws the buttons
// that make a sync fail and step 01's does not (it has no sync); the filter
// menu lists objects' keys, not request paths or metric names; after a
// rewind, play says it plays back, not live; a key waiting for its retry has
// its backoff count down with no new event; once the step stops, the scene
// buttons are disabled.
func TestPageControlsFollowTheStep(t *testing.T) {
	nothing := func(context.Context, []string) (string, error) { return "", nil }
	b := browser.Start(t, 1280, 900)

	_, step01 := recording(t, filepath.Join(root, "step01-listwatcher", "testdata", "demo.recording.jsonl"))
	_, srv01 := serve(t, step01.Header.Pipeline, step01.Events, false, nothing)
	b.Open(t, srv01.URL)
	b.Wait(t, "step 01's page to load", `document.body.dataset.synced === "true"`, `document.body.dataset.total`)
	if shown := browser.Eval[int](t, b, `[...document.querySelectorAll('#scene-form button[data-args^="fail-"]')].filter(b => !b.hidden).length`); shown != 0 {
		t.Errorf("step 01's page shows %d sync-failure buttons; it has no sync", shown)
	}

	_, rec := recording(t, filepath.Join(root, "step04-controller", "testdata", "demo.recording.jsonl"))
	p := rec.Header.Pipeline
	p.FailAnnotation = true
	hub, srv := serve(t, p, rec.Events, false, nothing)
	b.Open(t, srv.URL)
	total := strconv.Itoa(len(rec.Events))
	b.Wait(t, "step 04's page to hold the history", `document.body.dataset.synced === "true" && document.body.dataset.total === "`+total+`"`, `document.body.dataset.total`)
	if shown := browser.Eval[int](t, b, `[...document.querySelectorAll('#scene-form button[data-args^="fail-"]')].filter(b => !b.hidden).length`); shown != 2 {
		t.Errorf("step 04's page shows %d sync-failure buttons; want 2", shown)
	}
	keys := browser.Eval[[]string](t, b, `[...document.querySelectorAll("#filter-key option")].map(o => o.value).filter(Boolean)`)
	if !slices.Contains(keys, "default/demo") {
		t.Errorf("the key filter offers %q; want default/demo among them", keys)
	}
	for _, k := range keys {
		if strings.HasPrefix(k, "/") || strings.Count(k, "/") != 1 {
			t.Errorf("the key filter offers %q, which is no object's key", k)
		}
	}

	b.Key(t, kb.Home)
	b.Key(t, " ")
	b.Wait(t, "play from the start to say it plays back", `document.getElementById("status").dataset.status === "rewound"`, `document.getElementById("status").dataset.status`)
	b.Key(t, kb.End)
	b.Wait(t, "End to follow live again", `document.getElementById("status").dataset.status === "live"`, `document.getElementById("status").dataset.status`)

	last := rec.Events[len(rec.Events)-1]
	hub.Emit(show.Event{Seq: last.Seq + 1, T: last.T + 10, Source: "worker1", What: "FAILED", Key: "default/slow", Detail: "annotation informer-lab/fail=true; retry 1/5 in 3s",
		Op: show.OpFail, Stage: "workers", Retry: &show.Retry{N: 1, Of: 5, DelayMs: 3000}})
	left := `(() => { const li = document.querySelector('#wq-retries li[data-key="default/slow"]'); const m = li && / · (\d+) ms$/.exec(li.textContent); return m ? Number(m[1]) : -1; })()`
	b.Wait(t, "the retry to show its backoff", left+` > 2000`, left)
	b.Wait(t, "the backoff to count down with no new event", left+` >= 0 && `+left+` < 2000`, left)

	hub.Close()
	b.Wait(t, "the scene buttons to be disabled once the step stops",
		`document.getElementById("status").dataset.status === "disconnected" && [...document.querySelectorAll("#scene-form button")].every(b => b.disabled)`,
		`document.getElementById("status").dataset.status`)
	if errs := b.Errors(); len(errs) > 0 {
		t.Errorf("console errors:\n%s", strings.Join(errs, "\n"))
	}
}

// 情境：一個共享 informer 的慢處理函式在 Pod 已經刪除之後才收到它的 OnAdd：那是它自己的積壓。快取裡已經沒有
// 這個 Pod，頁面的快取也不能讓它回來；它在慢的那條 lane 上畫成一個落後的舊事件，而不是復活的 Pod。
//
// The story: a shared informer's slow handler gets a pod's OnAdd after the
// pod was deleted: that is its own backlog. The cache holds the pod no
// longer, and neither may the page's; in the slow lane it is drawn as an old
// event, behind, not as a pod come back to life.
func TestSlowListenerDoesNotBringADeletedPodBack(t *testing.T) {
	p := liveview.Pipeline{Step: "test", Stages: []liveview.Stage{
		liveview.APIServer(),
		{ID: "printer", Sources: []string{"printer"}, Rank: 1, Lane: true},
		{ID: "slow", Sources: []string{"slow"}, Rank: 1, Row: 1, Lane: true},
	}, Panels: []string{"cache", "listeners"}}
	_, srv := serve(t, p, nil, true, nil)
	b := browser.Start(t, 1280, 900)
	b.Open(t, srv.URL)
	b.Wait(t, "the page to load", `document.body.dataset.synced === "true"`, `document.body.dataset.total`)
	got := browser.Eval[string](t, b, `(() => {
		const s = new LV.State(LV.app.timeline.pipeline);
		s.apply({ seq: 1, t: 0, source: "printer", stage: "printer", op: "handle", key: "default/demo", cache: "set", obj: { phase: "Pending", labels: "app=demo" } });
		s.apply({ seq: 2, t: 0, source: "printer", stage: "printer", op: "handle", key: "default/demo", cache: "delete", obj: { gone: true } });
		s.apply({ seq: 3, t: 0, source: "slow", stage: "slow", op: "handle", key: "default/demo", behind: 1, obj: { phase: "Pending", labels: "app=demo" } });
		return Object.keys(s.cache).join(",") + " | " + s.lanes.printer["default/demo"].kind + " " + s.lanes.slow["default/demo"].kind + " | " + (s.tokens["default/demo"] ? "token" : "no token");
	})()`)
	if want := " | gone old | no token"; got != want {
		t.Errorf("after the printer's OnDelete and the slow handler's late OnAdd: %q; want %q (no cache entry, gone in printer's lane, old in slow's, no live token)", got, want)
	}
}

// 情境：每一份錄製檔的頁面畫出它宣告的每一條邊（SVG 裡一條有長度的路徑），同一個 rank 的方框在同一欄
// （左緣對齊），rank 大的在右邊；沒有宣告深度的方框不畫深度。檢查的是 DOM，不是像素。
//
// The story: every recording's page draws each edge it declares (a path of
// some length in the SVG), boxes of one rank share a column (their left
// edges line up), a higher rank sits further right; a box that declares no
// depth draws none. The DOM is checked, not pixels.
func TestPageDrawsTheDeclaredGraph(t *testing.T) {
	b := browser.Start(t, 1280, 800)
	for _, path := range recordings(t) {
		name := filepath.Base(filepath.Dir(filepath.Dir(path))) + "/" + strings.TrimSuffix(filepath.Base(path), ".recording.jsonl")
		t.Run(name, func(t *testing.T) {
			_, rec := recording(t, path)
			_, srv := serve(t, rec.Header.Pipeline, rec.Events, true, nil)
			b.Open(t, srv.URL+"?at=end")
			b.Wait(t, "the replay to load", `document.body.dataset.synced === "true" && LV.app.ended && LV.app.frame === 0`, `document.body.dataset.total`)
			p := rec.Header.Pipeline
			for _, e := range p.Edges {
				length := browser.Eval[float64](t, b, `(() => { const p = document.querySelector('#edges path[data-from=`+strconv.Quote(e.From)+`][data-to=`+strconv.Quote(e.To)+`]'); return p ? p.getTotalLength() : -1; })()`)
				if length <= 0 {
					t.Errorf("edge %s -> %s is not drawn (length %v)", e.From, e.To, length)
				}
			}
			if n := browser.Eval[int](t, b, `document.querySelectorAll("#edges path.edge").length`); n != len(p.Edges) {
				t.Errorf("%d edges drawn; the step declares %d", n, len(p.Edges))
			}
			type box struct {
				Rank, Row   int
				Left, Top   float64
				Depth       string
				GaugeHidden bool
			}
			boxes := browser.Eval[map[string]box](t, b, `Object.fromEntries([...document.querySelectorAll("#pipeline .stage")].map(s => {
				const r = s.getBoundingClientRect();
				return [s.dataset.stage, { Rank: Number(s.dataset.rank), Row: Number(s.dataset.row), Left: Math.round(r.left), Top: Math.round(r.top), Depth: s.dataset.depth, GaugeHidden: s.querySelector(".gauge-row").hidden }];
			}))`)
			for _, s := range p.Stages {
				got, ok := boxes[s.ID]
				if !ok || got.Rank != s.Rank || got.Row != s.Row {
					t.Errorf("stage %s: drawn as %+v; declared rank %d row %d", s.ID, got, s.Rank, s.Row)
					continue
				}
				if s.Depth == "" && (got.Depth != "" || !got.GaugeHidden) {
					t.Errorf("stage %s declares no depth but draws one (%q)", s.ID, got.Depth)
				}
				for _, o := range p.Stages {
					other := boxes[o.ID]
					switch {
					case o.Rank == s.Rank && other.Left != got.Left:
						t.Errorf("stages %s and %s share rank %d but sit at x %v and %v", s.ID, o.ID, s.Rank, got.Left, other.Left)
					case o.Rank == s.Rank && o.Row > s.Row && other.Top <= got.Top:
						t.Errorf("stage %s (row %d) is not below %s (row %d)", o.ID, o.Row, s.ID, s.Row)
					case o.Rank > s.Rank && other.Left <= got.Left:
						t.Errorf("stage %s (rank %d) is not right of %s (rank %d)", o.ID, o.Rank, s.ID, s.Rank)
					}
				}
			}
		})
	}
	if errs := b.Errors(); len(errs) > 0 {
		t.Errorf("console errors:\n%s", strings.Join(errs, "\n"))
	}
}

// 情境：叢集來的字串經過事件串流進到頁面：key、一行的細節、標籤、選擇器、resourceVersion、放進佇列的 key，
// 每一個都帶著 HTML 與腳本。頁面把它們當文字畫出來：沒有多出任何元素，沒有腳本執行，字就是那些字。
// 另一筆事件的 op 是頁面不認得的：它照樣列在紀錄裡，「沒畫出來」的那一行數到它，主控台沒有錯誤。
//
// The story: strings from the cluster reach the page through the event
// stream: a key, a line's detail, labels, a selector, a resourceVersion, a
// queued key, each carrying HTML and script. The page draws them as text: no
// extra element, no script run, the very characters shown. Another event has
// an op the page does not know: it is listed in the log anyway, the "not
// drawn" line counts it, and the console has no error.
func TestPageShowsEventStringsAsText(t *testing.T) {
	const evil = `<img src=x onerror="window.pwned=1">`
	p := liveview.Pipeline{
		Step: "test", Title: liveview.Text{En: evil, Zh: evil}, Variant: liveview.Text{En: evil, Zh: evil},
		Stages: []liveview.Stage{liveview.APIServer(), {ID: "handlers", Label: liveview.Text{En: evil, Zh: evil}, Caption: liveview.Text{En: evil, Zh: evil}, Sources: []string{"handler"}, Rank: 1}, liveview.Workqueue(2, true)},
		Edges:  append(liveview.Flows("api", "handlers", "workqueue"), liveview.Edge{From: "api", To: "workqueue", Kind: liveview.Read, Label: liveview.Text{En: evil, Zh: evil}}),
		Panels: []string{"cache", "index", "workqueue"},
	}
	hub := liveview.NewHub()
	s := show.NewStream(io.Discard, hub)
	s.Places(p.Place)
	odd := "default/" + evil
	show.Quiet(s, "request", "GET", "/api/"+evil, evil, show.Requested("GET", "/api/"+evil, evil, evil))
	show.Line(s, "handler", "OnAdd", odd, evil, show.OpHandle, show.RV(evil), func() show.Field {
		return show.Cached(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": evil}}, Status: corev1.PodStatus{Phase: corev1.PodPhase(evil)}, Spec: corev1.PodSpec{NodeName: evil}})
	}())
	show.Line(s, "handler", "OnUpdate", "default/odd.name-1", "selector "+evil+" does not parse", show.OpHandle, show.Queued("workqueue", odd, "default/odd.name-1"))
	show.With(show.At("handler"), show.Index(map[string][]string{evil: {odd}}, map[string]int{evil: 1})).Note(s, "%s", evil)
	show.Line(s, "handler", "Teleport", "default/x", "a newer step's event", show.Op("teleport"))
	hub.Close()
	_, srv := serve(t, p, hub.Events(), true, nil)
	b := browser.Start(t, 1280, 900)
	b.Open(t, srv.URL+"?at=end")
	b.Wait(t, "the replay to load", `document.body.dataset.synced === "true" && LV.app.ended && LV.app.frame === 0`, `document.body.dataset.total`)
	if n := browser.Eval[int](t, b, `document.querySelectorAll("img, script:not([src]):not([type])").length`); n != 0 {
		t.Errorf("the page holds %d img or inline script elements: a string became markup", n)
	}
	if pwned := browser.Eval[bool](t, b, `window.pwned === 1`); pwned {
		t.Error("a string from the events ran as script")
	}
	text := browser.Eval[string](t, b, `document.body.innerText + " " + document.querySelector("#edges").textContent`)
	for _, want := range []string{evil, "default/" + evil, "selector " + evil} {
		if !strings.Contains(text, want) {
			t.Errorf("the page does not show %q as text", want)
		}
	}
	if got := browser.Eval[string](t, b, `document.getElementById("undrawn").hidden ? "hidden" : document.getElementById("undrawn").dataset.count`); got != "1" {
		t.Errorf("the not-drawn line says %q; want 1 (the unknown op)", got)
	}
	if n := browser.Eval[int](t, b, `document.querySelectorAll("#log-rows li.undrawn").length`); n != 1 {
		t.Errorf("%d log rows marked not drawn; want 1", n)
	}
	if errs := b.Errors(); len(errs) > 0 {
		t.Errorf("console errors:\n%s", strings.Join(errs, "\n"))
	}
}

// 情境：每一份錄製檔旁邊都有一份解說，而且它對得上錄製檔：每一站的事件存在、op 與 key 相符，兩種語言都有，
// 每個問題的答案就是錄製檔接下來真的發生的；每份解說恰好有一站是文件的截圖（poster）。
//
// The story: beside every recording there is a tour, and it matches the
// recording: every stop's event exists with that op and key, both languages
// are there, and each question's answer is what the recording then really
// shows; each tour has exactly one stop that is the docs' screenshot (the
// poster).
func TestTours(t *testing.T) {
	for _, path := range recordings(t) {
		t.Run(strings.TrimPrefix(path, root+"/"), func(t *testing.T) {
			_, rec := recording(t, path)
			data, err := os.ReadFile(liveview.TourPath(path))
			if err != nil {
				t.Fatalf("every committed recording needs a tour: %v", err)
			}
			tour, err := liveview.ReadTour(data)
			if err != nil {
				t.Fatal(err)
			}
			if err := tour.Check(rec.Events); err != nil {
				t.Error(err)
			}
			posters := 0
			for _, s := range tour.Stops {
				if s.Poster {
					posters++
				}
			}
			if posters != 1 {
				t.Errorf("%d stops are the poster; want exactly one", posters)
			}
		})
	}
}
