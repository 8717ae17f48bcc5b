package main

import (
	"context"
	"testing"

	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/informer-walkthrough/informer-walkthrough/internal/testenv"
	labv1alpha1 "github.com/informer-walkthrough/informer-walkthrough/step06-custom-resource/apis/lab/v1alpha1"
)

// 情境：Reconcile 讀出 tally 之後、寫 status 之前，另一個寫入者改了它（這裡由攔截器在第一次寫 status 前
// 做）。API server 回 409 Conflict；Reconcile 透過 APIReader 重讀、重算，說出它要寫什麼，第二次寫入成功，不回傳錯誤。
//
// The story: after Reconcile has read the tally and before it writes status,
// another writer changes it (here, an interceptor does, before the first
// status write). The API server answers 409 Conflict; Reconcile reads again
// through the APIReader, recounts, says what it writes, and the second write
// succeeds, with no error returned.
func TestConflictRereadsThroughTheAPIReader(t *testing.T) {
	c := testenv.Plain(t)
	installCRD(t, c)
	ns := c.Namespace(t)
	freshTally(t, c, ns, "app-demo", "app=demo")
	testenv.CreatePod(t, c.Client(), ns, "one", map[string]string{"app": "demo"})
	scheme, err := newScheme()
	if err != nil {
		t.Fatal(err)
	}
	direct, err := client.NewWithWatch(c.Config(), client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	key := types.NamespacedName{Namespace: ns, Name: "app-demo"}
	touched := false
	intercepted := interceptor.NewClient(direct, interceptor.Funcs{
		SubResourceUpdate: func(ctx context.Context, cl client.Client, sub string, obj client.Object, opts ...client.SubResourceUpdateOption) error {
			if !touched {
				touched = true
				other := &labv1alpha1.PodTally{}
				if err := direct.Get(ctx, key, other); err != nil {
					return err
				}
				other.Annotations = map[string]string{"informer-lab/touched": "yes"}
				if err := direct.Update(ctx, other); err != nil {
					return err
				}
			}
			return cl.SubResource(sub).Update(ctx, obj, opts...)
		},
	})
	ready := make(chan struct{})
	close(ready)
	out := &testenv.Output{}
	r := &TallyReconciler{Client: intercepted, APIReader: direct, Out: out, Ready: ready}
	if _, err := r.Reconcile(t.Context(), reconcile.Request{NamespacedName: key}); err != nil {
		t.Fatalf("Reconcile: %v\n%s", err, out.String())
	}
	testenv.WantOrder(t, out.String(),
		"podtally Reconcile "+ns+"/app-demo ", "UpdateStatus: count 0 -> 1",
		"podtally Reconcile "+ns+"/app-demo ", "409 Conflict: reading the tally again through the APIReader (not the cache)",
		"podtally Reconcile "+ns+"/app-demo ", "UpdateStatus from the fresh copy: count 0 -> 1")
	waitTally(t, c, ns, "app-demo", "count 1 after the retry", func(p *labv1alpha1.PodTally) bool {
		return p.Status.Count == 1 && p.Annotations["informer-lab/touched"] == "yes"
	})
}
