package cli

import (
	"context"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/informer-walkthrough/informer-walkthrough/internal/liveview"
	"github.com/informer-walkthrough/informer-walkthrough/internal/scene"
	"github.com/informer-walkthrough/informer-walkthrough/internal/show"
)

// uiFlag 是 --ui：單獨寫 --ui 時在 127.0.0.1 上挑一個空閒的埠，--ui=ADDR 指定位址。
//
// uiFlag is --ui: --ui alone picks a free port on 127.0.0.1, --ui=ADDR
// chooses the address.
type uiFlag struct {
	on   bool
	addr string
}

func (u *uiFlag) String() string   { return u.addr }
func (u *uiFlag) IsBoolFlag() bool { return true }
func (u *uiFlag) Set(s string) error {
	switch s {
	case "true":
		u.on, u.addr = true, ""
	case "false":
		u.on, u.addr = false, ""
	default:
		u.on, u.addr = true, s
	}
	return nil
}

// Live 是一個步驟的即時頁面與錄製：兩者都是同一個 show.Stream 的 Sink，文字輸出不受影響。
// --ui 與 --record 經過它；測試也直接用它，跟學習者走同一條路。
//
// Live is a step's live page and recording: both are Sinks of one
// show.Stream, and the text output is not touched. --ui and --record go
// through it; tests use it directly too, taking the learner's path.
type Live struct {
	stream *show.Stream
	hub    *liveview.Hub
	rec    *liveview.Recorder
	srv    *liveview.Server
	env    *Env
}

// StartLive 在連線之前準備好頁面（ui 為 true 時，在 addr 上）與錄製檔（record 不是空字串時）：
// 埠被占用、檔案寫不了，都是一行錯誤，什麼請求都還沒送。兩者都不要時回傳 nil。
//
// StartLive sets up the page (when ui is true, on addr) and the recording
// (when record is not empty) before connecting: a port in use or a file that
// cannot be written is one error line, before any request. It returns nil
// when neither is asked for.
func StartLive(p liveview.Pipeline, ui bool, addr, record string, stdout io.Writer) (*Live, error) {
	if !ui && record == "" {
		return nil, nil
	}
	// client-go 在建立 informer 與 workqueue 時才向 provider 要 metric，所以要在步驟開始之前設定。
	// client-go asks the provider for metrics when informers and workqueues are made, so set it before the step starts.
	liveview.InstallMetrics()
	l := &Live{}
	var sinks []show.Sink
	if record != "" {
		f, err := os.Create(record)
		if err != nil {
			return nil, err
		}
		if l.rec, err = liveview.NewRecorder(f, p); err != nil {
			f.Close()
			return nil, err
		}
		sinks = append(sinks, l.rec)
	}
	if ui {
		l.hub = liveview.NewHub()
		sinks = append(sinks, l.hub)
		srv, err := liveview.Serve(addr, l.hub, p, l.act)
		if err != nil {
			_ = l.Close()
			return nil, err
		}
		l.srv = srv
	}
	l.stream = show.NewStream(stdout, sinks...)
	// 每筆事件依步驟的宣告填上它所在的階段：頁面與錄製檔讀的是階段，不是來源的名字。
	// Each event gets its stage from the step's declaration: the page and the recording read stages, not source names.
	l.stream.Places(p.Place)
	liveview.Attach(l.stream)
	return l, nil
}

// Out 是步驟要寫的地方：文字照樣印出，每一行也是一筆事件。
//
// Out is where the step writes: the text is printed as before, and every
// line is an event too.
func (l *Live) Out() io.Writer { return l.stream }

// URL 是頁面的網址（沒有頁面時是空字串）。
//
// URL is the page's address (empty without a page).
func (l *Live) URL() string {
	if l.srv == nil {
		return ""
	}
	return l.srv.URL
}

// Use 給場景按鈕一個叢集：env 的 clientset 與 namespace。
//
// Use gives the scene buttons a cluster: env's clientset and namespace.
func (l *Live) Use(env *Env) { l.env = env }

// announce 在 stderr 印一行網址，等連線檢查通過之後才印：一個連不上的叢集只會有那一行錯誤。
//
// announce prints the URL on one stderr line, only once the preflight check
// passed: a cluster that cannot be reached gets its one error line alone.
func (l *Live) announce(stderr io.Writer, env *Env) {
	l.Use(env)
	if l.srv != nil {
		_, _ = io.WriteString(stderr, "live view: "+l.srv.URL+"\n")
	}
}

// act 是頁面的場景按鈕：跟 scripts/scene.sh 同一段程式碼（scene.Check、scene.Run），在步驟看著的 namespace 裡做。
//
// act is the page's scene buttons: the same code as scripts/scene.sh
// (scene.Check, scene.Run), in the namespace the step watches.
func (l *Live) act(ctx context.Context, args []string) (string, error) {
	if l.env == nil {
		return "", io.ErrUnexpectedEOF
	}
	if err := scene.Check(args); err != nil {
		return "", err
	}
	var said []string
	err := scene.Run(ctx, l.env.Client, l.env.Namespace, args, scene.Settings{Pause: time.Second}, func(s string) { said = append(said, "scene: "+s) })
	return strings.Join(said, "\n"), err
}

// Close 關掉頁面並把錄製檔寫完，回報錄製的錯誤。nil 的 *Live 也可以 Close。
//
// Close shuts the page down and finishes the recording, reporting a
// recording error. A nil *Live may be closed too.
func (l *Live) Close() error {
	if l == nil {
		return nil
	}
	if l.stream != nil {
		liveview.Detach(l.stream)
	}
	if l.srv != nil {
		_ = l.srv.Close()
	}
	if l.rec != nil {
		return l.rec.Close()
	}
	return nil
}

// RequestEvents 包住 client-go 的 HTTP transport，把每個請求變成頁面上的一筆事件（不印出來）：
// 方法、路徑與查詢字串、狀態碼，跟 --trace 印的一樣；watch 在回應標頭到達時就算。
//
// RequestEvents wraps client-go's HTTP transport and turns every request into
// a page event (not printed): method, path and query, status, as --trace
// prints them; a watch counts once its response headers arrive.
func RequestEvents(s *show.Stream) func(http.RoundTripper) http.RoundTripper {
	return func(next http.RoundTripper) http.RoundTripper {
		return roundTripFunc(func(req *http.Request) (*http.Response, error) {
			resp, err := next.RoundTrip(req)
			status := "error"
			if err == nil {
				status = strconv.Itoa(resp.StatusCode)
			}
			what := req.Method
			if req.URL.Query().Get("watch") == "true" {
				what = "WATCH"
			} else if req.Method == http.MethodGet && strings.HasSuffix(req.URL.Path, "s") {
				what = "LIST"
			}
			show.Quiet(s, "request", what, req.URL.Path, req.URL.RawQuery+" -> "+status, show.Requested(what, req.URL.Path, req.URL.RawQuery, status))
			return resp, err
		})
	}
}
