package main

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/kubernetes"

	"github.com/informer-walkthrough/informer-walkthrough/internal/scene"
	"github.com/informer-walkthrough/informer-walkthrough/internal/testenv"
)

// benchPods 是基準測試快取的 Pod 數目。
//
// benchPods is how many pods the benchmark caches.
const benchPods = 1000

// BenchmarkCachedPodHeap 量 informer 的快取每個 Pod 占多少 heap：有與沒有丟掉 managedFields 的
// Transform 各量一次。1000 個 Pod 建立在真正的 API server 上（跟 scene.sh create 建立的一樣），
// 每一輪建立一個新的工廠、等它同步、做完垃圾回收之後量 HeapAlloc 增加了多少，再除以 Pod 數。
//
//	go test ./step05-shared-informer -run '^$' -bench CachedPodHeap -benchtime 5x
//
// BenchmarkCachedPodHeap measures the heap an informer's cache takes per pod,
// with and without the Transform that drops managedFields. The 1000 pods are
// created on a real API server (as scene.sh create makes them); each round
// builds a new factory, waits for it to sync, and after a garbage collection
// measures how much HeapAlloc grew, divided by the number of pods.
func BenchmarkCachedPodHeap(b *testing.B) {
	c := testenv.Plain(b)
	ns := c.Namespace(b)
	cfg := c.Config()
	cfg.QPS, cfg.Burst = 500, 1000
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		b.Fatal(err)
	}
	createPods(b, cs, ns, benchPods)
	pods, err := cs.CoreV1().Pods(ns).List(b.Context(), metav1.ListOptions{})
	if err != nil {
		b.Fatal(err)
	}
	entries, bytes := 0, 0
	for _, p := range pods.Items {
		for _, m := range p.ManagedFields {
			entries++
			if m.FieldsV1 != nil {
				bytes += len(m.FieldsV1.GetRawBytes())
			}
		}
	}
	b.Logf("%d pods; on the server each has %.1f managedFields entries, %d bytes of fieldsV1 JSON on average",
		len(pods.Items), float64(entries)/float64(len(pods.Items)), bytes/len(pods.Items))

	for _, transform := range []bool{false, true} {
		b.Run(fmt.Sprintf("transform=%t", transform), func(b *testing.B) {
			var perPod float64
			for b.Loop() {
				perPod = heapPerPod(b, cs, ns, options{keepManagedFields: !transform})
			}
			b.ReportMetric(perPod, "heap-bytes/pod")
		})
	}
}

// heapPerPod 建立一個工廠、等它同步，回傳它的快取讓 heap 增加了多少（每個 Pod）。
//
// heapPerPod builds a factory, waits for it to sync, and returns how much its
// cache grew the heap, per pod.
func heapPerPod(b *testing.B, cs kubernetes.Interface, ns string, opts options) float64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)

	factory := newFactory(cs, ns, opts)
	lister := factory.Core().V1().Pods().Lister()
	runCtx, cancel := context.WithCancel(b.Context())
	factory.StartWithContext(runCtx)
	if err := factory.WaitForCacheSyncWithContext(runCtx).AsError(); err != nil {
		b.Fatal(err)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	if cached, _ := lister.Pods(ns).List(labels.Everything()); len(cached) != benchPods {
		b.Fatalf("the cache holds %d pods; want %d", len(cached), benchPods)
	}
	cancel()
	factory.Shutdown()
	return float64(int64(after.HeapAlloc)-int64(before.HeapAlloc)) / benchPods
}

// createPods 以 20 個 goroutine 建立 n 個 Pod。
//
// createPods creates n pods from 20 goroutines.
func createPods(b *testing.B, cs kubernetes.Interface, ns string, n int) {
	var wg sync.WaitGroup
	errs := make(chan error, n)
	names := make(chan string, n)
	for i := range n {
		names <- fmt.Sprintf("pod-%04d", i)
	}
	close(names)
	for range 20 {
		wg.Go(func() {
			for name := range names {
				if _, err := scene.Create(b.Context(), cs, ns, name, map[string]string{"app": "bench"}); err != nil {
					errs <- err
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		b.Fatal(err)
	}
}
