package main

// 這個檔案是第 6 章關於 watch 範圍那幾題練習的答案（go test 執行它們）。控制器本身不用它們。
//
// This file holds the answers to chapter 06's scoping exercises (go test
// runs them). The controller itself does not use them.

import (
	"context"
	"slices"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
)

// factoryPerNamespace 是「好幾個 namespace」的第一個答案：每個 namespace 一個工廠，各自一條 watch，
// 只快取那些 namespace 的 Pod；RBAC 只要每個 namespace 的 Role。代價：namespace 越多，連線越多，
// 而且清單是固定的，多一個 namespace 就要再建一個工廠。
//
// factoryPerNamespace is the first answer to "several namespaces": one
// factory per namespace, one watch each, caching only those namespaces' pods;
// RBAC needs only a Role in each. The cost: a connection per namespace, and
// the list is fixed: a new namespace means building another factory.
func factoryPerNamespace(ctx context.Context, cs kubernetes.Interface, namespaces []string) (map[string]informers.SharedInformerFactory, error) {
	factories := map[string]informers.SharedInformerFactory{}
	for _, ns := range namespaces {
		f := informers.NewSharedInformerFactoryWithOptions(cs, 0, informers.WithNamespace(ns))
		f.Core().V1().Pods().Informer()
		f.StartWithContext(ctx)
		factories[ns] = f
	}
	for _, f := range factories {
		if err := f.WaitForCacheSyncWithContext(ctx).AsError(); err != nil {
			return nil, err
		}
	}
	return factories, nil
}

// clusterWideFiltered 是第二個答案：一個叢集範圍的 informer，處理函式外面包一層
// cache.FilteringResourceEventHandler，只讓那幾個 namespace 的事件通過。一條 watch；代價：快取裡是整個叢集的 Pod
// （過濾的是處理函式，不是快取），RBAC 要 ClusterRole。這裡的 namespace 清單固定不變：過濾條件在每個事件到來時才判斷，
// 改了它，處理函式也不會知道。放寬時，新納入的 Pod 要等到下一次變化才以更新送來；收窄時，被排除的 Pod 不會有刪除事件。
// 回傳通過過濾的事件的 key。
//
// clusterWideFiltered is the second answer: one cluster-wide informer whose
// handler is wrapped in cache.FilteringResourceEventHandler, letting through
// only those namespaces' events. One watch; the cost: the cache holds the
// whole cluster's pods (the filter is on the handler, not on the cache), and
// RBAC needs a ClusterRole. The list of namespaces here never changes: the
// filter is judged as each event arrives, and the handler is not told when
// it changes. Widened, it lets the newly included pods in only as updates, on
// their next change; narrowed, it sends no delete for the pods left out.
// It returns the keys of the events that passed the filter.
func clusterWideFiltered(ctx context.Context, cs kubernetes.Interface, namespaces []string, seen func(key string)) (cache.SharedIndexInformer, error) {
	f := informers.NewSharedInformerFactory(cs, 0)
	inf := f.Core().V1().Pods().Informer()
	_, err := inf.AddEventHandler(cache.FilteringResourceEventHandler{
		FilterFunc: func(obj any) bool {
			m, err := cache.DeletionHandlingObjectToName(obj)
			return err == nil && slices.Contains(namespaces, m.Namespace)
		},
		Handler: cache.ResourceEventHandlerFuncs{
			AddFunc: func(obj any) { seen(cache.MetaObjectToName(obj.(*corev1.Pod)).String()) },
		},
	})
	if err != nil {
		return nil, err
	}
	f.StartWithContext(ctx)
	if err := f.WaitForCacheSyncWithContext(ctx).AsError(); err != nil {
		return nil, err
	}
	return inf, nil
}

// oneByName 是「只看一個物件」的答案：metadata.name 的欄位選擇器放在 LIST 與 WATCH 上，
// 伺服器只送那一個 Pod（每種資源都支援 metadata.name 與 metadata.namespace 這兩個欄位選擇器）。
// 快取裡最多一個物件；物件還不存在也沒關係，建立時就會送來。
//
// oneByName answers "watch a single object": a metadata.name field selector
// on the LIST and the WATCH, so the server sends that one pod only (every
// resource supports the metadata.name and metadata.namespace field
// selectors). The cache holds at most one object; it need not exist yet: it
// arrives when it is created.
func oneByName(ctx context.Context, cs kubernetes.Interface, namespace, name string) (cache.SharedIndexInformer, error) {
	f := informers.NewSharedInformerFactoryWithOptions(cs, 0, informers.WithNamespace(namespace),
		informers.WithTweakListOptions(func(o *metav1.ListOptions) {
			o.FieldSelector = fields.OneTermEqualSelector("metadata.name", name).String()
		}))
	inf := f.Core().V1().Pods().Informer()
	f.StartWithContext(ctx)
	if err := f.WaitForCacheSyncWithContext(ctx).AsError(); err != nil {
		return nil, err
	}
	return inf, nil
}
