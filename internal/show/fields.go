package show

import (
	"maps"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// 型別化欄位：印出來的那一行是給人讀的；頁面與錄製檔讀的是這些欄位，從不讀那一行的文字。
// 課程程式在印出那一行的同一個呼叫裡填上它們，所以畫面說的跟程式做的一定是同一件事。
// Typed fields: the printed line is for people to read; the page and the
// recording read these fields, never the text of the line. Lesson code fills
// them in the very call that prints the line, so what the page says is what
// the code did.

// Op 是一筆事件做了什麼，用頁面的詞彙說。一個 Op 本身就是一個 Field：show.Line(…, show.OpSync)。
//
// Op is what an event did, in the page's vocabulary. An Op is a Field by
// itself: show.Line(…, show.OpSync).
type Op string

// 頁面認得的每一種 Op。頁面不認得的 Op 照樣列在紀錄裡，並算進「沒畫出來」的那一行。
//   - request：送到 API server 的一個 HTTP 請求
//   - metric：一個 metric 的新值（Value）
//   - list：List 回傳的一個物件
//   - listed：一次 List 結束，帶著它的 resourceVersion
//   - watch：watch 事件裡的一個物件
//   - bookmark：沒有物件的新 resourceVersion
//   - rewatch：watch 結束，從最後的版本再 watch
//   - relist：410 Gone：重新 List
//   - push：Reflector 推進 informer 的佇列
//   - pop：processLoop 取出一批（或一個 ReplacedAll）
//   - store：寫進 Store（步驟 02）
//   - process：processLoop 寫進 Indexer，再呼叫處理函式
//   - handle：一次處理函式的呼叫
//   - skip：處理函式或 predicate 擋下它：什麼都沒放進佇列
//   - add：一個 key 進了 workqueue
//   - merge：key 已經在 workqueue 裡（或正在同步）：合併
//   - get：一個 worker 取走了 key
//   - sync：同步（或 Reconcile）讀到的狀態
//   - write：寫回 API server（status）
//   - conflict：寫回時得到 409 Conflict
//   - fail：同步失敗，之後重試（Retry）
//   - drop：最後一次重試也失敗：丟掉
//   - done：worker 對 key 呼叫了 Done
//   - read：從快取讀（lister、GetByKey）
//   - index：索引現在的樣子（Index）
//   - resync：resync：把快取裡的物件再交給處理函式
//
// Every Op the page knows. An Op it does not know is still listed in the log,
// and counted on the "not drawn" line.
//   - request: an HTTP request to the API server
//   - metric: a metric's new value (Value)
//   - list: an object a List returned
//   - listed: a List ended, with its resourceVersion
//   - watch: an object in a watch event
//   - bookmark: a newer resourceVersion with no object
//   - rewatch: a watch ended, watching again from the last version
//   - relist: 410 Gone: list again
//   - push: the Reflector pushed into the informer's queue
//   - pop: processLoop popped a batch (or a ReplacedAll)
//   - store: written into a Store (step 02)
//   - process: processLoop wrote the Indexer, then called the handler
//   - handle: a handler call
//   - skip: a handler or predicate dropped it: nothing queued
//   - add: a key entered the workqueue
//   - merge: the key was already queued (or being synced): merged
//   - get: a worker took the key
//   - sync: what a sync (or Reconcile) read
//   - write: written back to the API server (status)
//   - conflict: a write earned 409 Conflict
//   - fail: a sync failed and will be retried (Retry)
//   - drop: the last retry failed too: dropped
//   - done: the worker called Done on the key
//   - read: a read from the cache (a lister, GetByKey)
//   - index: the index as it is now (Index)
//   - resync: a resync: cached objects handed to the handlers again
const (
	OpRequest  Op = "request"
	OpMetric   Op = "metric"
	OpList     Op = "list"
	OpListed   Op = "listed"
	OpWatch    Op = "watch"
	OpBookmark Op = "bookmark"
	OpRewatch  Op = "rewatch"
	OpRelist   Op = "relist"
	OpPush     Op = "push"
	OpPop      Op = "pop"
	OpStore    Op = "store"
	OpProcess  Op = "process"
	OpHandle   Op = "handle"
	OpSkip     Op = "skip"
	OpAdd      Op = "add"
	OpMerge    Op = "merge"
	OpGet      Op = "get"
	OpSync     Op = "sync"
	OpWrite    Op = "write"
	OpConflict Op = "conflict"
	OpFail     Op = "fail"
	OpDrop     Op = "drop"
	OpDone     Op = "done"
	OpRead     Op = "read"
	OpIndex    Op = "index"
	OpResync   Op = "resync"
)

// Field 是一筆事件的一個型別化欄位。
//
// Field is one typed field of an event.
type Field interface{ apply(*Event) }

func (op Op) apply(e *Event) { e.Op = op }

type fieldFunc func(*Event)

func (f fieldFunc) apply(e *Event) { f(e) }

// Object 是步驟看到的一個物件的樣子：頁面的快取表格與圓標都從這裡來。
//
// Object is an object as the step saw it: the page's cache table and tokens
// come from here.
type Object struct {
	Phase      string `json:"phase,omitempty"`
	Node       string `json:"node,omitempty"`
	Labels     string `json:"labels,omitempty"`
	Deleting   bool   `json:"deleting,omitempty"`
	Gone       bool   `json:"gone,omitempty"`
	RV         string `json:"rv,omitempty"`
	Generation int64  `json:"generation,omitempty"`
}

// Retry 是一次失敗的同步之後的重試：第 N 次（共 Of 次），DelayMs 毫秒之後（0 表示步驟不知道，
// 例如 AddRateLimited 自己決定的延遲）。
//
// Retry is the retry after a failed sync: attempt N of Of, after DelayMs
// milliseconds (0 when the step does not know, as when AddRateLimited picks
// the delay itself).
type Retry struct {
	N       int     `json:"n"`
	Of      int     `json:"of"`
	DelayMs float64 `json:"delayMs,omitempty"`
}

// Request 是送到 API server 的一個請求：方法（LIST、WATCH 或 HTTP 方法）、路徑、查詢字串與狀態碼。
//
// Request is one request to the API server: its method (LIST, WATCH or the
// HTTP method), path, query and status.
type Request struct {
	Method string `json:"method"`
	Path   string `json:"path"`
	Query  string `json:"query,omitempty"`
	Status string `json:"status"`
}

// Requested 記下一個請求（見 Request）。
//
// Requested records a request (see Request).
func Requested(method, path, query, status string) Field {
	return fieldFunc(func(e *Event) {
		e.Op, e.Req = OpRequest, &Request{Method: method, Path: path, Query: query, Status: status}
	})
}

// Saw 記下一個 Pod 此刻的樣子。
//
// Saw records a pod as it is now.
func Saw(p *corev1.Pod) Field {
	return fieldFunc(func(e *Event) { e.Obj = podObject(p) })
}

// SawMeta 記下任何物件此刻的 metadata（標籤、resourceVersion、generation、刪除中）。
//
// SawMeta records any object's metadata as it is now (labels,
// resourceVersion, generation, being deleted).
func SawMeta(m metav1.Object) Field {
	return fieldFunc(func(e *Event) { e.Obj = metaObject(m) })
}

// Gone 說這個物件已經不在了（被刪除）；p 是它最後的樣子，可以是 nil。
//
// Gone says the object no longer exists (deleted); p is its last state, and
// may be nil.
func Gone(p *corev1.Pod) Field {
	return fieldFunc(func(e *Event) {
		e.Obj = &Object{}
		if p != nil {
			e.Obj = podObject(p)
		}
		e.Obj.Gone = true
	})
}

// Cached 說快取（Store、Indexer）現在存著 p 這個樣子。
//
// Cached says the cache (a Store, an Indexer) now holds p as it is.
func Cached(p *corev1.Pod) Field {
	return fieldFunc(func(e *Event) { e.Obj, e.Cache = podObject(p), CacheSet })
}

// Uncached 說快取不再有這個 key；p 是它最後的樣子，可以是 nil。
//
// Uncached says the cache no longer holds the key; p is its last state, and
// may be nil.
func Uncached(p *corev1.Pod) Field {
	return fieldFunc(func(e *Event) {
		Gone(p).apply(e)
		e.Cache = CacheDelete
	})
}

// Replacing 說 p 是一次 Store.Replace 的一部分；ReplaceDone 結束那一次 Replace：沒在裡面的 key 離開快取。
//
// Replacing says p is part of a Store.Replace; ReplaceDone ends that Replace:
// the keys not in it leave the cache.
func Replacing(p *corev1.Pod) Field {
	return fieldFunc(func(e *Event) { e.Obj, e.Cache = podObject(p), CacheReplace })
}

// ReplaceDone 見 Replacing。 / ReplaceDone: see Replacing.
func ReplaceDone() Field { return fieldFunc(func(e *Event) { e.Cache = CacheReplaced }) }

// 快取的變化（Event.Cache）。 / The cache's changes (Event.Cache).
const (
	CacheSet      = "set"
	CacheDelete   = "delete"
	CacheReplace  = "replace"
	CacheReplaced = "replaced"
)

// RV 記下這筆事件說的 resourceVersion（清單的、bookmark 的、Replace 的）。
//
// RV records the resourceVersion the event is about (a list's, a
// bookmark's, a Replace's).
func RV(rv string) Field { return fieldFunc(func(e *Event) { e.RV = rv }) }

// Queued 說這筆事件把 keys 放進了 place（例如 "workqueue"）；沒有 keys 時，放進去的是事件自己的 Key
// （所以要放在 About 之後）。
//
// Queued says the event put keys into place (such as "workqueue"); with no
// keys, what went in is the event's own Key (so it goes after About).
func Queued(place string, keys ...string) Field {
	return fieldFunc(func(e *Event) {
		e.Into, e.Keys = place, slices.Clone(keys)
		if len(keys) == 0 {
			e.Keys = []string{e.Key}
		}
	})
}

// Holding 說這筆事件帶著 keys（例如一次 Replace 清單裡的每個 Pod），它們的圓標停在這筆事件的階段。
//
// Holding says the event carries keys (every pod of a Replace's list, say),
// whose tokens rest at this event's stage.
func Holding(keys ...string) Field {
	return fieldFunc(func(e *Event) { e.Keys = slices.Clone(keys) })
}

// Into 說這筆事件寫到 place（例如 status 寫回 "api"，或 processLoop 寫進 "indexer"），沒有移動任何 key。
//
// Into says the event wrote to place (status back to "api", say, or
// processLoop into "indexer"), moving no key.
func Into(place string) Field { return fieldFunc(func(e *Event) { e.Into = place }) }

// From 說這筆事件讀了 place（例如 worker 從 "indexer" 讀）。
//
// From says the event read from place (a worker reading the "indexer",
// say).
func From(place string) Field { return fieldFunc(func(e *Event) { e.From = place }) }

// For 說這筆事件是替 place 讀的（例如處理函式讀 Indexer 的索引：事件在 Indexer，讀的是處理函式）。
//
// For says the event is a read made for place (a handler reading the
// Indexer's index, say: the event is at the Indexer, the reader is the
// handler).
func For(place string) Field { return fieldFunc(func(e *Event) { e.For = place }) }

// Retrying 說失敗的 key 第 n 次（共 of 次）重試在 delay 之後。
//
// Retrying says the failed key's retry n of of comes after delay.
func Retrying(n, of int, delay time.Duration) Field {
	return fieldFunc(func(e *Event) {
		e.Op = OpFail
		e.Retry = &Retry{N: n, Of: of, DelayMs: float64(delay) / float64(time.Millisecond)}
	})
}

// Behind 說這個處理函式落後幾個事件（它自己的積壓）：它看到的是過去，不是快取現在的樣子。
//
// Behind says how many events this handler is behind (its own backlog): it
// sees the past, not the cache as it is now.
func Behind(n int64) Field { return fieldFunc(func(e *Event) { e.Behind = &n }) }

// Initial 說這次呼叫來自初始清單（isInInitialList）。
//
// Initial says the call came from the initial list (isInInitialList).
func Initial(initial bool) Field { return fieldFunc(func(e *Event) { e.Initial = initial }) }

// Index 記下索引裡這次變化碰到的桶子現在的樣子：值對應到它的 key（已排序；大的桶子只有前幾個），sizes 是每個桶子
// 真正的大小。沒提到的桶子沒有變；空的桶子（[]）表示它已經沒有 key 了。
//
// Index records the index buckets this change touched, as they are now: a
// value to its keys (sorted; a big bucket only its first few), and sizes each
// bucket's real size. A bucket not mentioned did not change; an empty one
// ([]) has no keys left.
func Index(buckets map[string][]string, sizes map[string]int) Field {
	return fieldFunc(func(e *Event) {
		e.Op, e.Index, e.IndexSize = OpIndex, map[string][]string{}, maps.Clone(sizes)
		for v, keys := range buckets {
			e.Index[v] = append(make([]string, 0, len(keys)), keys...)
			slices.Sort(e.Index[v])
		}
	})
}

// At 給一行說明一個來源：說明印出來不顯示來源，頁面則靠它知道這件事發生在哪個階段。
//
// At gives a note a source: a printed note does not show it, and the page
// learns from it which stage the note belongs to.
func At(source string) Field { return fieldFunc(func(e *Event) { e.Source = source }) }

// Value 是一個 metric 的新值。 / Value is a metric's new value.
func Value(v float64) Field { return fieldFunc(func(e *Event) { e.Op, e.Value = OpMetric, &v }) }

// About 把事件連到一個 key（說明沒有 Key 欄可以印，但頁面要知道它說的是哪個物件）。
//
// About ties an event to a key (a note prints no key column, but the page
// needs to know which object it is about).
func About(key string) Field { return fieldFunc(func(e *Event) { e.Key = key }) }

func podObject(p *corev1.Pod) *Object {
	return &Object{
		Phase: string(p.Status.Phase), Node: p.Spec.NodeName, Labels: Labels(p.Labels),
		Deleting: p.DeletionTimestamp != nil, RV: p.ResourceVersion, Generation: p.Generation,
	}
}

func metaObject(m metav1.Object) *Object {
	return &Object{Labels: Labels(m.GetLabels()), Deleting: m.GetDeletionTimestamp() != nil, RV: m.GetResourceVersion(), Generation: m.GetGeneration()}
}
