package main

import (
	"errors"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"

	"github.com/informer-walkthrough/informer-walkthrough/internal/testenv"
	labv1alpha1 "github.com/informer-walkthrough/informer-walkthrough/step06-custom-resource/apis/lab/v1alpha1"
)

// 情境：第一次寫入時，API server 還不提供資源的 404 會重試，namespace 不存在的 404 與其他錯誤不會。
// 兩種 404 都來自真的 kube-apiserver：一個沒有 CRD 定義的資源（跟 CRD 剛 Established、這個 API server
// 還沒跟上時走同一條路：它的 lister 裡沒有），以及不存在的 namespace 裡的一個 PodTally。
//
// The story: on the first write, a 404 for a resource the API server does
// not serve yet is tried again, and a 404 for a namespace that does not
// exist, or any other error, is not. Both 404s come from a real
// kube-apiserver: a resource no CRD defines (the same path as a CRD just
// Established that this API server has not caught up with: its lister
// lacks it), and a PodTally in a namespace that does not exist.
func TestCreateWhenServed(t *testing.T) {
	c := testenv.Plain(t)
	if err := ensureCRD(t.Context(), apiextensionsFor(c), &testenv.Output{}); err != nil {
		t.Fatal(err)
	}
	nothings := schema.GroupVersionResource{Group: labv1alpha1.SchemeGroupVersion.Group, Version: "v1alpha1", Resource: "nothings"}
	obj := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": nothings.GroupVersion().String(), "kind": "Nothing", "metadata": map[string]any{"name": "x"},
	}}
	_, unserved := dynamic.NewForConfigOrDie(c.Config()).Resource(nothings).Namespace(c.Namespace(t)).Create(t.Context(), obj, metav1.CreateOptions{})
	tally := &labv1alpha1.PodTally{ObjectMeta: metav1.ObjectMeta{Name: "x"}, Spec: labv1alpha1.PodTallySpec{Selector: "app=demo"}}
	_, noNamespace := tallyClient(t, c).LabV1alpha1().PodTallies("no-such-namespace").Create(t.Context(), tally, metav1.CreateOptions{})
	if !apierrors.IsNotFound(unserved) || !apierrors.IsNotFound(noNamespace) {
		t.Fatalf("want two 404s from the API server; got %v and %v", unserved, noNamespace)
	}
	refused := errors.New("connection refused")
	// 這裡看的是試了幾次，不是間隔。 / What counts here is how many tries, not their spacing.
	quick := servedBackoff
	quick.Duration = 0
	for _, tc := range []struct {
		name string
		// 每次嘗試的結果，依序；最後一個一直重複。 / What each try returns, in order; the last one repeats.
		errs  []error
		tries int
		want  error
	}{
		{"not served, then served", []error{unserved, unserved, nil}, 3, nil},
		{"never served: the last 404 comes back", []error{unserved}, quick.Steps, unserved},
		{"no such namespace: not tried again", []error{noNamespace}, 1, noNamespace},
		{"another error: not tried again", []error{refused}, 1, refused},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tries := 0
			err := createWhenServed(t.Context(), quick, func() error {
				err := tc.errs[min(tries, len(tc.errs)-1)]
				tries++
				return err
			})
			if tries != tc.tries || err != tc.want {
				t.Fatalf("%d tries, err = %v; want %d tries, err = %v", tries, err, tc.tries, tc.want)
			}
		})
	}
}
