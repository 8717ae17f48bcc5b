package main

import (
	"context"
	"io"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"

	"github.com/informer-walkthrough/informer-walkthrough/internal/browser"
	"github.com/informer-walkthrough/informer-walkthrough/internal/pagetest"
	"github.com/informer-walkthrough/informer-walkthrough/internal/scene"
	"github.com/informer-walkthrough/informer-walkthrough/internal/show"
	"github.com/informer-walkthrough/informer-walkthrough/internal/testenv"
)

// BenchmarkBurst 量 --ui 在一次爆量裡的代價：一百個 Pod、scene.sh burst 200（兩百次標籤變化，再拿掉標籤），
// 三個 worker。沒有頁面與開著頁面（真的 chromium）各跑一次，回報這個行程（步驟、它的 client，以及頁面的伺服器；
// 瀏覽器是另一個行程，不算在內）在爆量期間用掉的 CPU、爆量結束後的 heap，以及開著頁面時，每一行從步驟印出到
// 頁面畫出它的延遲（p50、p95）。
//
//	go test -run '^$' -bench Burst -benchtime 5x ./step04-controller
//
// BenchmarkBurst measures what --ui costs during a burst: a hundred pods,
// scene.sh burst 200 (two hundred label changes, then the label removed),
// three workers. It runs once without the page and once with it open in real
// chromium, and reports the CPU this process used during the burst (the
// step, its client and the page's server; the browser is another process and
// is not counted), the heap after it, and with the page, the latency from
// the step printing each line to the page drawing it (p50, p95).
func BenchmarkBurst(b *testing.B) {
	c := testenv.Plain(b)
	ns := c.Namespace(b)
	testenv.ManyPods(b, c, ns, 100)
	fast := c.Config()
	fast.QPS, fast.Burst = 100, 200
	burster := kubernetes.NewForConfigOrDie(fast)
	opts := options{workers: 3, maxRetries: 5, baseDelay: 5 * time.Millisecond, fifo: "atomic"}

	iteration := 0
	for _, ui := range []bool{false, true} {
		b.Run(map[bool]string{false: "text", true: "ui"}[ui], func(b *testing.B) {
			var cpu time.Duration
			var heap uint64
			var latencies []float64
			for b.Loop() {
				b.StopTimer()
				var out *testenv.Output
				var stop func()
				var br *browser.Browser
				var stream *show.Stream
				if ui {
					// --ui 給 informer 一個名字，client-go 才回報它的 metrics；一個名字只給一個 informer 用。
					// --ui names the informer, so client-go reports its metrics; a name serves one informer only.
					opts := opts
					name, err := cache.NewInformerName("bench-" + strconv.Itoa(iteration))
					if err != nil {
						b.Fatal(err)
					}
					iteration++
					opts.name = name
					o, lv, s := testenv.StartLive(b, c, ns, page(opts), "", func(ctx context.Context, cs kubernetes.Interface, w io.Writer) error {
						return run(ctx, cs, ns, opts, w)
					})
					b.Cleanup(name.Release)
					out, stop = o, s
					out.Wait(b, 100, "sync      "+ns+"/pod-")
					br = pagetest.Page(b, lv.URL(), out.String())
					stream = lv.Out().(*show.Stream)
					// 每筆事件第一次畫上頁面的時刻（牆上時間，毫秒）。 / When each event first reached the page (wall clock, ms).
					// 只算安裝之後才到的事件：之前的那些早就畫上去了。 / Only events arriving after this count: the earlier ones were drawn long ago.
					browser.Eval[bool](b, br, `(() => { window.drawnAt = {}; let seen = LV.app.timeline.events.length;
						LV.onDrawn = (events) => { const now = performance.timeOrigin + performance.now();
							for (; seen < events.length; seen++) window.drawnAt[events[seen].seq] = { at: now, t: events[seen].t, quiet: !!events[seen].quiet }; };
						return true; })()`)
				} else {
					out, stop = testenv.Start(b, func(ctx context.Context, w io.Writer) error {
						return run(ctx, c.Client(), ns, opts, w)
					})
					out.Wait(b, 100, "sync      "+ns+"/pod-")
				}
				before := rusage(b)
				b.StartTimer()

				changed, err := scene.Burst(b.Context(), burster, ns, 200)
				if err != nil {
					b.Fatal(err)
				}
				testenv.Poll(b, "every changed pod's last sync to show no burst label", func() bool { return settled(out.String(), ns, changed) })

				b.StopTimer()
				cpu += rusage(b) - before
				runtime.GC()
				var m runtime.MemStats
				runtime.ReadMemStats(&m)
				heap += m.HeapAlloc
				if ui {
					pagetest.SamePage(b, br, out.String)
					start := float64(stream.Start().UnixMicro()) / 1000
					lat := browser.Eval[[]float64](b, br, `Object.values(window.drawnAt).filter(d => !d.quiet).map(d => d.at - d.t)`)
					for _, l := range lat {
						latencies = append(latencies, l-start)
					}
				}
				stop()
				b.StartTimer()
			}
			b.ReportMetric(float64(cpu.Milliseconds())/float64(b.N), "cpu-ms/burst")
			b.ReportMetric(float64(heap)/float64(b.N)/(1<<20), "heap-MiB")
			if len(latencies) > 0 {
				slices.Sort(latencies)
				b.ReportMetric(latencies[len(latencies)/2], "p50-ms")
				b.ReportMetric(latencies[len(latencies)*95/100], "p95-ms")
			}
		})
	}
}

// settled 說每個被改過的 Pod 最後一次同步時，已經沒有 burst 標籤。
//
// settled reports whether every changed pod's last sync shows no burst label.
func settled(text, ns string, changed []string) bool {
	last := map[string]string{}
	for _, line := range strings.Split(text, "\n") {
		if f := strings.Fields(line); len(f) >= 3 && f[1] == "sync" {
			last[f[2]] = line
		}
	}
	for _, n := range changed {
		if l := last[ns+"/"+n]; l == "" || strings.Contains(l, "burst=") {
			return false
		}
	}
	return true
}

// rusage 是這個行程到目前為止用掉的 CPU 時間（使用者加系統）。
//
// rusage is the CPU time (user plus system) this process has used so far.
func rusage(b testing.TB) time.Duration {
	var r syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &r); err != nil {
		b.Fatal(err)
	}
	return time.Duration(r.Utime.Nano() + r.Stime.Nano())
}
