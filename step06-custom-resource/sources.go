package main

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/tools/cache"

	labv1alpha1 "github.com/informer-walkthrough/informer-walkthrough/step06-custom-resource/apis/lab/v1alpha1"
	"github.com/informer-walkthrough/informer-walkthrough/step06-custom-resource/generated/clientset/versioned"
	"github.com/informer-walkthrough/informer-walkthrough/step06-custom-resource/generated/informers/externalversions"
	listers "github.com/informer-walkthrough/informer-walkthrough/step06-custom-resource/generated/listers/lab/v1alpha1"
)

// tallyGVR 是 PodTally 的群組、版本與資源（複數小寫）：dynamic 與 metadata 的 client 只認得這個。
//
// tallyGVR is PodTally's group, version and resource (lower-case plural):
// all the dynamic and metadata clients know.
var tallyGVR = labv1alpha1.SchemeGroupVersion.WithResource("podtallies")

// tallies 是控制器讀寫 PodTally 的兩種方式共同的樣子：產生的型別化 informer 與 clientset，或是
// dynamicinformer 與 dynamic client（unstructured 物件）。控制器的邏輯只寫一次，兩種都跑同一份。
//
// tallies is what the controller's two ways of reading and writing PodTally
// have in common: the generated typed informer and clientset, or
// dynamicinformer and the dynamic client (unstructured objects). The
// controller's logic is written once, and both run the same code.
type tallies interface {
	// informer 是共享 informer：兩種都是同一個 cache.SharedIndexInformer 介面，跟步驟 05 的 Pod informer 一樣。
	// informer is the shared informer: both are the same cache.SharedIndexInformer interface as step 05's pod informer.
	informer() cache.SharedIndexInformer
	start(ctx context.Context)
	// shutdown 等工廠的 informer 在 ctx 結束之後真的停下（Shutdown），跟 Pod 的工廠一樣。
	// shutdown waits until the factory's informers have really stopped after ctx ended (Shutdown), as the pod factory does.
	shutdown()
	// toTally 把處理函式收到的物件變成 *PodTally（dynamic 時要轉換）。
	// toTally turns what a handler receives into a *PodTally (dynamic objects need converting).
	toTally(obj any) (*labv1alpha1.PodTally, error)
	get(namespace, name string) (*labv1alpha1.PodTally, error)
	list(namespace string) ([]*labv1alpha1.PodTally, error)
	// fresh 直接問 API server，不經過快取。 / fresh asks the API server directly, not the cache.
	fresh(ctx context.Context, namespace, name string) (*labv1alpha1.PodTally, error)
	updateStatus(ctx context.Context, t *labv1alpha1.PodTally) (*labv1alpha1.PodTally, error)
	// applyStatus 以 server-side apply 寫 status（見 apply.go）。 / applyStatus writes status with server-side apply (see apply.go).
	applyStatus(ctx context.Context, namespace, name string, body []byte) error
}

// generated 用 code-generator 產生的工廠、lister 與 clientset。
//
// generated uses the factory, lister and clientset code-generator wrote.
type generated struct {
	client  versioned.Interface
	factory externalversions.SharedInformerFactory
	inf     cache.SharedIndexInformer
	lister  listers.PodTallyLister
}

func newGenerated(client versioned.Interface, namespace string, name *cache.InformerName) *generated {
	factory := externalversions.NewSharedInformerFactoryWithOptions(client, 0,
		externalversions.WithNamespace(namespace), externalversions.WithInformerName(name))
	// 跟步驟 05 的 factory.Core().V1().Pods() 同一個形狀：群組、版本、種類。
	// The same shape as step 05's factory.Core().V1().Pods(): group, version, kind.
	podTallies := factory.Lab().V1alpha1().PodTallies()
	return &generated{client: client, factory: factory, inf: podTallies.Informer(), lister: podTallies.Lister()}
}

func (g *generated) informer() cache.SharedIndexInformer { return g.inf }
func (g *generated) start(ctx context.Context)           { g.factory.StartWithContext(ctx) }
func (g *generated) shutdown()                           { g.factory.Shutdown() }
func (g *generated) toTally(obj any) (*labv1alpha1.PodTally, error) {
	t, ok := obj.(*labv1alpha1.PodTally)
	if !ok {
		return nil, fmt.Errorf("not a *PodTally: %T", obj)
	}
	return t, nil
}
func (g *generated) get(namespace, name string) (*labv1alpha1.PodTally, error) {
	return g.lister.PodTallies(namespace).Get(name)
}
func (g *generated) list(namespace string) ([]*labv1alpha1.PodTally, error) {
	return g.lister.PodTallies(namespace).List(labels.Everything())
}
func (g *generated) fresh(ctx context.Context, namespace, name string) (*labv1alpha1.PodTally, error) {
	return g.client.LabV1alpha1().PodTallies(namespace).Get(ctx, name, metav1.GetOptions{})
}
func (g *generated) updateStatus(ctx context.Context, t *labv1alpha1.PodTally) (*labv1alpha1.PodTally, error) {
	return g.client.LabV1alpha1().PodTallies(t.Namespace).UpdateStatus(ctx, t, metav1.UpdateOptions{})
}
func (g *generated) applyStatus(ctx context.Context, namespace, name string, body []byte) error {
	_, err := g.client.LabV1alpha1().PodTallies(namespace).Patch(ctx, name, types.ApplyPatchType, body, applyOptions(), "status")
	return err
}

// dynamicTallies 用 dynamicinformer：快取裡是 *unstructured.Unstructured（JSON 解開成 map），
// 不需要任何產生的程式碼，只要知道 GVR。
//
// dynamicTallies uses dynamicinformer: the cache holds
// *unstructured.Unstructured (JSON decoded into maps), and needs no
// generated code, only the GVR.
type dynamicTallies struct {
	client  dynamic.Interface
	factory dynamicinformer.DynamicSharedInformerFactory
	inf     cache.SharedIndexInformer
	lister  cache.GenericLister
}

func newDynamic(client dynamic.Interface, namespace string) *dynamicTallies {
	factory := dynamicinformer.NewFilteredDynamicSharedInformerFactory(client, 0, namespace, nil)
	gi := factory.ForResource(tallyGVR)
	return &dynamicTallies{client: client, factory: factory, inf: gi.Informer(), lister: gi.Lister()}
}

func (d *dynamicTallies) informer() cache.SharedIndexInformer { return d.inf }
func (d *dynamicTallies) start(ctx context.Context)           { d.factory.Start(ctx.Done()) }
func (d *dynamicTallies) shutdown()                           { d.factory.Shutdown() }

// toTally 把 unstructured 轉成型別化的 PodTally。轉換讀的是 JSON 欄位名稱；欄位型別不符（例如 count 是字串）
// 會得到錯誤，而不是默默變成零值。
//
// toTally converts unstructured into a typed PodTally. The conversion goes
// by JSON field names; a field of the wrong type (count as a string, say)
// is an error, not a silent zero.
func (d *dynamicTallies) toTally(obj any) (*labv1alpha1.PodTally, error) {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return nil, fmt.Errorf("not an *unstructured.Unstructured: %T", obj)
	}
	t := &labv1alpha1.PodTally{}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.UnstructuredContent(), t); err != nil {
		return nil, err
	}
	return t, nil
}
func (d *dynamicTallies) get(namespace, name string) (*labv1alpha1.PodTally, error) {
	obj, err := d.lister.ByNamespace(namespace).Get(name)
	if err != nil {
		return nil, err
	}
	return d.toTally(obj)
}
func (d *dynamicTallies) list(namespace string) ([]*labv1alpha1.PodTally, error) {
	objs, err := d.lister.ByNamespace(namespace).List(labels.Everything())
	if err != nil {
		return nil, err
	}
	out := make([]*labv1alpha1.PodTally, 0, len(objs))
	for _, obj := range objs {
		t, err := d.toTally(obj)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}
func (d *dynamicTallies) fresh(ctx context.Context, namespace, name string) (*labv1alpha1.PodTally, error) {
	u, err := d.client.Resource(tallyGVR).Namespace(namespace).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	return d.toTally(u)
}
func (d *dynamicTallies) applyStatus(ctx context.Context, namespace, name string, body []byte) error {
	_, err := d.client.Resource(tallyGVR).Namespace(namespace).Patch(ctx, name, types.ApplyPatchType, body, applyOptions(), "status")
	return err
}
func (d *dynamicTallies) updateStatus(ctx context.Context, t *labv1alpha1.PodTally) (*labv1alpha1.PodTally, error) {
	content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(t)
	if err != nil {
		return nil, err
	}
	u := &unstructured.Unstructured{Object: content}
	// 型別化的 clientset 從 Scheme 知道 apiVersion 與 kind；unstructured 必須自己帶著。
	// The typed clientset knows apiVersion and kind from its Scheme; unstructured must carry them itself.
	u.SetGroupVersionKind(labv1alpha1.SchemeGroupVersion.WithKind("PodTally"))
	got, err := d.client.Resource(tallyGVR).Namespace(t.Namespace).UpdateStatus(ctx, u, metav1.UpdateOptions{})
	if err != nil {
		return nil, err
	}
	return d.toTally(got)
}

// isNotFound 對兩種 lister 都成立：產生的 lister 與 GenericLister 找不到時都回傳 NotFound。
//
// isNotFound holds for both listers: the generated one and GenericLister
// both return NotFound for a missing object.
func isNotFound(err error) bool { return errors.IsNotFound(err) }
