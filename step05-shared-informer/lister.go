package main

import (
	"io"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/labels"
	coreinformers "k8s.io/client-go/informers/core/v1"

	"github.com/informer-walkthrough/informer-walkthrough/internal/show"
)

// readLister 從 lister 讀：答案來自 informer 的快取，不發任何請求。lister 回傳的物件就是快取裡的那一個，
// 跟每個處理函式共用：絕對不能修改，要改先 DeepCopy（pitfalls.go 故意違反這條規則）。
//
// readLister reads through the lister: the answers come from the informer's
// cache, with no request at all. The objects a lister returns are the very
// ones in the cache, shared with every handler: never modify them; DeepCopy
// first (pitfalls.go breaks that rule on purpose).
func readLister(pods coreinformers.TypedPodInformer, namespace string, out io.Writer) ([]*corev1.Pod, error) {
	lister := pods.Lister().Pods(namespace)
	list, err := lister.List(labels.Everything())
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(list))
	for _, pod := range list {
		names = append(names, pod.Name)
	}
	sort.Strings(names)
	show.With(show.At("lister"), show.OpRead).Note(out, "Lister().Pods(%q).List(everything) = [%s] (from the cache: no request)", namespace, strings.Join(names, " "))
	for _, name := range names {
		pod, err := lister.Get(name)
		// List 之後 Pod 可能已經被刪掉：那就是 NotFound，跳過它。 / The pod may be gone since List: that is NotFound; skip it.
		if apierrors.IsNotFound(err) {
			continue
		}
		if err != nil {
			return nil, err
		}
		show.With(show.At("lister"), show.OpRead, show.About(show.Key(pod)), show.Cached(pod)).
			Note(out, "Lister().Pods(%q).Get(%q): %s, %d managedFields entries", namespace, name, show.Pod(pod), len(pod.ManagedFields))
	}
	return list, nil
}
