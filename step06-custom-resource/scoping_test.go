package main

import (
	"slices"
	"sync"
	"testing"

	"k8s.io/apimachinery/pkg/labels"

	"github.com/informer-walkthrough/informer-walkthrough/internal/testenv"
)

// 情境：三個 namespace 各有一個 Pod。每個 namespace 一個工廠：只有選中的兩個 namespace 的 Pod 在快取裡；
// 叢集範圍加過濾：處理函式只看到那兩個，快取裡卻是全部三個；依名字：快取裡只有那一個，而且它在
// informer 啟動之後才建立，照樣到達。
//
// The story: three namespaces with one pod each. A factory per namespace:
// only the two chosen namespaces' pods are cached; cluster-wide with a
// filter: the handler sees only those two, yet the cache holds all three; by
// name: the cache holds just that one, created after the informer started,
// and it still arrives.
func TestScopingAnswers(t *testing.T) {
	c := testenv.Plain(t)
	cs := c.Client()
	var nss []string
	for _, name := range []string{"a", "b", "c"} {
		ns := c.Namespace(t)
		testenv.CreatePod(t, cs, ns, "pod-"+name, nil)
		nss = append(nss, ns)
	}
	chosen := nss[:2]

	t.Run("factory-per-namespace", func(t *testing.T) {
		factories, err := factoryPerNamespace(t.Context(), cs, chosen)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			for _, f := range factories {
				f.Shutdown()
			}
		})
		for _, ns := range nss {
			f, ok := factories[ns]
			if ok != slices.Contains(chosen, ns) {
				t.Fatalf("namespace %s: factory %t", ns, ok)
			}
			if !ok {
				continue
			}
			pods, _ := f.Core().V1().Pods().Lister().List(labels.Everything())
			if len(pods) != 1 || pods[0].Namespace != ns {
				t.Errorf("factory for %s caches %d pods; want its one", ns, len(pods))
			}
		}
	})

	t.Run("cluster-wide-filtered", func(t *testing.T) {
		var mu sync.Mutex
		var seen []string
		inf, err := clusterWideFiltered(t.Context(), cs, chosen, func(key string) {
			mu.Lock()
			defer mu.Unlock()
			seen = append(seen, key)
		})
		if err != nil {
			t.Fatal(err)
		}
		testenv.Poll(t, "the handler to see the two chosen pods", func() bool {
			mu.Lock()
			defer mu.Unlock()
			return len(seen) >= 2
		})
		mu.Lock()
		defer mu.Unlock()
		slices.Sort(seen)
		want := []string{chosen[0] + "/pod-a", chosen[1] + "/pod-b"}
		slices.Sort(want)
		if !slices.Equal(seen, want) {
			t.Errorf("the handler saw %v; want %v", seen, want)
		}
		for _, ns := range nss {
			if _, ok, _ := inf.GetIndexer().GetByKey(ns + "/pod-" + map[string]string{nss[0]: "a", nss[1]: "b", nss[2]: "c"}[ns]); !ok {
				t.Errorf("the cluster-wide cache lacks the pod in %s: the filter is on the handler, not the cache", ns)
			}
		}
	})

	t.Run("one-by-name", func(t *testing.T) {
		ns := nss[2]
		inf, err := oneByName(t.Context(), cs, ns, "later")
		if err != nil {
			t.Fatal(err)
		}
		if n := len(inf.GetStore().ListKeys()); n != 0 {
			t.Errorf("before it exists the cache holds %d pods; want 0 (pod-c is not it)", n)
		}
		testenv.CreatePod(t, cs, ns, "later", nil)
		testenv.Poll(t, "the named pod to arrive", func() bool {
			return slices.Equal(inf.GetStore().ListKeys(), []string{ns + "/later"})
		})
	})
}
