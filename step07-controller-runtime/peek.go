package main

import (
	"context"
	"errors"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/cache"

	"github.com/informer-walkthrough/informer-walkthrough/internal/show"
)

// peek 是演練「沒有要求的 informer」：--read-service NAME 讓每次 Reconcile 透過 manager 的 client 讀一個
// Service，這個控制器並沒有 watch Service。快取的 client 沒有那種型別的 informer 時，不會去問 API server：
// 它替整個種類（在快取的 namespace 裡）啟動一個 informer，等它同步，再從裡面取出答案。--trace 看得到那一條
// 多出來的 watch；每個 Service 從此都在記憶體裡，而且這個控制器的角色要有 Service 的 list 與 watch。
// 修正：--fail-on-missing-informer 設定 cache.Options.ReaderFailOnMissingInformer，這樣的讀取直接以
// ErrResourceNotCached 失敗，不啟動任何東西；真的需要讀，就把型別加進快取（Watches 或 ByObject），
// 或是刻意改用 APIReader。
//
// peek is the drill "the informer you did not ask for": --read-service NAME
// has every Reconcile read a Service through the manager's client, a kind
// this controller does not watch. When the cached client has no informer for
// a type it does not ask the API server: it starts an informer for the whole
// kind (in the cache's namespaces), waits for it to sync, and answers from
// it. --trace shows the extra watch; every Service is now in memory, and the
// controller's role needs list and watch on Services. The fix:
// --fail-on-missing-informer sets cache.Options.ReaderFailOnMissingInformer,
// so such a read fails at once with ErrResourceNotCached and starts nothing;
// a controller that does need the read adds the type to its cache (Watches
// or ByObject), or uses the APIReader on purpose.
func (r *TallyReconciler) peek(ctx context.Context, namespace string) error {
	if r.ReadService == "" {
		return nil
	}
	key := types.NamespacedName{Namespace: namespace, Name: r.ReadService}
	var svc corev1.Service
	err := r.Client.Get(ctx, key, &svc)
	var missing *cache.ErrResourceNotCached
	switch {
	case errors.As(err, &missing):
		show.Note(r.Out, "Get service %s: refused (ReaderFailOnMissingInformer): the cache has no informer for Services and starts none", key)
	case apierrors.IsNotFound(err):
		show.Note(r.Out, "Get service %s: not found, answered by an informer for every Service in %s that the first such Get started", key, namespace)
	case err != nil:
		return err
	default:
		show.Note(r.Out, "Get service %s: found, answered by an informer for every Service in %s that the first such Get started", key, namespace)
	}
	return nil
}
