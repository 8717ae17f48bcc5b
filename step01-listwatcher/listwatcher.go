package main

import (
	"context"
	"fmt"
	"io"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"

	"github.com/informer-walkthrough/informer-walkthrough/internal/show"
)

// podListWatcher 自己實作 ListerWatcher（負責 List 與 Watch 的介面）：List 取得某個 namespace
// 目前所有的 Pod，Watch 從指定的 resourceVersion 之後開始追蹤變化。
// 它只是把呼叫轉給 typed clientset，整個介面就這兩個方法。
//
// podListWatcher implements ListerWatcher by hand: List returns every pod in
// one namespace now, and Watch follows changes after a given resourceVersion.
// It only forwards to the typed clientset; the whole interface is these two
// methods.
type podListWatcher struct {
	client    kubernetes.Interface
	namespace string
}

// 編譯期檢查：現行的 ListerWatcherWithContext，以及舊文章裡的 ListerWatcher 都滿足。
// 三個介面的定義見 https://github.com/kubernetes/client-go/blob/v0.37.2/tools/cache/listwatch.go
// Compile-time checks: it satisfies today's ListerWatcherWithContext and the
// ListerWatcher that older articles show. The interfaces are defined in
// https://github.com/kubernetes/client-go/blob/v0.37.2/tools/cache/listwatch.go
var (
	_ cache.ListerWatcherWithContext = &podListWatcher{}
	_ cache.ListerWatcher            = &podListWatcher{}
)

// ListWithContext 回傳一個 *corev1.PodList；它的 ResourceVersion 標記這份清單的時間點。
//
// ListWithContext returns a *corev1.PodList; its ResourceVersion marks the
// point in time the list describes.
func (lw *podListWatcher) ListWithContext(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
	return lw.client.CoreV1().Pods(lw.namespace).List(ctx, opts)
}

// WatchWithContext 開一條 watch 串流；opts.ResourceVersion 決定從哪裡開始。
//
// WatchWithContext opens a watch stream; opts.ResourceVersion says where it
// starts.
func (lw *podListWatcher) WatchWithContext(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	return lw.client.CoreV1().Pods(lw.namespace).Watch(ctx, opts)
}

// List 是舊介面 cache.Lister 的方法，已棄用：沒有 context，呼叫端無法取消請求。
// 但它還不能拿掉：v0.37 的每個建構函式（NewReflectorWithOptions、cache.Config、
// InformerOptions、NewSharedInformer）收的都還是 cache.ListerWatcher，收下之後才用
// ToListerWatcherWithContext 轉換；有 ListWithContext 時，client-go 呼叫的是它。
//
// List is the old cache.Lister method, now deprecated: with no context the
// caller cannot cancel the request. It cannot go yet: every v0.37
// constructor (NewReflectorWithOptions, cache.Config, InformerOptions,
// NewSharedInformer) still takes a cache.ListerWatcher and converts it with
// ToListerWatcherWithContext afterwards; where ListWithContext exists,
// client-go calls that.
func (lw *podListWatcher) List(opts metav1.ListOptions) (runtime.Object, error) {
	return lw.ListWithContext(context.Background(), opts)
}

// Watch 是舊介面 cache.Watcher 的方法，已棄用，原因與仍然需要它的理由都同 List。
//
// Watch is the old cache.Watcher method, deprecated and still required for
// the same reasons as List.
func (lw *podListWatcher) Watch(opts metav1.ListOptions) (watch.Interface, error) {
	return lw.WatchWithContext(context.Background(), opts)
}

// watchOptions 是 watch 請求可調的兩個參數。
//
// watchOptions are the two knobs of a watch request.
type watchOptions struct {
	// timeoutSeconds 讓伺服器在這麼多秒後結束 watch（0 表示用伺服器的預設值），用來觀察重新 watch。
	//
	// timeoutSeconds makes the server end the watch after that many seconds
	// (0: the server's default), to show re-watching.
	timeoutSeconds int64
	// bookmarks 要求伺服器送 BOOKMARK 事件：沒有物件變化，只有新的 resourceVersion。
	//
	// bookmarks asks the server for BOOKMARK events: no object changed, only
	// a newer resourceVersion.
	bookmarks bool
}

// run 為 namespace 建立 podListWatcher，然後親手 List 再 Watch；API server 不在時每秒重試（unreachable.go）。
//
// run builds a podListWatcher for the namespace, then lists and watches by
// hand, retrying each second while the API server is away (unreachable.go).
func run(ctx context.Context, client kubernetes.Interface, namespace string, opts watchOptions, out io.Writer) error {
	lw := &podListWatcher{client: client, namespace: namespace}
	show.Note(out, "listing pods in namespace %q (Ctrl-C to stop)", namespace)
	return listAndWatch(ctx, retryWhileUnreachable{lw, out}, opts, out)
}

// listAndWatch 親手做一次 Reflector 的工作：先 List，再從清單的 resourceVersion 開始 Watch。
// watch 結束（逾時或連線中斷）就從最後看到的版本接著 watch；伺服器回 410 Gone
// （這個版本比它還留著的歷史更舊）就重新 List。真正的 Reflector 還會退避，見步驟 02。
//
// listAndWatch does a Reflector's job by hand: List, then Watch from the
// list's resourceVersion. When a watch ends (its timeout, a broken
// connection), watch again from the last version seen; when the server
// answers 410 Gone (older than the history it keeps), list again. The real
// Reflector also backs off; see step 02.
func listAndWatch(ctx context.Context, lw cache.ListerWatcherWithContext, opts watchOptions, out io.Writer) error {
	for {
		rv, err := list(ctx, lw, out)
		if ctx.Err() != nil {
			return nil
		}
		if err != nil {
			return err
		}
		// 先 List 再 Watch：watch 從清單的 resourceVersion 開始，兩者之間的變化一個都不漏。
		// 若不給版本，伺服器會先把現有的每個 Pod 當成 ADDED 再送一次，而清單裡有、
		// 在空檔中被刪掉的 Pod 永遠等不到 DELETED。
		// List, then Watch: starting at the list's resourceVersion, nothing that
		// changed in between is lost. Without a version the server would first
		// send every existing pod again as ADDED, and a pod that was in the list
		// and deleted in the gap would never get its DELETED.
		show.With(show.At("list"), show.OpListed, show.RV(rv)).Note(out, "list returned resourceVersion=%s; watching from there", rv)
		for {
			from := rv
			rv, err = watchFrom(ctx, lw, from, opts, out)
			if ctx.Err() != nil {
				return nil
			}
			if apierrors.IsResourceExpired(err) || apierrors.IsGone(err) {
				show.With(show.At("watch"), show.OpRelist, show.RV(from)).Note(out, "watch from resourceVersion=%s: 410 Gone (%v); listing again", from, err)
				break
			}
			if err != nil {
				return err
			}
			show.With(show.At("watch"), show.OpRewatch, show.RV(rv)).Note(out, "watch closed at resourceVersion=%s; watching again from there", rv)
		}
	}
}

// list 印出初始清單裡的每個 Pod，回傳清單的 resourceVersion。
//
// list prints every pod of the initial list and returns the list's
// resourceVersion.
func list(ctx context.Context, lw cache.ListerWatcherWithContext, out io.Writer) (string, error) {
	obj, err := lw.ListWithContext(ctx, metav1.ListOptions{})
	if err != nil {
		return "", fmt.Errorf("listing pods: %w", err)
	}
	pods := obj.(*corev1.PodList)
	for i := range pods.Items {
		p := &pods.Items[i]
		show.Line(out, "list", "EXISTS", show.Key(p), show.Pod(p), show.OpList, show.Saw(p))
	}
	return pods.ResourceVersion, nil
}

// watchFrom 從 rv 開始 watch，印出每個事件，回傳最後看到的 resourceVersion，
// 讓下一次 watch 從那裡接續：不漏掉、也不重複任何事件。
//
// watchFrom watches from rv, prints each event, and returns the last
// resourceVersion seen, so the next watch continues there: no event lost, none
// repeated.
func watchFrom(ctx context.Context, lw cache.ListerWatcherWithContext, rv string, opts watchOptions, out io.Writer) (string, error) {
	wopts := metav1.ListOptions{ResourceVersion: rv, AllowWatchBookmarks: opts.bookmarks}
	if opts.timeoutSeconds > 0 {
		wopts.TimeoutSeconds = &opts.timeoutSeconds
	}
	w, err := lw.WatchWithContext(ctx, wopts)
	if err != nil {
		return rv, err
	}
	defer w.Stop()
	for {
		select {
		case <-ctx.Done():
			return rv, nil
		case ev, ok := <-w.ResultChan():
			if !ok {
				return rv, nil
			}
			switch ev.Type {
			case watch.Error:
				return rv, apierrors.FromObject(ev.Object)
			case watch.Bookmark:
				m, err := meta.Accessor(ev.Object)
				if err != nil {
					return rv, err
				}
				rv = m.GetResourceVersion()
				show.Line(out, "watch", "BOOKMARK", "", "resourceVersion="+rv, show.OpBookmark, show.RV(rv))
			default:
				p := ev.Object.(*corev1.Pod)
				rv = p.ResourceVersion
				show.Line(out, "watch", string(ev.Type), show.Key(p), show.Pod(p), show.OpWatch, seen(ev.Type, p))
			}
		}
	}
}

// seen 是 watch 事件給頁面的欄位：DELETED 的物件已經不在了，其他的是它現在的樣子。
//
// seen is a watch event's field for the page: a DELETED object is gone,
// any other is as it is now.
func seen(t watch.EventType, p *corev1.Pod) show.Field {
	if t == watch.Deleted {
		return show.Gone(p)
	}
	return show.Saw(p)
}
