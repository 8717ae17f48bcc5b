package main

import (
	"context"
	"io"
	"sort"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"

	"github.com/informer-walkthrough/informer-walkthrough/internal/show"
)

// newPodListWatch 不再手寫型別，改用 client-go 產生 ListWatch（一個現成的 ListerWatcher）。
// 沒有標籤選擇器時，寫法和原始文章一模一樣：NewListWatchFromClient 只接受欄位選擇器。
// 需要標籤選擇器時，改用 NewFilteredListWatchFromClient，自己提供 optionsModifier。
//
// newPodListWatch no longer writes a type by hand: client-go builds the
// ListWatch. Without a label selector the call is exactly the source
// article's: NewListWatchFromClient takes a field selector only. For a label
// selector, use NewFilteredListWatchFromClient with an optionsModifier of our
// own.
func newPodListWatch(c cache.Getter, namespace string, fieldSelector fields.Selector, labelSelector labels.Selector) *cache.ListWatch {
	// 從前與現在：原始文章的 ListWatch 只有 ListFunc/WatchFunc，閉包裡用 context.TODO()。
	// 到了 v0.37，這兩個欄位已棄用；NewFilteredListWatchFromClient 另外填上 ListWithContextFunc/
	// WatchFuncWithContext（使用呼叫端的 context，停止 Reflector 就會取消請求），
	// 舊欄位也照填，只為了讓直接呼叫它們的舊程式繼續能用。
	// Then and now: the source article's ListWatch had only ListFunc/WatchFunc,
	// with context.TODO() inside the closures. Today those fields are
	// deprecated; NewFilteredListWatchFromClient also fills in
	// ListWithContextFunc/WatchFuncWithContext (they use the caller's context,
	// so stopping the reflector cancels the request), and still fills the old
	// ones so older code that calls them directly keeps working.
	if labelSelector.Empty() {
		return cache.NewListWatchFromClient(c, "pods", namespace, fieldSelector)
	}
	// optionsModifier 是一個閉包：它捕捉了兩個選擇器，之後套用到呼叫端傳進來的任何
	// ListOptions 上，List 與 Watch 都一樣（Watch 會先設定 Watch=true）。
	// 呼叫端（Reflector）自己設定 resourceVersion、逾時、分頁（limit/continue）以及
	// WatchList 的 sendInitialEvents 與 resourceVersionMatch，不必知道有選擇器存在；
	// 這個函式在那之後才執行，所以呼叫端若也給了選擇器，會被它蓋掉。
	// optionsModifier is a closure: it captures both selectors and later applies
	// them to whatever ListOptions the caller passes, for List and Watch alike
	// (Watch sets Watch=true first). The caller (a Reflector) sets the
	// resourceVersion, the timeout, paging (limit/continue) and WatchList's
	// sendInitialEvents and resourceVersionMatch itself, and never needs to know
	// a selector exists; this function runs after that, so it overwrites any
	// selector the caller gave.
	optionsModifier := func(options *metav1.ListOptions) {
		options.FieldSelector = fieldSelector.String()
		options.LabelSelector = labelSelector.String()
	}
	return cache.NewFilteredListWatchFromClient(c, "pods", namespace, optionsModifier)
}

// run 建立 ListWatch，交給 client-go 真正的 Reflector 去 List 與 Watch。
// 步驟 01 親手寫的迴圈，Reflector 全都做了，還多了退避、串流式的 WatchList，
// 以及 WatchList 不能用、退回一般 LIST 時的分頁。
//
// run builds the ListWatch and hands it to client-go's real Reflector to list
// and watch. The Reflector does all that step 01's hand-written loop did, plus
// backoff, the streaming WatchList, and paging when it falls back to a plain
// LIST.
func run(ctx context.Context, client kubernetes.Interface, namespace string, fieldSelector fields.Selector, labelSelector labels.Selector, out io.Writer) error {
	// 原始文章的第一個參數：clientset.CoreV1().RESTClient() 滿足 cache.Getter（只有 Get 方法）。
	// The source article's first argument: clientset.CoreV1().RESTClient()
	// satisfies cache.Getter (a Get method and nothing else).
	lw := newPodListWatch(client.CoreV1().RESTClient(), namespace, fieldSelector, labelSelector)

	store := &printingStore{Store: cache.NewStore(cache.MetaNamespaceKeyFunc), out: out}
	reflector := cache.NewReflectorWithOptions(lw, &corev1.Pod{}, store, cache.ReflectorOptions{})
	show.Note(out, "reflector for pods in namespace %q, labels %q, fields %q (Ctrl-C to stop)",
		namespace, labelSelector.String(), fieldSelector.String())
	reflector.RunWithContext(ctx)
	return nil
}

// printingStore 是一個真正的 Store，外加一行輸出：Reflector 每呼叫一次 Replace、Add、
// Update 或 Delete，就印出來。Replace 帶來初始狀態，其餘來自 watch 事件。
//
// printingStore is a real Store that also prints: each time the reflector
// calls Replace, Add, Update or Delete, it says so. Replace brings the initial
// state; the rest come from watch events.
type printingStore struct {
	cache.Store
	out io.Writer
}

func (s *printingStore) Add(obj any) error {
	s.print("Add", obj, show.Cached)
	return s.Store.Add(obj)
}

func (s *printingStore) Update(obj any) error {
	s.print("Update", obj, show.Cached)
	return s.Store.Update(obj)
}

func (s *printingStore) Delete(obj any) error {
	s.print("Delete", obj, show.Uncached)
	return s.Store.Delete(obj)
}

// Replace 收到的清單沒有固定順序（WatchList 模式下來自一個 map），所以先依 key 排序再印。
//
// Replace gets its list in no fixed order (from a map, in WatchList mode), so
// it sorts by key before printing.
func (s *printingStore) Replace(list []any, resourceVersion string) error {
	sorted := append([]any(nil), list...)
	sort.Slice(sorted, func(i, j int) bool {
		return show.Key(sorted[i].(*corev1.Pod)) < show.Key(sorted[j].(*corev1.Pod))
	})
	for _, obj := range sorted {
		p := obj.(*corev1.Pod)
		show.Line(s.out, "store", "Replace", show.Key(p), show.Pod(p), show.OpStore, show.Replacing(p))
	}
	show.With(show.At("store"), show.OpStore, show.ReplaceDone(), show.RV(resourceVersion)).
		Note(s.out, "Replace carried resourceVersion=%s; watching from there", resourceVersion)
	return s.Store.Replace(list, resourceVersion)
}

// print 印出一次 Store 的呼叫；change 說它對快取做了什麼（給即時頁面）。
//
// print prints one Store call; change says what it did to the cache (for
// the live page).
func (s *printingStore) print(method string, obj any, change func(*corev1.Pod) show.Field) {
	p := obj.(*corev1.Pod)
	show.Line(s.out, "store", method, show.Key(p), show.Pod(p), show.OpStore, change(p))
}
