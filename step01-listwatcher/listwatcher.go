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

// podListWatcher 自己實作 ListerWatcher（列出者＋監看者）：List 取得某個 namespace
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

// 編譯期檢查：今天的 ListerWatcherWithContext，以及舊文章裡的 ListerWatcher 都滿足。
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
// 這裡保留它，只為了對照舊文章；client-go 自己會優先呼叫 ListWithContext。
//
// List is the old cache.Lister method, now deprecated: with no context the
// caller cannot cancel the request. It stays here only to match older
// articles; client-go itself prefers ListWithContext.
func (lw *podListWatcher) List(opts metav1.ListOptions) (runtime.Object, error) {
	return lw.ListWithContext(context.Background(), opts)
}

// Watch 是舊介面 cache.Watcher 的方法，已棄用，原因同 List。
//
// Watch is the old cache.Watcher method, deprecated for the same reason as
// List.
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

// run 是這一步的進入點：為 namespace 建立 podListWatcher，然後親手 List 再 Watch。
//
// run is this step's entry point: it builds a podListWatcher for the
// namespace, then lists and watches by hand.
func run(ctx context.Context, client kubernetes.Interface, namespace string, opts watchOptions, out io.Writer) error {
	lw := &podListWatcher{client: client, namespace: namespace}
	show.Note(out, "listing pods in namespace %q (Ctrl-C to stop)", namespace)
	return listAndWatch(ctx, lw, opts, out)
}

// listAndWatch 親手做一次 reflector（反射器）的工作：先 List，再從清單的
// resourceVersion 開始 Watch。watch 結束就從最後看到的版本接著 watch；
// 伺服器回 410 Gone（版本太舊，已被壓縮掉）就重新 List。
//
// listAndWatch does a reflector's job by hand: List, then Watch from the
// list's resourceVersion. When a watch ends, watch again from the last
// version seen; when the server answers 410 Gone (the version is too old and
// was compacted away), List again.
func listAndWatch(ctx context.Context, lw cache.ListerWatcherWithContext, opts watchOptions, out io.Writer) error {
	for {
		rv, err := list(ctx, lw, out)
		if err != nil {
			return err
		}
		// 先 List 再 Watch：watch 必須從清單的 resourceVersion 開始，否則兩者之間的變化會漏掉；
		// 若從「現在」開始 watch，那段空檔裡新增或刪除的 Pod 永遠不會出現。
		// List, then Watch: the watch must start at the list's resourceVersion,
		// or whatever changed in between is lost; a watch from "now" would
		// never show the pods added or deleted in that gap.
		show.Note(out, "list returned resourceVersion=%s; watching from there", rv)
		for {
			rv, err = watchFrom(ctx, lw, rv, opts, out)
			if ctx.Err() != nil {
				return nil
			}
			if apierrors.IsResourceExpired(err) || apierrors.IsGone(err) {
				show.Note(out, "410 Gone: resourceVersion=%s is too old; listing again", rv)
				break
			}
			if err != nil {
				return err
			}
			show.Note(out, "watch closed at resourceVersion=%s; watching again from there", rv)
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
		show.Line(out, "list", "EXISTS", show.Key(p), show.Pod(p))
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
				show.Line(out, "watch", "BOOKMARK", "", "resourceVersion="+rv)
			default:
				p := ev.Object.(*corev1.Pod)
				rv = p.ResourceVersion
				show.Line(out, "watch", string(ev.Type), show.Key(p), show.Pod(p))
			}
		}
	}
}
