package main

import (
	"context"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/informer-walkthrough/informer-walkthrough/internal/show"
	"github.com/informer-walkthrough/informer-walkthrough/internal/testenv"
	labv1alpha1 "github.com/informer-walkthrough/informer-walkthrough/step06-custom-resource/apis/lab/v1alpha1"
)

// conflicting 回傳一個直接連 API server 的 client（沒有快取）：第一次寫 status 之前，另一個寫入者先改了
// 那個 tally（加一個 annotation），所以那一次寫入得到 409 Conflict。
//
// conflicting returns a client straight to the API server (no cache): just
// before the first status write, another writer changes the tally (adds an
// annotation), so that write gets 409 Conflict.
func conflicting(t *testing.T, c *testenv.Cluster, key types.NamespacedName) (client.Client, client.Client) {
	t.Helper()
	scheme, err := newScheme()
	if err != nil {
		t.Fatal(err)
	}
	direct, err := client.NewWithWatch(c.Config(), client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	touched := false
	return direct, interceptor.NewClient(direct, interceptor.Funcs{
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
}

// 情境（預設做法）：寫 status 得到 409 Conflict，Reconcile 印一行說接下來會怎樣，然後回傳那個錯誤
// （apierrors.IsConflict 為真），controller-runtime 會重新排入佇列。下一次 Reconcile 讀到比較新的 tally，
// 寫入成功。
//
// The story (the default): the status write gets 409 Conflict; Reconcile
// prints a line saying what comes next and returns that error
// (apierrors.IsConflict is true), for controller-runtime to queue the key
// again. The next Reconcile reads the newer tally, and its write succeeds.
func TestConflictReturnsTheError(t *testing.T) {
	c := testenv.Plain(t)
	installCRD(t, c)
	ns := c.Namespace(t)
	freshTally(t, c, ns, "app-demo", "app=demo")
	testenv.CreatePod(t, c.Client(), ns, "one", map[string]string{"app": "demo"})
	key := types.NamespacedName{Namespace: ns, Name: "app-demo"}
	_, intercepted := conflicting(t, c, key)
	out := &testenv.Output{}
	r := &TallyReconciler{Client: intercepted, Scheme: intercepted.Scheme(), Out: out}
	_, err := r.Reconcile(t.Context(), reconcile.Request{NamespacedName: key})
	if !apierrors.IsConflict(err) {
		t.Fatalf("Reconcile: %v; want the 409 Conflict returned\n%s", err, out.String())
	}
	testenv.WantOrder(t, out.String(),
		show.Prefix("podtally", "Reconcile", ns+"/app-demo"), "UpdateStatus: count 0 -> 1",
		show.Prefix("podtally", "Reconcile", ns+"/app-demo"), "409 Conflict: returning the error; controller-runtime queues the key again")
	if _, err := r.Reconcile(t.Context(), reconcile.Request{NamespacedName: key}); err != nil {
		t.Fatalf("the second Reconcile: %v\n%s", err, out.String())
	}
	waitTally(t, c, ns, "app-demo", "count 1 after the requeue", func(p *labv1alpha1.PodTally) bool {
		return p.Status.Count == 1 && p.Annotations["informer-lab/touched"] == "yes"
	})
}

// 情境（--reread-on-conflict 的例外做法）：同樣的衝突；Reconcile 透過 APIReader 重讀、重算，說出它要寫什麼，
// 第二次寫入成功，不回傳錯誤。
//
// The story (--reread-on-conflict's exception): the same conflict;
// Reconcile reads again through the APIReader, recounts, says what it
// writes, and the second write succeeds, with no error returned.
func TestConflictRereadsThroughTheAPIReader(t *testing.T) {
	c := testenv.Plain(t)
	installCRD(t, c)
	ns := c.Namespace(t)
	freshTally(t, c, ns, "app-demo", "app=demo")
	testenv.CreatePod(t, c.Client(), ns, "one", map[string]string{"app": "demo"})
	key := types.NamespacedName{Namespace: ns, Name: "app-demo"}
	direct, intercepted := conflicting(t, c, key)
	out := &testenv.Output{}
	r := &TallyReconciler{Client: intercepted, Scheme: intercepted.Scheme(), APIReader: direct, Out: out}
	if _, err := r.Reconcile(t.Context(), reconcile.Request{NamespacedName: key}); err != nil {
		t.Fatalf("Reconcile: %v\n%s", err, out.String())
	}
	testenv.WantOrder(t, out.String(),
		show.Prefix("podtally", "Reconcile", ns+"/app-demo"), "UpdateStatus: count 0 -> 1",
		show.Prefix("podtally", "Reconcile", ns+"/app-demo"), "409 Conflict: reading the tally again through the APIReader (not the cache)",
		show.Prefix("podtally", "Reconcile", ns+"/app-demo"), "UpdateStatus from the fresh copy: count 0 -> 1")
	waitTally(t, c, ns, "app-demo", "count 1 after the retry", func(p *labv1alpha1.PodTally) bool {
		return p.Status.Count == 1 && p.Annotations["informer-lab/touched"] == "yes"
	})
}
