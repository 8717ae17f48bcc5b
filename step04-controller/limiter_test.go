package main

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/kubernetes"

	"github.com/informer-walkthrough/informer-walkthrough/internal/scene"
	"github.com/informer-walkthrough/informer-walkthrough/internal/testenv"
)

// 情境：演練「workqueue 的兩個限速器」。預設的限速器是每個 key 自己的指數退避與一個共用的 token bucket
// （每秒 10 個，burst 100）取最長的。150 個同步必定失敗的 Pod 一起出現：前一百次失敗用掉 bucket 的 token，
// 之後的 key 不管自己的退避多短（第一次重試是 5ms），都要排隊等 token，每個晚 100ms：至少有一個 key 的第一次
// 重試要等一秒以上，輸出說那是 bucket 決定的。bucket 讀的是真的時鐘（rate.Limiter 的 Reserve 用 time.Now），
// 所以這裡檢查的是下限：150 - 100 = 50 個 key 排隊，再扣掉建立 Pod 那一兩秒補回來的 token，還遠超過 10 個。
// 修正：--limiter per-key，只有每個 key 的退避：每個 key 的第一次重試都是 5ms。
//
// The story: the drill "the workqueue's two rate limiters". The default
// limiter is the longer of each key's own exponential backoff and one shared
// token bucket (10 per second, burst 100). 150 pods whose sync always fails
// appear together: the first hundred failures use the bucket's tokens up,
// and later keys queue for a token 100 ms apart however short their own
// backoff (5 ms for a first retry): at least one key's first retry waits
// over a second, and the output says the bucket set it. The bucket reads the
// real clock (rate.Limiter's Reserve uses time.Now), so the test checks a
// bound: 150 - 100 = 50 keys queue, and even less the tokens refilled while
// the pods are created (a second or two) that is well over 10. The fix:
// --limiter per-key, each key's backoff only: every first retry is 5 ms.
func TestRateLimiterDrill(t *testing.T) {
	const pods = 150
	firstRetry := regexp.MustCompile(`retry 1/5 in ([0-9.]+[mµn]?s)( \(set by the shared token bucket)?`)
	for _, tc := range []struct {
		limiter string
		bucket  bool
	}{
		{"default", true},
		{"per-key", false},
	} {
		t.Run(tc.limiter, func(t *testing.T) {
			c := testenv.Plain(t)
			ns := c.Namespace(t)
			opts := defaults
			opts.limiter = tc.limiter
			out := startStep(t, ns, opts)
			out.Wait(t, 1, "watching from there")
			// scene.sh failing 一樣放寬 client 的限速，Pod 才會在一兩秒內全部出現。
			// Lifting the client's rate limit as scene.sh failing does, so the pods all appear within a second or two.
			cfg := c.Config()
			cfg.QPS, cfg.Burst = 100, 200
			if _, err := scene.Failing(t.Context(), kubernetes.NewForConfigOrDie(cfg), ns, pods); err != nil {
				t.Fatal(err)
			}
			out.Wait(t, pods, "FAILED", "retry 1/5 in ")
			longest, byBucket := time.Duration(0), 0
			for _, m := range firstRetry.FindAllStringSubmatch(out.String(), -1) {
				d, err := time.ParseDuration(m[1])
				if err != nil {
					t.Fatal(err)
				}
				longest = max(longest, d)
				if m[2] != "" {
					byBucket++
				}
			}
			t.Logf("%s: the longest first retry %s; %d set by the bucket", tc.limiter, longest, byBucket)
			switch {
			case tc.bucket && (longest < time.Second || byBucket < 10):
				t.Errorf("with the bucket: the longest first retry %s and %d set by the bucket; want over 1s and at least 10", longest, byBucket)
			case !tc.bucket && (longest != 5*time.Millisecond || strings.Contains(out.String(), "token bucket")):
				t.Errorf("per-key only: the longest first retry %s; want every one 5ms, none set by a bucket", longest)
			}
		})
	}
}
