package cli

import (
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/informer-walkthrough/informer-walkthrough/internal/liveview"
)

// 這些是沒有伺服器的單元測試：它們檢查的正是「沒有可用的伺服器」時的錯誤訊息。
// These are unit tests with no server in them: what they check is the error
// when no usable server exists.

func writeKubeconfig(t *testing.T, server string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "kubeconfig")
	cfg := `apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "` + server + `", insecure-skip-tls-verify: true}}]
users: [{name: u, user: {token: t}}]
contexts: [{name: ctx, context: {cluster: c, user: u}}]
current-context: ctx
`
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// connectErr 連線並回傳錯誤訊息；錯誤必須只有一行。
//
// connectErr connects and returns the error message, which must be one line.
func connectErr(t *testing.T, f *Flags) string {
	t.Helper()
	_, err := Connect(t.Context(), f, false, io.Discard, io.Discard)
	if err == nil {
		t.Fatal("Connect succeeded; want an error")
	}
	if strings.Contains(err.Error(), "\n") {
		t.Errorf("error has several lines: %q", err)
	}
	return err.Error()
}

// deadServer 回傳一個剛剛還有人在聽、現在沒有人聽的 https 位址。
//
// deadServer returns an https address where something listened a moment ago
// and nothing listens now.
func deadServer(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	server := "https://" + l.Addr().String()
	_ = l.Close()
	return server
}

func wantContains(t *testing.T, msg string, parts ...string) {
	t.Helper()
	for _, p := range parts {
		if !strings.Contains(msg, p) {
			t.Errorf("error %q does not contain %q", msg, p)
		}
	}
}

// 沒有任何 kubeconfig：告訴使用者去哪裡找過，以及怎麼建立叢集。
// No kubeconfig at all: say where we looked and how to get a cluster.
func TestNoKubeconfig(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("HOME", dir)
	t.Setenv("KUBECONFIG", filepath.Join(dir, "missing"))
	wantContains(t, connectErr(t, &Flags{}), "no kubeconfig found", "scripts/cluster-up.sh")
}

// 壞掉的 kubeconfig：指出是哪個檔案、哪裡壞了。
// A broken kubeconfig: name the file and what is wrong with it.
func TestBrokenKubeconfig(t *testing.T) {
	path := filepath.Join(t.TempDir(), "broken")
	if err := os.WriteFile(path, []byte("{{{"), 0o600); err != nil {
		t.Fatal(err)
	}
	wantContains(t, connectErr(t, &Flags{Kubeconfig: path}), "reading kubeconfig", path)
}

// 不存在的 context：直接說出名稱。
// A context that does not exist: say its name.
func TestUnknownContext(t *testing.T) {
	path := writeKubeconfig(t, "https://127.0.0.1:1")
	wantContains(t, connectErr(t, &Flags{Kubeconfig: path, Context: "nope"}), `context "nope" does not exist`)
}

// 沒有人在聽的埠：立刻失敗，寫出試過的伺服器與修正指令。
// A port nobody listens on: fail at once, naming the server tried and the fix.
func TestConnectionRefused(t *testing.T) {
	server := deadServer(t)
	msg := connectErr(t, &Flags{Kubeconfig: writeKubeconfig(t, server)})
	wantContains(t, msg, "cannot reach the Kubernetes API server at "+server, "scripts/cluster-up.sh")
}

// 步驟會說明 API server 中斷（RidesOutOutages）時，連線前檢查失敗仍然只有那一行錯誤：
// 不會多一行說 client-go 會一直重試，因為程式接著就結束了。
// When a step notes outages (RidesOutOutages), a failed preflight check is still
// that one error line: no extra line saying client-go keeps retrying, since
// the program exits next.
func TestPreflightFailureSaysNothingAboutRetrying(t *testing.T) {
	server := deadServer(t)
	var out strings.Builder
	_, err := Connect(t.Context(), &Flags{Kubeconfig: writeKubeconfig(t, server)}, true, &out, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "cannot reach the Kubernetes API server") {
		t.Fatalf("Connect: %v; want the preflight error", err)
	}
	if out.Len() != 0 {
		t.Errorf("the program printed %q besides its error; want nothing", out.String())
	}
}

// 接受連線卻從不回應的伺服器：在 preflightTimeout 之後放棄，而不是無限等待（測試把它縮短成一秒）。
// A server that accepts connections but never answers: give up after
// preflightTimeout instead of waiting forever (the test shortens it to a second).
func TestServerNeverAnswers(t *testing.T) {
	defer func(d time.Duration) { preflightTimeout = d }(preflightTimeout)
	preflightTimeout = time.Second
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	start := time.Now()
	msg := connectErr(t, &Flags{Kubeconfig: writeKubeconfig(t, "https://"+l.Addr().String())})
	wantContains(t, msg, "cannot reach the Kubernetes API server")
	if took := time.Since(start); took > preflightTimeout+3*time.Second {
		t.Errorf("gave up after %s; want about %s", took, preflightTimeout)
	}
}

// --ui 與 --record 的錯誤在連線之前就出現，一行；不是 loopback 的位址也是錯誤。
// --ui and --record fail before connecting, in one line; an address that is
// not loopback is one of those errors.
func TestLiveFlags(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	for _, c := range []struct {
		ui     bool
		addr   string
		record string
		want   string
	}{
		{true, "bogus", "", `--ui "bogus": want HOST:PORT`},
		{true, busy.Addr().String(), "", "the live view cannot listen on " + busy.Addr().String()},
		{false, "", filepath.Join(t.TempDir(), "missing", "x.jsonl"), "no such file or directory"},
	} {
		lv, err := StartLive(liveview.Pipeline{}, c.ui, c.addr, c.record, io.Discard)
		if err == nil {
			_ = lv.Close()
			t.Errorf("StartLive(%v, %q, %q) succeeded; want an error", c.ui, c.addr, c.record)
			continue
		}
		if msg := err.Error(); strings.Contains(msg, "\n") || !strings.Contains(msg, c.want) {
			t.Errorf("StartLive(%v, %q, %q): %q; want one line containing %q", c.ui, c.addr, c.record, msg, c.want)
		}
	}
	// 不是 loopback 的位址是遠端模式：網址帶著 token。 / A non-loopback address is remote mode: the URL carries a token.
	lv, err := StartLive(liveview.Pipeline{}, true, "0.0.0.0:0", "", io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	defer lv.Close()
	if !strings.Contains(lv.URL(), "/?token=") {
		t.Errorf("StartLive on 0.0.0.0: URL %s; want one carrying ?token=", lv.URL())
	}
}
