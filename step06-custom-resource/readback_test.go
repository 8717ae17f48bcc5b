package main

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/informer-walkthrough/informer-walkthrough/internal/show"
	"github.com/informer-walkthrough/informer-walkthrough/internal/testenv"
	"github.com/informer-walkthrough/informer-walkthrough/step06-custom-resource/generated/clientset/versioned"
)

// 情境：演練「讀回自己的寫入」的 client-go 版。--watch-delay 1s 讓 tally 的 watch 晚一秒（Pod 的照常）。
// 一個 Pod 出現，控制器寫 status，立刻從 lister 讀回：讀到的是舊的。寫入的回音還沒到，第二個 Pod 又讓同一個 tally
// 同步一次：
//   - 沒有修正：它從舊的複本算、從舊的複本寫，得到 409 Conflict；
//   - 加上 --wait-for-cache：它認出 lister 給的還是上一次寫入取代掉的那一份，不動作，稍後再看；回音到了之後才寫，
//     沒有 409，數字是 2。
//
// The story: the client-go side of the drill "reading your own write".
// --watch-delay 1s holds the tallies' watch back a second (the pods' is
// not). A pod appears, the controller writes status, and reads it back from
// the lister at once: the read is the old copy. Before the write's echo
// arrives, a second pod makes the same tally sync again:
//   - with no fix, it counts from the old copy, writes from it, and gets 409
//     Conflict;
//   - with --wait-for-cache it sees the lister still hands out the copy its
//     last write replaced, does nothing, and looks again shortly; it writes
//     once the echo is in, with no 409, and the count is 2.
func TestReadYourWritesDrill(t *testing.T) {
	c := testenv.Plain(t)
	for _, fix := range []bool{false, true} {
		name := map[bool]string{false: "stale", true: "wait-for-cache"}[fix]
		t.Run(name, func(t *testing.T) {
			cs, ns := c.Client(), c.Namespace(t)
			out := startStep(t, c.Config(), ns, options{demoTally: true, watchDelay: time.Second, waitForCache: fix})
			out.Wait(t, 1, "watching from there")
			key := ns + "/app-demo"
			// 先等第一次寫入（observedGeneration 0 -> 1）的回音，下面的 Pod 才從一份跟上了的快取開始。
			// Wait for the first write's echo (observedGeneration 0 -> 1) first, so the pods below start from a cache that has caught up.
			out.Wait(t, 1, show.Prefix("tallies", "OnUpdate", key), "(status changed): skipped")
			testenv.CreatePod(t, cs, ns, "one", map[string]string{"app": "demo"})
			out.Wait(t, 1, show.Prefix("worker1", "readback", key), "count 0 (wrote 1); the lister is behind")
			testenv.CreatePod(t, cs, ns, "two", map[string]string{"app": "demo"})
			tallies := versioned.NewForConfigOrDie(c.Config()).LabV1alpha1().PodTallies(ns)
			if !fix {
				out.Wait(t, 1, show.Prefix("worker1", "FAILED", key), "409 Conflict")
				return
			}
			out.Wait(t, 1, show.Prefix("worker1", "sync", key), "which my last write replaced: not acting on it")
			testenv.Poll(t, "status.count 2", func() bool {
				got, err := tallies.Get(t.Context(), "app-demo", metav1.GetOptions{})
				return err == nil && got.Status.Count == 2
			})
			if n := out.Count("409"); n != 0 {
				t.Errorf("%d lines mention 409 with --wait-for-cache:\n%s", n, out.String())
			}
		})
	}
}
