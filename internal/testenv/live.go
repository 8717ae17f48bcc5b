package testenv

import (
	"context"
	"io"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"

	"github.com/informer-walkthrough/informer-walkthrough/internal/cli"
	"github.com/informer-walkthrough/informer-walkthrough/internal/golden"
	"github.com/informer-walkthrough/informer-walkthrough/internal/liveview"
	"github.com/informer-walkthrough/informer-walkthrough/internal/show"
)

// StartLive 像 --ui 與 --record 那樣執行一個步驟：同一個 cli.StartLive，文字寫進回傳的 Output，
// 事件送進頁面與錄製檔（record 是 testdata 裡的檔名；-update 時改寫它，否則寫到暫存目錄；空字串表示不錄）。
// run 拿到的 clientset 的每個請求也都是頁面上的事件；場景按鈕作用在 c 的 namespace ns 上。
//
// StartLive runs a step as --ui and --record do: the same cli.StartLive,
// the text going into the returned Output, the events into the page and a
// recording (record is a file name in testdata; rewritten with -update,
// written to a temporary directory otherwise; empty for no recording). Every request of the
// clientset run gets is a page event too; the scene buttons act on c's
// namespace ns.
func StartLive(t testing.TB, c *Cluster, ns string, p liveview.Pipeline, record string, run func(ctx context.Context, cs kubernetes.Interface, out io.Writer) error) (*Output, *cli.Live, func()) {
	t.Helper()
	return StartLiveConfig(t, c, ns, p, record, func(ctx context.Context, cfg *rest.Config, out io.Writer) error {
		return run(ctx, kubernetes.NewForConfigOrDie(cfg), out)
	})
}

// StartLiveConfig 跟 StartLive 一樣，只是 run 拿到的是連線設定（給需要好幾種 client 的步驟）。
//
// StartLiveConfig is StartLive for a step that needs the connection config
// (to build several kinds of client).
func StartLiveConfig(t testing.TB, c *Cluster, ns string, p liveview.Pipeline, record string, run func(ctx context.Context, cfg *rest.Config, out io.Writer) error) (*Output, *cli.Live, func()) {
	t.Helper()
	path := ""
	switch {
	case record != "" && golden.Updating():
		path = filepath.Join("testdata", record)
	case record != "":
		path = filepath.Join(t.TempDir(), record)
	}
	out := &Output{}
	lv, err := cli.StartLive(p, true, "", path, out)
	if err != nil {
		t.Fatal(err)
	}
	lv.Use(&cli.Env{Client: c.Client(), Namespace: ns})
	t.Cleanup(func() {
		if err := lv.Close(); err != nil {
			t.Error(err)
		}
	})
	stream := lv.Out().(*show.Stream)
	stream.Also(out)
	cfg := c.Config()
	cfg.Wrap(cli.RequestEvents(stream))
	_, stop := Start(t, func(ctx context.Context, _ io.Writer) error { return run(ctx, cfg, lv.Out()) })
	return out, lv, stop
}

// InformerName 回傳這個測試專用的 informer 名字（測試結束時釋放），讓 informer 回報 client-go 的 metrics。
//
// InformerName returns an informer name for this test alone (released when
// the test ends), so the informer reports client-go's metrics.
func InformerName(t testing.TB) *cache.InformerName {
	t.Helper()
	name, err := cache.NewInformerName(t.Name())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(name.Release)
	return name
}

// Metric 讀頁面的 /metrics，回傳名字是 name、標籤包含 labels（例如 name="TestDemo"）的那一個數；沒有時讓測試失敗。
//
// Metric reads the page's /metrics and returns the one sample named name
// whose labels contain labels (name="TestDemo", say); it fails the test when
// there is none.
func Metric(t testing.TB, pageURL, name, labels string) float64 {
	t.Helper()
	resp, err := http.Get(pageURL + "metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(body), "\n") {
		sample, value, ok := strings.Cut(line, " ")
		if !ok || !strings.HasPrefix(sample, name+"{") || !strings.Contains(sample, labels) {
			continue
		}
		v, err := strconv.ParseFloat(value, 64)
		if err != nil {
			t.Fatalf("/metrics: %q: %v", line, err)
		}
		return v
	}
	t.Fatalf("/metrics has no %s{%s}:\n%s", name, labels, body)
	return 0
}
