package main

// 這個檔案是第 7 章「測試你自己的控制器」的實例：同一個呼叫，分別對假的 clientset（或 controller-runtime
// 的假 client）與真正的 API server 做，斷言兩邊各做了什麼。每一個測試，都是只用假物件測試時會被騙過的地方。
//
// This file is chapter 07's "testing your own controller" made concrete:
// the same call made against a fake clientset (or controller-runtime's fake
// client) and against a real API server, asserting what each does. Each test
// is a place where a test with fakes alone would have lied.

import (
	"context"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/client-go/kubernetes"
	kubefake "k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/watchlist"
	"sigs.k8s.io/controller-runtime/pkg/client"
	crfake "sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/informer-walkthrough/informer-walkthrough/internal/cli"
	"github.com/informer-walkthrough/informer-walkthrough/internal/testenv"
	labv1alpha1 "github.com/informer-walkthrough/informer-walkthrough/step06-custom-resource/apis/lab/v1alpha1"
	"github.com/informer-walkthrough/informer-walkthrough/step06-custom-resource/generated/clientset/versioned"
	tallyfake "github.com/informer-walkthrough/informer-walkthrough/step06-custom-resource/generated/clientset/versioned/fake"
	"github.com/informer-walkthrough/informer-walkthrough/step06-custom-resource/generated/informers/externalversions"
)

func demoTally(ns string) *labv1alpha1.PodTally {
	return &labv1alpha1.PodTally{ObjectMeta: metav1.ObjectMeta{Name: "app-demo", Namespace: ns}, Spec: labv1alpha1.PodTallySpec{Selector: "app=demo"}}
}

// staleUpdate 建立 tally，更新它一次，然後用更新之前的那一份再更新一次，回傳第二次的錯誤。
//
// staleUpdate creates a tally, updates it once, then updates it again from
// the copy read before the first update, and returns the second error.
func staleUpdate(t *testing.T, cs versioned.Interface, ns string) error {
	t.Helper()
	ctx := t.Context()
	ts := cs.LabV1alpha1().PodTallies(ns)
	created, err := ts.Create(ctx, demoTally(ns), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	stale := created.DeepCopy()
	created.Spec.Selector = "tier=web"
	if _, err := ts.Update(ctx, created, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	stale.Spec.Selector = "tier=db"
	_, err = ts.Update(ctx, stale, metav1.UpdateOptions{})
	return err
}

// 情境：從舊複本更新。真正的 API server 回 409 Conflict；產生的假的 clientset 照單全收，後寫的蓋掉先寫的：
// 只用它測試的控制器，永遠不會走到處理衝突的那段程式。controller-runtime 的假 client 則跟 API server 一樣回 409。
//
// The story: an update from a stale copy. The real API server answers 409
// Conflict; the generated fake clientset accepts it, the later write
// overwriting the earlier: a controller tested only against it never runs
// its conflict handling. controller-runtime's fake client answers 409 as the
// API server does.
func TestFakeHasNoConflicts(t *testing.T) {
	c := testenv.Plain(t)
	installCRD(t, c)
	if err := staleUpdate(t, versioned.NewForConfigOrDie(c.Config()), c.Namespace(t)); !apierrors.IsConflict(err) {
		t.Errorf("real API server: err = %v; want 409 Conflict", err)
	}
	if err := staleUpdate(t, tallyfake.NewSimpleClientset(), "fake"); err != nil {
		t.Errorf("fake clientset: err = %v; want none (it does not check resourceVersion)", err)
	}
	// controller-runtime 的假 client 不一樣：它檢查 resourceVersion，跟 API server 一樣回 409。
	// controller-runtime's fake client differs: it checks resourceVersion and answers 409 as the API server does.
	ctx := t.Context()
	cr := crFake(t)
	var a, b labv1alpha1.PodTally
	key := client.ObjectKey{Namespace: "fake", Name: "app-demo"}
	if err := cr.Get(ctx, key, &a); err != nil {
		t.Fatal(err)
	}
	if err := cr.Get(ctx, key, &b); err != nil {
		t.Fatal(err)
	}
	a.Spec.Selector = "tier=web"
	if err := cr.Update(ctx, &a); err != nil {
		t.Fatal(err)
	}
	b.Spec.Selector = "tier=db"
	if err := cr.Update(ctx, &b); !apierrors.IsConflict(err) {
		t.Errorf("controller-runtime's fake client: err = %v; want 409 Conflict", err)
	}
}

// crFake 是 controller-runtime 的假 client，裡面有 fake/app-demo，PodTally 有 status 子資源（跟 CRD 一樣）。
//
// crFake is controller-runtime's fake client holding fake/app-demo, with
// PodTally's status subresource (as the CRD has it).
func crFake(t *testing.T) client.Client {
	t.Helper()
	scheme, err := newScheme()
	if err != nil {
		t.Fatal(err)
	}
	return crfake.NewClientBuilder().WithScheme(scheme).WithObjects(demoTally("fake")).WithStatusSubresource(&labv1alpha1.PodTally{}).Build()
}

// 情境：產生的 informer 在真正的 API server 上用 WatchList（一條 sendInitialEvents=true 的 watch，沒有 LIST）；
// 在假的 clientset 上，由於它宣告自己不支援 WatchList 語意，informer 退回 LIST 再 watch。
// 用假的測 informer，測不到 informer 在真實叢集上走的那條路。
//
// The story: the generated informer on a real API server uses WatchList (one
// watch with sendInitialEvents=true, no LIST); on the fake clientset, which
// declares that it does not support WatchList semantics, the informer falls
// back to LIST and then watch. Testing an informer on the fake does not test
// the path it takes on a real cluster.
func TestFakeTurnsWatchListOff(t *testing.T) {
	c := testenv.Plain(t)
	installCRD(t, c)
	ns := c.Namespace(t)
	trace := &testenv.Output{}
	cfg := c.Config()
	cfg.Wrap(cli.Tracer(trace))
	real := versioned.NewForConfigOrDie(cfg)
	fake := tallyfake.NewSimpleClientset()
	if watchlist.DoesClientNotSupportWatchListSemantics(real) || !watchlist.DoesClientNotSupportWatchListSemantics(fake) {
		t.Fatalf("real unsupported=%t, fake unsupported=%t; want false, true",
			watchlist.DoesClientNotSupportWatchListSemantics(real), watchlist.DoesClientNotSupportWatchListSemantics(fake))
	}
	for _, cs := range []versioned.Interface{real, fake} {
		f := externalversions.NewSharedInformerFactoryWithOptions(cs, 0, externalversions.WithNamespace(ns))
		inf := f.Lab().V1alpha1().PodTallies().Informer()
		ctx, cancel := context.WithCancel(t.Context())
		f.StartWithContext(ctx)
		synced := cache.WaitForCacheSync(ctx.Done(), inf.HasSynced)
		// Shutdown 等 informer 的 goroutine 結束：先取消它們的 context。 / Shutdown waits for the informers' goroutines: cancel their context first.
		cancel()
		f.Shutdown()
		if !synced {
			t.Fatal("no sync")
		}
	}
	if !strings.Contains(trace.String(), "sendInitialEvents=true") || strings.Contains(trace.String(), "podtallies?limit=") {
		t.Errorf("real: want one WatchList stream and no LIST; the trace:\n%s", trace.String())
	}
	var verbs []string
	for _, a := range fake.Actions() {
		verbs = append(verbs, a.GetVerb())
	}
	if strings.Join(verbs, ",") != "list,watch" {
		t.Errorf("fake: actions %v; want list, then watch", verbs)
	}
}

// 情境：欄位選擇器 metadata.name。真正的 API server 只回那一個 Pod；client-go 的假的 clientset 不理會欄位
// 選擇器，兩個都回；controller-runtime 的假 client 沒有對應的索引就拒絕。
//
// The story: the field selector metadata.name. The real API server returns
// that one pod; client-go's fake clientset ignores field selectors and
// returns both; controller-runtime's fake client refuses without a matching
// index.
func TestFakeFieldSelectors(t *testing.T) {
	c := testenv.Plain(t)
	ns := c.Namespace(t)
	pod := func(name string) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}, Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "x"}}}}
	}
	byName := metav1.ListOptions{FieldSelector: fields.OneTermEqualSelector("metadata.name", "a").String()}
	count := func(cs kubernetes.Interface) int {
		for _, name := range []string{"a", "b"} {
			if _, err := cs.CoreV1().Pods(ns).Create(t.Context(), pod(name), metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		list, err := cs.CoreV1().Pods(ns).List(t.Context(), byName)
		if err != nil {
			t.Fatal(err)
		}
		return len(list.Items)
	}
	if n := count(c.Client()); n != 1 {
		t.Errorf("real API server: %d pods for metadata.name=a; want 1", n)
	}
	if n := count(kubefake.NewClientset()); n != 2 {
		t.Errorf("client-go fake clientset: %d pods for metadata.name=a; want 2 (it ignores field selectors)", n)
	}
	cr := crfake.NewClientBuilder().WithObjects(pod("a"), pod("b")).Build()
	err := cr.List(t.Context(), &corev1.PodList{}, client.InNamespace(ns), client.MatchingFields{"metadata.name": "a"})
	if err == nil {
		t.Errorf("controller-runtime fake client: a field selector without an index was accepted; want an error")
	}
}

// 情境：status 子資源。真正的 API server 上，主資源的 Update 不改 status；假的 clientset 兩個都改；
// controller-runtime 的假 client 在 WithStatusSubresource 之後跟 API server 一樣。
//
// The story: the status subresource. On the real API server an Update of
// the main resource leaves status alone; the fake clientset changes both;
// controller-runtime's fake client, after WithStatusSubresource, behaves as
// the API server does.
func TestFakeStatusSubresource(t *testing.T) {
	c := testenv.Plain(t)
	installCRD(t, c)
	update := func(cs versioned.Interface, ns string) int32 {
		ctx := t.Context()
		ts := cs.LabV1alpha1().PodTallies(ns)
		created, err := ts.Create(ctx, demoTally(ns), metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		created.Status.Count = 7
		created.Spec.Selector = "tier=web"
		if _, err := ts.Update(ctx, created, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
		got, err := ts.Get(ctx, "app-demo", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if got.Spec.Selector != "tier=web" {
			t.Errorf("the spec change was lost: %q", got.Spec.Selector)
		}
		return got.Status.Count
	}
	if n := update(versioned.NewForConfigOrDie(c.Config()), c.Namespace(t)); n != 0 {
		t.Errorf("real API server: status.count %d after Update; want 0 (Update ignores status)", n)
	}
	if n := update(tallyfake.NewSimpleClientset(), "fake"); n != 7 {
		t.Errorf("fake clientset: status.count %d after Update; want 7 (no status subresource)", n)
	}
	// controller-runtime 的假 client，告訴它 PodTally 有 status 子資源時，跟 API server 一樣。
	// controller-runtime's fake client, told that PodTally has a status subresource, behaves as the API server does.
	ctx := t.Context()
	cr := crFake(t)
	var got labv1alpha1.PodTally
	if err := cr.Get(ctx, client.ObjectKey{Namespace: "fake", Name: "app-demo"}, &got); err != nil {
		t.Fatal(err)
	}
	got.Status.Count = 7
	if err := cr.Update(ctx, &got); err != nil {
		t.Fatal(err)
	}
	if err := cr.Get(ctx, client.ObjectKey{Namespace: "fake", Name: "app-demo"}, &got); err != nil {
		t.Fatal(err)
	}
	if got.Status.Count != 0 {
		t.Errorf("controller-runtime's fake client: status.count %d after Update; want 0 (WithStatusSubresource)", got.Status.Count)
	}
}

// 情境：擁有者被刪除。真正的叢集裡，kube-controller-manager 的 garbage collector 刪掉帶著 ownerReference 的
// 從屬物件；假的 clientset 沒有 garbage collector，從屬物件永遠留著。
//
// The story: an owner is deleted. In a real cluster kube-controller-manager's
// garbage collector deletes the dependent that carries an ownerReference; the
// fake clientset has no garbage collector, and the dependent stays forever.
func TestFakeHasNoGarbageCollector(t *testing.T) {
	c := testenv.Realistic(t)
	orphan := func(cs kubernetes.Interface, ns string, wait bool) bool {
		ctx := t.Context()
		cms := cs.CoreV1().ConfigMaps(ns)
		owner, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "owner", Namespace: ns}}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		dep := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "dependent", Namespace: ns, OwnerReferences: []metav1.OwnerReference{{
			APIVersion: "v1", Kind: "ConfigMap", Name: owner.Name, UID: owner.UID,
		}}}}
		if _, err := cms.Create(ctx, dep, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		if err := cms.Delete(ctx, "owner", metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		if wait {
			testenv.Poll(t, "the garbage collector to delete the dependent", func() bool {
				_, err := cms.Get(ctx, "dependent", metav1.GetOptions{})
				return apierrors.IsNotFound(err)
			})
		}
		_, err = cms.Get(ctx, "dependent", metav1.GetOptions{})
		return err == nil
	}
	if orphan(c.Client(), c.Namespace(t), true) {
		t.Error("real cluster: the dependent is still there")
	}
	if !orphan(kubefake.NewClientset(), "fake", false) {
		t.Error("fake clientset: the dependent is gone; want it kept (no garbage collector)")
	}
}
