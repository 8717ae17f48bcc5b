package main

import (
	"context"
	"testing"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/informer-walkthrough/informer-walkthrough/internal/testenv"
	labv1alpha1 "github.com/informer-walkthrough/informer-walkthrough/step06-custom-resource/apis/lab/v1alpha1"
)

// 情境：透過這一步的 manager 的快取讀取，看 README 說的兩個 cache.Options 真的生效。DefaultTransform 丟掉
// managedFields：伺服器上的 tally 與帶標籤的 ConfigMap 都有 managedFields，快取裡的沒有。ConfigMap 的 ByObject 只放帶著
// managed-by 標籤的：有標籤的讀得到，同一個 namespace 裡沒有標籤的，快取說找不到（它在伺服器上）。
//
// The story: reading through the step's manager's cache shows the two
// cache.Options the README names at work. DefaultTransform drops
// managedFields: the tally and the labelled ConfigMap have managedFields on
// the server, and none in the cache. The ConfigMaps' ByObject caches only
// those with the managed-by label: the labelled one is there, and an
// unlabelled one in the same namespace is not found in the cache (it is on
// the server).
func TestCacheOptions(t *testing.T) {
	c := testenv.Plain(t)
	installCRD(t, c)
	ns := c.Namespace(t)
	freshTally(t, c, ns, "app-demo", "app=demo")
	cs := c.Client()
	for name, labels := range map[string]map[string]string{"labelled": managedBy, "plain": nil} {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: labels}}
		if _, err := cs.CoreV1().ConfigMaps(ns).Create(t.Context(), cm, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	mgr, err := newManager(c.Config(), ns, options{workers: 1, metricsAddr: "0"}, logr.Discard())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	stopped := make(chan error)
	go func() { stopped <- mgr.Start(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-stopped; err != nil {
			t.Error(err)
		}
	})
	reader := mgr.GetClient()
	var tally labv1alpha1.PodTally
	var labelled, plain corev1.ConfigMap
	testenv.Poll(t, "the tally and the labelled ConfigMap in the manager's cache", func() bool {
		return reader.Get(ctx, types.NamespacedName{Namespace: ns, Name: "app-demo"}, &tally) == nil &&
			reader.Get(ctx, types.NamespacedName{Namespace: ns, Name: "labelled"}, &labelled) == nil
	})
	for what, fields := range map[string][]metav1.ManagedFieldsEntry{"the tally": tally.ManagedFields, "the labelled ConfigMap": labelled.ManagedFields} {
		if len(fields) != 0 {
			t.Errorf("%s has %d managedFields entries in the cache; DefaultTransform should drop them", what, len(fields))
		}
	}
	server, err := cs.CoreV1().ConfigMaps(ns).Get(t.Context(), "labelled", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(server.ManagedFields) == 0 {
		t.Error("the labelled ConfigMap has no managedFields on the server either, so the check above proves nothing")
	}
	if err := reader.Get(ctx, types.NamespacedName{Namespace: ns, Name: "plain"}, &plain); !apierrors.IsNotFound(err) {
		t.Errorf("the unlabelled ConfigMap through the cache: %v; want NotFound, since ByObject caches only the managed-by ones", err)
	}
}
