package main

import (
	"context"
	"runtime"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/metadata/metadatainformer"
	"k8s.io/client-go/tools/cache"

	"github.com/informer-walkthrough/informer-walkthrough/internal/testenv"
)

// benchPods 是基準測試快取的 Pod 數目，跟步驟 05 的相同。 / benchPods is how many pods the benchmark caches, as in step 05.
const benchPods = 1000

// BenchmarkCachedPodHeap 延伸步驟 05 的同名基準測試：同樣 1000 個 Pod（testenv.ManyPods 用 scene.sh create 的方式建立），
// 量三種快取每個 Pod 占多少 heap：型別化的 informer、加上丟掉 managedFields 的 Transform、以及 metadata-only。
// 每一輪建立新的工廠、等同步、垃圾回收之後量 HeapAlloc 增加多少，再除以 Pod 數。
//
//	go test ./step06-custom-resource -run '^$' -bench CachedPodHeap -benchtime 5x
//
// BenchmarkCachedPodHeap extends step 05's benchmark of the same name: the
// same 1000 pods (as scene.sh create makes them), and the heap each cached
// pod takes in three caches: the typed informer, typed with the Transform
// that drops managedFields, and metadata-only. Each round builds a new
// factory, waits for the sync, and after a garbage collection measures how
// much HeapAlloc grew, divided by the number of pods.
func BenchmarkCachedPodHeap(b *testing.B) {
	c := testenv.Plain(b)
	ns := c.Namespace(b)
	cs := c.Client()
	meta := metadata.NewForConfigOrDie(c.Config())
	testenv.ManyPods(b, c, ns, benchPods)

	stripManagedFields := func(obj any) (any, error) {
		if m, ok := obj.(metav1.Object); ok {
			m.SetManagedFields(nil)
		}
		return obj, nil
	}
	caches := []struct {
		name  string
		start func(ctx context.Context) (cache.SharedIndexInformer, func())
	}{
		{"typed", func(ctx context.Context) (cache.SharedIndexInformer, func()) {
			f := informers.NewSharedInformerFactoryWithOptions(cs, 0, informers.WithNamespace(ns))
			inf := f.Core().V1().Pods().Informer()
			f.StartWithContext(ctx)
			return inf, f.Shutdown
		}},
		{"typed+transform", func(ctx context.Context) (cache.SharedIndexInformer, func()) {
			f := informers.NewSharedInformerFactoryWithOptions(cs, 0, informers.WithNamespace(ns), informers.WithTransform(stripManagedFields))
			inf := f.Core().V1().Pods().Informer()
			f.StartWithContext(ctx)
			return inf, f.Shutdown
		}},
		{"metadata-only", func(ctx context.Context) (cache.SharedIndexInformer, func()) {
			f := metadatainformer.NewFilteredSharedInformerFactory(meta, 0, ns, nil)
			inf := f.ForResource(podsGVR).Informer()
			f.Start(ctx.Done())
			return inf, f.Shutdown
		}},
	}
	for _, k := range caches {
		b.Run(k.name, func(b *testing.B) {
			var perPod float64
			for b.Loop() {
				perPod = heapPerPod(b, k.start)
			}
			b.ReportMetric(perPod, "heap-bytes/pod")
		})
	}
}

// heapPerPod 啟動一個快取、等它同步，回傳它讓 heap 增加了多少（每個 Pod）。
//
// heapPerPod starts one cache, waits for it to sync, and returns how much it
// grew the heap, per pod.
func heapPerPod(b *testing.B, start func(ctx context.Context) (cache.SharedIndexInformer, func())) float64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	ctx, cancel := context.WithCancel(b.Context())
	inf, shutdown := start(ctx)
	if !cache.WaitForCacheSync(ctx.Done(), inf.HasSynced) {
		b.Fatal("the cache did not sync")
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	if n := len(inf.GetStore().ListKeys()); n != benchPods {
		b.Fatalf("the cache holds %d pods; want %d", n, benchPods)
	}
	cancel()
	shutdown()
	return float64(int64(after.HeapAlloc)-int64(before.HeapAlloc)) / benchPods
}
