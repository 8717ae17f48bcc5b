package main

import (
	"io"
	"net"
	"net/http"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/informer-walkthrough/informer-walkthrough/internal/show"
	"github.com/informer-walkthrough/informer-walkthrough/internal/testenv"
)

// 情境：演練「讀回自己的寫入」。--watch-delay 1s 讓每個 watch 事件晚一秒才進快取，Reconcile 寫完 status 立刻透過快取讀回：
//   - 沒有 read-your-writes：讀到的是寫入之前的 count，這一行說快取落後了；
//   - 加上 --read-your-writes（EnableReadYourWritesConsistency）：Get 先等快取看見這次寫入，這一行說快取有了，
//     等的時間差不多就是事件被扣住的那一秒；/metrics 的 controller_runtime_client_consistency_wait_duration_seconds 記下這段等待。
//
// The story: the drill "reading your own write". --watch-delay 1s hands
// every watch event to the cache a second late, and Reconcile reads the
// status it just wrote back through the cache at once:
//   - without read-your-writes, the read returns the count from before the
//     write, and the line says the cache is behind;
//   - with --read-your-writes (EnableReadYourWritesConsistency), Get first
//     waits until the cache has seen the write: the line says the cache has
//     it, after about the second the events are held, and /metrics has the
//     wait in controller_runtime_client_consistency_wait_duration_seconds.
func TestReadYourWritesDrill(t *testing.T) {
	testenv.FullTier(t, "a drill whose cache is a second late on purpose, about 11 s")
	c := testenv.Plain(t)
	installCRD(t, c)
	const delay = time.Second
	waited := regexp.MustCompile(`Get through the cache after ([0-9.]+m?s)`)

	t.Run("stale", func(t *testing.T) {
		ns := c.Namespace(t)
		freshTally(t, c, ns, "app-demo", "app=demo")
		out := startStep(t, c.Config(), ns, options{watchDelay: delay})
		out.Wait(t, 1, show.Prefix("podtally", "readback", ns+"/app-demo"))
		testenv.CreatePod(t, c.Client(), ns, "one", map[string]string{"app": "demo"})
		out.Wait(t, 1, show.Prefix("podtally", "readback", ns+"/app-demo"), "count 0 (wrote 1); the cache is behind")
	})

	t.Run("read-your-writes", func(t *testing.T) {
		ns := c.Namespace(t)
		freshTally(t, c, ns, "app-demo", "app=demo")
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := l.Addr().String()
		_ = l.Close()
		out := startStep(t, c.Config(), ns, options{watchDelay: delay, readYourWrites: true, metricsAddr: addr})
		out.Wait(t, 1, show.Prefix("podtally", "readback", ns+"/app-demo"))
		testenv.CreatePod(t, c.Client(), ns, "one", map[string]string{"app": "demo"})
		out.Wait(t, 1, show.Prefix("podtally", "readback", ns+"/app-demo"), "count 1 (wrote 1); the cache has the write")
		for _, m := range waited.FindAllStringSubmatch(out.String(), -1) {
			d, err := time.ParseDuration(m[1])
			if err != nil {
				t.Fatal(err)
			}
			if d < delay*8/10 {
				t.Errorf("a read-back waited %s; with the watch held %s, read-your-writes should wait about that long", d, delay)
			}
		}
		resp, err := http.Get("http://" + addr + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		m := regexp.MustCompile(`(?m)^controller_runtime_client_consistency_wait_duration_seconds_sum\{operation="get",result="success"\} (\S+)$`).FindSubmatch(body)
		if m == nil {
			t.Fatalf("/metrics has no consistency wait for get:\n%s", body)
		}
		if sum, _ := strconv.ParseFloat(string(m[1]), 64); sum < 2*delay.Seconds()*8/10 {
			t.Errorf("the consistency wait adds up to %vs for two read-backs; want about %s each", sum, delay)
		}
	})
}
