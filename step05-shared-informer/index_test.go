package main

import (
	"context"
	"fmt"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/tools/cache"

	"github.com/informer-walkthrough/informer-walkthrough/internal/scene"
	"github.com/informer-walkthrough/informer-walkthrough/internal/testenv"
)

// byNode 是自訂索引的名稱：依 Pod 所在的節點分組。
//
// byNode names a custom index: pods grouped by the node they run on.
const byNode = "byNode"

// indexByNode 回傳 Pod 的節點名稱，當作它在 byNode 索引裡的值；還沒排到節點的 Pod 不在任何分組裡。
//
// indexByNode returns the pod's node name as its value in the byNode index;
// a pod not yet on a node is in no bucket.
func indexByNode(obj any) ([]string, error) {
	pod, ok := obj.(*corev1.Pod)
	if !ok || pod.Spec.NodeName == "" {
		return nil, nil
	}
	return []string{pod.Spec.NodeName}, nil
}

// podInformerByNode 在 factory.Start 之前向工廠要 Pod 的 informer，再加上 byNode 索引。
// 之後 informer.GetIndexer().ByIndex(byNode, nodeName) 從快取回傳那個節點上的 Pod，不送出請求。
//
// podInformerByNode asks the factory for the pod informer and adds the
// byNode index, before factory.Start. From then on
// informer.GetIndexer().ByIndex(byNode, nodeName) returns the pods on that
// node from the cache, with no request.
func podInformerByNode(factory informers.SharedInformerFactory) (cache.SharedIndexInformer, error) {
	informer := factory.Core().V1().Pods().Informer()
	if err := informer.AddIndexers(cache.Indexers{byNode: indexByNode}); err != nil {
		return nil, err
	}
	return informer, nil
}

// podNames 回傳 objs 裡 Pod 的名稱，排序過。 / podNames returns the names of the pods in objs, sorted.
func podNames(objs []any) []string {
	var names []string
	for _, obj := range objs {
		names = append(names, obj.(*corev1.Pod).Name)
	}
	slices.Sort(names)
	return names
}

// 情境：在 Start 之前替工廠的 Pod informer 加上 byNode 索引。三個 Pod，兩個在 node-a、一個在 node-b：
// 同步之後 ByIndex 從快取回傳各節點的 Pod，刪掉一個之後索引跟著變。接著在 informer 已經執行時再加一個索引
// （依 app 標籤）：v0.37.2 接受，而且替快取裡已有的物件建好索引；再用一次 byNode 這個名字則被拒絕。
// informer 停下之後，AddIndexers 回傳錯誤。
//
// The story: the factory's pod informer gets the byNode index before
// Start. Three pods, two on node-a and one on node-b: after the sync ByIndex
// returns each node's pods from the cache, and after one is deleted the
// index follows. Then a second index (by app label) is added while the
// informer runs: v0.37.2 accepts it and indexes what the cache already
// holds; the name byNode a second time is refused. Once the informer has
// stopped, AddIndexers returns an error.
func TestAddIndexers(t *testing.T) {
	c := testenv.Plain(t)
	cs, ns := c.Client(), c.Namespace(t)
	for i, node := range []string{"node-a", "node-a", "node-b"} {
		pod := scene.Pod(ns, fmt.Sprintf("p%d", i), map[string]string{"app": "demo"})
		pod.Spec.NodeName = node
		if _, err := scene.CreatePod(t.Context(), cs, pod); err != nil {
			t.Fatal(err)
		}
	}
	factory := informers.NewSharedInformerFactoryWithOptions(cs, 0, informers.WithNamespace(ns))
	informer, err := podInformerByNode(factory)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	factory.StartWithContext(ctx)
	t.Cleanup(factory.Shutdown)
	t.Cleanup(cancel)
	for typ, ok := range factory.WaitForCacheSyncWithContext(ctx).Synced {
		if !ok {
			t.Fatalf("%v did not sync", typ)
		}
	}
	indexer := informer.GetIndexer()
	byIndex := func(name, value string) []string {
		objs, err := indexer.ByIndex(name, value)
		if err != nil {
			t.Fatal(err)
		}
		return podNames(objs)
	}
	if got := byIndex(byNode, "node-a"); !slices.Equal(got, []string{"p0", "p1"}) {
		t.Errorf("ByIndex(byNode, node-a) = %v, want [p0 p1]", got)
	}
	if got := byIndex(byNode, "node-b"); !slices.Equal(got, []string{"p2"}) {
		t.Errorf("ByIndex(byNode, node-b) = %v, want [p2]", got)
	}
	if err := cs.CoreV1().Pods(ns).Delete(t.Context(), "p0", metav1.DeleteOptions{GracePeriodSeconds: new(int64)}); err != nil {
		t.Fatal(err)
	}
	testenv.Poll(t, "the byNode index without p0", func() bool {
		return slices.Equal(byIndex(byNode, "node-a"), []string{"p1"})
	})

	if err := informer.AddIndexers(cache.Indexers{"byApp": func(obj any) ([]string, error) {
		return []string{obj.(*corev1.Pod).Labels["app"]}, nil
	}}); err != nil {
		t.Fatalf("AddIndexers on a running informer: %v; v0.37.2 accepts it", err)
	}
	if got := byIndex("byApp", "demo"); !slices.Equal(got, []string{"p1", "p2"}) {
		t.Errorf("ByIndex(byApp, demo) right after AddIndexers = %v, want [p1 p2]: the pods already cached", got)
	}
	if err := informer.AddIndexers(cache.Indexers{byNode: indexByNode}); err == nil {
		t.Error("AddIndexers with the name byNode a second time returned no error; an index name is used once")
	}

	cancel()
	factory.Shutdown()
	if err := informer.AddIndexers(cache.Indexers{"late": indexByNode}); err == nil {
		t.Error("AddIndexers after the informer stopped returned no error")
	}
}
