package main

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/fields"
	clientfeatures "k8s.io/client-go/features"
	clientfeaturestesting "k8s.io/client-go/features/testing"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"

	"github.com/informer-walkthrough/informer-walkthrough/internal/scene"
	"github.com/informer-walkthrough/informer-walkthrough/internal/testenv"
)

// recorder 記下每一次處理函式呼叫，連同呼叫當下快取裡有幾個物件：
// 這樣不只比對「呼叫了什麼」，也比對「快取在呼叫之前還是之後更新」。
//
// recorder writes down every handler call together with how many objects the
// cache held at that moment: so the comparison covers not only which calls
// were made but also whether the cache was updated before or after them.
type recorder struct {
	mu    sync.Mutex
	store cache.Store
	calls []string
}

func (r *recorder) add(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls = append(r.calls, fmt.Sprintf(format, args...)+fmt.Sprintf(" cache=%d", len(r.store.ListKeys())))
}

func (r *recorder) OnAdd(obj any, isInInitialList bool) {
	r.add("OnAdd %s initial=%v", key(obj), isInInitialList)
}

func (r *recorder) OnUpdate(oldObj, newObj any) {
	o, n := oldObj.(*corev1.Pod), newObj.(*corev1.Pod)
	r.add("OnUpdate %s sameRV=%v labels=%v", key(n), o.ResourceVersion == n.ResourceVersion, n.Labels)
}

func (r *recorder) OnDelete(obj any) {
	_, isTombstone := obj.(cache.DeletedFinalStateUnknown)
	r.add("OnDelete %s tombstone=%v", key(obj), isTombstone)
}

// since 回傳第 from 個之後的呼叫。
//
// since returns the calls after the first from.
func (r *recorder) since(from int) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.calls[from:])
}

func (r *recorder) len() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.calls)
}

// pair 是同一個 namespace 上的兩個 informer：步驟 04 親手組的，以及 client-go 的 NewInformerWithOptions。
//
// pair is two informers on one namespace: step 04's hand-built one and
// client-go's NewInformerWithOptions.
type pair struct{ ours, theirs *recorder }

// startPair 啟動兩個 informer。perObject 時，步驟 04 組的是 --fifo per-object 的管線，client-go 則在
// KUBE_FEATURE_AtomicFIFO=false 之下建它自己的（SetFeatureDuringTest 在測試期間關掉這個 feature gate）。
//
// startPair starts both informers. With perObject, step 04 builds the
// --fifo per-object pipeline and client-go builds its own with
// KUBE_FEATURE_AtomicFIFO=false (SetFeatureDuringTest turns the gate off for
// the test).
func startPair(t *testing.T, cs kubernetes.Interface, ns string, resync time.Duration, perObject bool) pair {
	t.Helper()
	lw := func() cache.ListerWatcher {
		return cache.NewListWatchFromClient(cs.CoreV1().RESTClient(), "pods", ns, fields.Everything())
	}
	p := pair{ours: &recorder{}, theirs: &recorder{}}
	var out testenv.Output
	if perObject {
		clientfeaturestesting.SetFeatureDuringTest(t, clientfeatures.AtomicFIFO, false)
	}
	indexer, ours := newInformer(lw(), p.ours, perObject, resync, nil, &out)
	p.ours.store = indexer
	store, theirs := cache.NewInformerWithOptions(cache.InformerOptions{
		ListerWatcher: lw(),
		ObjectType:    &corev1.Pod{},
		Handler:       p.theirs,
		ResyncPeriod:  resync,
	})
	p.theirs.store = store
	stop := make(chan struct{})
	t.Cleanup(func() { close(stop) })
	go ours.Run(stop)
	go theirs.Run(stop)
	if !cache.WaitForCacheSync(stop, ours.HasSynced, theirs.HasSynced) {
		t.Fatal("the informers did not sync")
	}
	return p
}

// wait 等到兩邊各有 n 個新的呼叫（從 from 算起），回傳兩邊的這些呼叫。
//
// wait waits until each side has n calls after from, and returns them.
func (p pair) wait(t *testing.T, from, n int) (ours, theirs []string) {
	t.Helper()
	testenv.Poll(t, fmt.Sprintf("%d handler calls on each side", n), func() bool {
		return p.ours.len() >= from+n && p.theirs.len() >= from+n
	}, testenv.Describe(func() string {
		return fmt.Sprintf("step 04:   %q\nclient-go: %q", p.ours.since(from), p.theirs.since(from))
	}))
	return p.ours.since(from)[:n], p.theirs.since(from)[:n]
}

// same 比對一段呼叫。一次 List 或 resync 裡的物件順序來自各自的 Reflector（map 的順序），
// 所以那一段比對的是集合，外加 client-go 的規則：所有 OnDelete 都在 OnAdd 與 OnUpdate 之前。
//
// same compares one stretch of calls. Within one list or resync the order of
// objects comes from each side's own Reflector (map order), so such a stretch
// is compared as a set, plus client-go's rule that every OnDelete comes before
// any OnAdd or OnUpdate.
func same(t *testing.T, what string, ours, theirs []string, asSet bool) {
	t.Helper()
	if asSet {
		for _, side := range [][]string{ours, theirs} {
			seenOther := false
			for _, c := range side {
				if strings.HasPrefix(c, "OnDelete") && seenOther {
					t.Errorf("%s: an OnDelete after an add or update: %q", what, side)
				}
				seenOther = seenOther || !strings.HasPrefix(c, "OnDelete")
			}
		}
		ours, theirs = slices.Sorted(slices.Values(ours)), slices.Sorted(slices.Values(theirs))
	}
	if !slices.Equal(ours, theirs) {
		t.Errorf("%s: handler calls differ\nstep 04:   %q\nclient-go: %q", what, ours, theirs)
	}
}

// 情境：步驟 04 的管線與 client-go 的 NewInformerWithOptions 對同樣的變化，兩種佇列模式都一樣
// （預設的 atomic，以及 --fifo per-object 對上 KUBE_FEATURE_AtomicFIFO=false），
// 做出同樣的處理函式呼叫、同樣的順序、呼叫當下快取裡一樣多的物件：
// 一開始有三個 Pod 的初始 List、即時的新增／修改／刪除，以及 API server 重新啟動後的重新 List，
// 重新啟動期間有一個 Pod 被刪除（墓碑）、一個被新增、一個被修改。
//
// The story: step 04's pipeline and client-go's NewInformerWithOptions make,
// in both queue modes (the default atomic one, and --fifo per-object against
// KUBE_FEATURE_AtomicFIFO=false), the same handler calls, in the same order,
// with as many objects in the cache at each call, for the same changes: an initial list of three pods,
// live add / update / delete, and the relist after an API server restart
// during which one pod was deleted (a tombstone), one created and one changed.
func TestSameHandlerCallsAsNewInformerWithOptions(t *testing.T) {
	testenv.FullTier(t, "runs step 04 and client-go's informer side by side in both queue modes, across an API server restart, about 15 s")
	for _, mode := range []string{"atomic", "per-object"} {
		t.Run(mode, func(t *testing.T) { sameHandlerCalls(t, mode == "per-object") })
	}
}

func sameHandlerCalls(t *testing.T, perObject bool) {
	ctx := t.Context()
	c := testenv.Plain(t)
	cs, ns := c.Client(), c.Namespace(t)
	for _, n := range []string{"a", "b", "c"} {
		testenv.CreatePod(t, cs, ns, n, map[string]string{"app": "x"})
	}
	p := startPair(t, cs, ns, 0, perObject)
	ours, theirs := p.wait(t, 0, 3)
	same(t, "initial list", ours, theirs, true)
	if want := "OnAdd " + ns + "/a initial=true cache=3"; !slices.Contains(ours, want) {
		t.Errorf("initial list: want %q (the whole list is in the cache before the first OnAdd), got %q", want, ours)
	}
	done := 3

	step := func(what string, n int, change func()) {
		t.Helper()
		change()
		ours, theirs := p.wait(t, done, n)
		same(t, what, ours, theirs, false)
		done += n
	}
	step("live add", 1, func() { testenv.CreatePod(t, cs, ns, "d", nil) })
	step("live update", 1, func() {
		if _, err := scene.Label(ctx, cs, ns, "d", "tier", new("web")); err != nil {
			t.Fatal(err)
		}
	})
	// 刪除 Pod 是兩個事件：先設定 deletionTimestamp（修改），再真正刪除。
	// Deleting a pod is two events: deletionTimestamp set (an update), then the delete.
	step("live delete", 2, func() {
		if err := scene.Delete(ctx, cs, ns, "d"); err != nil {
			t.Fatal(err)
		}
	})

	c.RestartAPIServer(t, func(other kubernetes.Interface) {
		if err := scene.Delete(ctx, other, ns, "b"); err != nil {
			t.Fatal(err)
		}
		testenv.CreatePod(t, other, ns, "e", nil)
		if _, err := scene.Label(ctx, other, ns, "a", "app", new("y")); err != nil {
			t.Fatal(err)
		}
	})
	// 重新 List：b 的墓碑，a 與 c 的 OnUpdate（c 沒變，resourceVersion 相同），e 的 OnAdd。
	// The relist: b's tombstone, OnUpdate for a and c (c unchanged, same resourceVersion), OnAdd for e.
	ours, theirs = p.wait(t, done, 4)
	same(t, "relist after the restart", ours, theirs, true)
	for _, want := range []string{
		"OnDelete " + ns + "/b tombstone=true cache=3",
		"OnUpdate " + ns + "/c sameRV=true labels=map[app:x] cache=3",
		"OnAdd " + ns + "/e initial=false cache=3",
	} {
		if !slices.Contains(ours, want) {
			t.Errorf("relist: want %q, got %q", want, ours)
		}
	}
}

// 情境：resync 時，兩邊都對快取裡的每個 Pod 呼叫一次 OnUpdate(obj, obj)。
//
// The story: on a resync both sides call OnUpdate(obj, obj) once for each pod
// in the cache.
func TestSameResyncAsNewInformerWithOptions(t *testing.T) {
	c := testenv.Plain(t)
	cs, ns := c.Client(), c.Namespace(t)
	for _, n := range []string{"a", "b"} {
		testenv.CreatePod(t, cs, ns, n, nil)
	}
	p := startPair(t, cs, ns, time.Second, false)
	p.wait(t, 0, 2)
	ours, theirs := p.wait(t, 2, 2)
	same(t, "resync", ours, theirs, true)
	if want := "OnUpdate " + ns + "/a sameRV=true labels=map[] cache=2"; !slices.Contains(ours, want) {
		t.Errorf("resync: want %q, got %q", want, ours)
	}
}
