package liveview

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/subtle"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"strings"
	"time"
)

//go:embed page
var page embed.FS

// Actions 執行頁面上場景按鈕要求的動作：args 跟 scripts/scene.sh 的參數一樣（create NAME KEY=VALUE…、
// label、annotate、delete、demo），回傳它印出的訊息。重播時沒有叢集，也就沒有 Actions。
//
// Actions does what the page's scene buttons ask: args are scripts/scene.sh's
// (create NAME KEY=VALUE…, label, annotate, delete, demo), and it returns
// what it said. A replay has no cluster, so no Actions.
type Actions func(ctx context.Context, args []string) (string, error)

// Server 是提供頁面的 HTTP 伺服器：預設在 127.0.0.1 上；在別的位址上時（遠端的 lab），每個請求都要帶著這次執行的
// 祕密 token。
//
// Server is the HTTP server that serves the page: on 127.0.0.1 by default;
// on another address (a remote lab), every request must carry this run's
// secret token.
type Server struct {
	URL      string
	hub      *Hub
	pipeline Pipeline
	actions  Actions
	token    string
	remote   bool
	tour     []byte
	srv      *http.Server
	ln       net.Listener
}

// Option 調整 Serve。 / Option adjusts Serve.
type Option func(*Server)

// WithTour 讓頁面有一份解說（錄製檔旁邊的 *.tour.json）。 / WithTour gives the page a tour (the *.tour.json beside a recording).
func WithTour(tour []byte) Option { return func(s *Server) { s.tour = tour } }

// Serve 在 addr 上開始提供頁面（空字串或 "true" 表示 127.0.0.1 上一個空閒的埠）。loopback 的位址只給這台機器用，
// 場景按鈕的請求要帶 token；其他的位址（例如 0.0.0.0:8080，給遠端的 lab 與共用的 VM）是遠端模式：印出的網址帶著
// 一個每次執行都不同的祕密 token（像 Jupyter 那樣），沒有帶它的請求（讀取也一樣）只得到 403。被占用的埠是一行錯誤。
//
// Serve starts serving the page on addr (empty or "true": a free port on
// 127.0.0.1). A loopback address is for this machine alone, and the scene
// buttons' requests carry a token; any other address (0.0.0.0:8080, say,
// for remote labs and shared VMs) is remote mode: the URL it prints carries
// a secret token new on every run (as Jupyter's does), and a request without
// it, reads included, gets 403 and nothing else. A port in use is one error
// line.
func Serve(addr string, hub *Hub, p Pipeline, actions Actions, opts ...Option) (*Server, error) {
	if addr == "" || addr == "true" {
		addr = "127.0.0.1:0"
	}
	remote, err := Remote(addr)
	if err != nil {
		return nil, fmt.Errorf("--ui %q: %v", addr, err)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("the live view cannot listen on %s: %v", addr, errors.Unwrap(err))
	}
	s := &Server{hub: hub, pipeline: p, actions: actions, token: rand.Text(), remote: remote, ln: ln}
	for _, o := range opts {
		o(s)
	}
	s.URL = "http://" + ln.Addr().String() + "/"
	if remote {
		host, port, _ := net.SplitHostPort(ln.Addr().String())
		if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
			// 接聽所有位址時，網址寫 127.0.0.1；別台機器換成這台機器的位址。
			// Listening on every address, the URL says 127.0.0.1; another machine uses this machine's address instead.
			host = "127.0.0.1"
		}
		s.URL = "http://" + net.JoinHostPort(host, port) + "/?token=" + s.token
	}
	s.srv = &http.Server{Handler: s.routes(), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = s.srv.Serve(ln) }()
	return s, nil
}

// Remote 檢查 addr 是 HOST:PORT，並說它是不是遠端模式（HOST 不是 loopback：127.0.0.1、::1 或 localhost）。
//
// Remote checks that addr is HOST:PORT and says whether it is remote mode
// (a HOST that is not loopback: 127.0.0.1, ::1 or localhost).
func Remote(addr string) (bool, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false, errors.New("want HOST:PORT, such as 127.0.0.1:8080, or 0.0.0.0:8080 for a remote lab (every request then needs the token the URL carries)")
	}
	if host == "localhost" {
		return false, nil
	}
	ip := net.ParseIP(host)
	return ip == nil || !ip.IsLoopback(), nil
}

// Close 結束每個頁面的事件串流，再關掉伺服器。
//
// Close ends every page's event stream, then shuts the server down.
func (s *Server) Close() error {
	s.hub.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return s.srv.Shutdown(ctx)
}

func (s *Server) routes() http.Handler {
	static, err := fs.Sub(page, "page")
	if err != nil {
		panic(err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", s.index)
	mux.Handle("GET /static/", http.StripPrefix("/static/", http.FileServerFS(static)))
	mux.HandleFunc("GET /pipeline.json", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(s.pipeline)
	})
	mux.HandleFunc("GET /tour.json", func(w http.ResponseWriter, _ *http.Request) {
		// 沒有解說時是 null（不是 404：瀏覽器會把 404 當成主控台的錯誤）。 / Without a tour it is null (not 404, which browsers log as a console error).
		w.Header().Set("Content-Type", "application/json")
		if s.tour == nil {
			_, _ = io.WriteString(w, "null\n")
			return
		}
		_, _ = w.Write(s.tour)
	})
	mux.Handle("GET /events", s.hub)
	mux.Handle("GET /metrics", MetricsHandler())
	mux.HandleFunc("POST /scene", s.scene)
	if s.remote {
		return s.withToken(mux)
	}
	return s.sameHost(mux)
}

// withToken 是遠端模式的門：網址的 token 參數不對，什麼都不給，只有 403。Host 不必檢查：
// 就算別的網站把自己的名字解析到這裡，它也不知道 token。
//
// withToken is remote mode's door: without the right token parameter in the
// URL, nothing but 403. The Host needs no check: a site resolving its own
// name to this address still does not know the token.
func (s *Server) withToken(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if subtle.ConstantTimeCompare([]byte(r.URL.Query().Get("token")), []byte(s.token)) != 1 {
			http.Error(w, "forbidden: this live view needs the token its URL carries", http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// sameHost 只接受 Host 是 localhost 或一個 IP 位址、而且埠是伺服器自己的請求：別的網站即使把自己的網域名稱
// 解析到 127.0.0.1（DNS rebinding），也讀不到頁面與 token。
//
// sameHost accepts only requests whose Host is localhost or an IP address,
// on the server's own port: a site that resolves its own domain name to
// 127.0.0.1 (DNS rebinding) cannot read the page or its token.
func (s *Server) sameHost(next http.Handler) http.Handler {
	_, port, _ := net.SplitHostPort(s.ln.Addr().String())
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host, p, err := net.SplitHostPort(r.Host)
		if err != nil || p != port || (host != "localhost" && net.ParseIP(host) == nil) {
			http.Error(w, "wrong Host", http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// index 送出頁面，裡面帶著這次執行的 token：場景按鈕的請求必須附上它，別的網站的頁面讀不到它，
// 所以也就替學習者按不了按鈕。
//
// index serves the page with this run's token in it: the scene buttons'
// requests must carry it, and another site's page cannot read it, so it
// cannot press the buttons for the learner.
func (s *Server) index(w http.ResponseWriter, _ *http.Request) {
	html, err := page.ReadFile("page/index.html")
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	mode := "live"
	if s.actions == nil {
		mode = "replay"
	}
	html = bytes.Replace(html, []byte(`<meta name="live-token" content="">`), fmt.Appendf(nil, `<meta name="live-token" content="%s">`, s.token), 1)
	html = bytes.Replace(html, []byte(`<meta name="live-mode" content="">`), fmt.Appendf(nil, `<meta name="live-mode" content="%s">`, mode), 1)
	if s.remote {
		// 遠端模式：頁面自己的檔案也要帶著 token 才拿得到。 / Remote mode: the page's own files need the token too.
		html = bytes.ReplaceAll(html, []byte(`.js" defer>`), []byte(`.js?token=`+s.token+`" defer>`))
		html = bytes.ReplaceAll(html, []byte(`style.css">`), []byte(`style.css?token=`+s.token+`">`))
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Security-Policy", contentSecurityPolicy)
	_, _ = w.Write(html)
}

// contentSecurityPolicy 只允許頁面自己的檔案：沒有行內腳本，沒有外部資源，叢集來的字串即使混進 HTML 也執行不了。
//
// contentSecurityPolicy allows the page's own files only: no inline script,
// no outside resource, so a cluster string that slipped into the HTML could
// not run anyway.
const contentSecurityPolicy = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// scene 是場景按鈕：POST，表頭 X-Live-Token 必須是這次的 token，內容是 JSON 的 {"args": [...]}。
//
// scene is the scene buttons: a POST whose X-Live-Token header must be this
// run's token, with a JSON body {"args": [...]}.
func (s *Server) scene(w http.ResponseWriter, r *http.Request) {
	if s.actions == nil {
		http.Error(w, "a replay has no cluster to change", http.StatusConflict)
		return
	}
	got := r.Header.Get("X-Live-Token")
	if subtle.ConstantTimeCompare([]byte(got), []byte(s.token)) != 1 {
		http.Error(w, "missing or wrong token", http.StatusForbidden)
		return
	}
	var req struct {
		Args []string `json:"args"`
	}
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 4096)).Decode(&req); err != nil {
		http.Error(w, "want a JSON body {\"args\": [...]}", http.StatusBadRequest)
		return
	}
	said, err := s.actions(r.Context(), req.Args)
	if err != nil {
		http.Error(w, strings.TrimSpace(said+"\n"+err.Error()), http.StatusUnprocessableEntity)
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	_, _ = io.WriteString(w, said)
}
