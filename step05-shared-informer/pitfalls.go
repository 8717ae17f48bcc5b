package main

import (
	"context"
	"io"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/tools/cache"

	"github.com/informer-walkthrough/informer-walkthrough/internal/show"
)

// startedTooEarly 是 --start-too-early 的結局：還沒向工廠要 informer 之前，Start 就已經呼叫過，
// 這次不再呼叫，就像忘了那樣。WaitForCacheSyncWithContext 立刻回傳空的結果（沒有啟動任何
// informer，也就沒有要等的），處理函式的 handle 永遠不會 HasSynced，也不會有任何事件。
//
// startedTooEarly is how --start-too-early ends: Start was called before the
// informer was asked for, and is not called again, as if forgotten.
// WaitForCacheSyncWithContext returns at once with an empty result (no
// informer started, so nothing to wait for), the handler's handle never has
// synced, and no event ever comes.
func startedTooEarly(ctx context.Context, factory informers.SharedInformerFactory, reg cache.ResourceEventHandlerRegistration, out io.Writer) error {
	synced := factory.WaitForCacheSyncWithContext(ctx)
	show.Note(out, "WaitForCacheSyncWithContext returned at once: Synced=%v (no informer was started, so there was nothing to wait for)", synced.Synced)
	show.Note(out, "printer's registration HasSynced=%t, and it stays false: nothing runs the pod informer", reg.HasSynced())
	show.Note(out, "nothing is watching from there: no request, no events. The fix: call factory.StartWithContext after asking for the informers (calling it again is safe)")
	<-ctx.Done()
	return nil
}

// mutateWithoutDeepCopy 是 --mutate-cache：錯誤示範，直接改 lister 交出來的物件，也就是快取裡的那一個。
// 正確的寫法是 pod = pod.DeepCopy()，再改那一份。KUBE_CACHE_MUTATION_DETECTOR=true 時，變更偵測器會抓到它。
//
// mutateWithoutDeepCopy is --mutate-cache: the wrong way, on purpose,
// changing an object the lister handed out, which is the one in the cache.
// The right way is pod = pod.DeepCopy(), then change the copy. With
// KUBE_CACHE_MUTATION_DETECTOR=true the mutation detector catches it.
func mutateWithoutDeepCopy(pods []*corev1.Pod, out io.Writer) {
	if len(pods) == 0 {
		return
	}
	pod := pods[0]
	pod.Labels = map[string]string{"mutated": "yes"}
	show.Note(out, "mutated %s in the cache without DeepCopy: every reader now sees labels=mutated=yes, which the server never had", show.Key(pod))
}
