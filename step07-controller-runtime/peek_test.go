package main

import (
	"strings"
	"testing"

	"github.com/informer-walkthrough/informer-walkthrough/internal/cli"
	"github.com/informer-walkthrough/informer-walkthrough/internal/show"
	"github.com/informer-walkthrough/informer-walkthrough/internal/testenv"
)

// 情境：演練「沒有要求的 informer」。--read-service web：Reconcile 透過快取的 client 讀一個控制器沒有 watch 的
// Service，快取就替 namespace 裡的每個 Service 開一條 watch（--trace 裡看得到），讀取的答案（找不到）來自它。
// 修正：--fail-on-missing-informer：同樣的讀取直接被拒絕，--trace 裡沒有任何 Service 的請求，Reconcile 照常進行。
//
// The story: the drill "the informer you did not ask for". --read-service
// web: Reconcile reads, through the cached client, a Service the controller
// does not watch, and the cache opens a watch of every Service in the
// namespace (--trace shows it), whose answer (not found) the read gets. The
// fix: --fail-on-missing-informer: the same read is refused at once, --trace
// has no request for Services, and Reconcile goes on as before.
func TestUnaskedInformerDrill(t *testing.T) {
	c := testenv.Plain(t)
	installCRD(t, c)
	ns := c.Namespace(t)
	freshTally(t, c, ns, "app-demo", "app=demo")
	services := "/api/v1/namespaces/" + ns + "/services?"
	for _, tc := range []struct {
		name  string
		fix   bool
		note  string
		watch bool
	}{
		{"started", false, "-- Get service " + ns + "/web: not found, answered by an informer for every Service in " + ns, true},
		{"refused", true, "-- Get service " + ns + "/web: refused (ReaderFailOnMissingInformer)", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			trace := &testenv.Output{}
			cfg := c.Config()
			cfg.Wrap(cli.Tracer(trace))
			out := startStep(t, cfg, ns, options{readService: "web", failOnMissingInformer: tc.fix})
			out.Wait(t, 1, tc.note)
			out.Wait(t, 1, show.Prefix("podtally", "Reconcile", ns+"/app-demo"))
			var got []string
			for line := range strings.Lines(trace.String()) {
				if strings.Contains(line, services) {
					got = append(got, line)
				}
			}
			// 開始時一條 WatchList 的 watch（沒有另外的 LIST）；被拒絕時一個請求也沒有。
			// When started, one WatchList watch (no separate LIST); when refused, no request at all.
			want := 0
			if tc.watch {
				want = 1
			}
			if len(got) != want || (want == 1 && !strings.Contains(got[0], "watch=true")) {
				t.Errorf("requests for Services: %q; want %d watch(es) of them", got, want)
			}
		})
	}
}
