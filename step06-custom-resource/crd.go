package main

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensions "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apiextensionsv1client "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset/typed/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/watch"
	watchtools "k8s.io/client-go/tools/watch"
	"sigs.k8s.io/yaml"

	"github.com/informer-walkthrough/informer-walkthrough/internal/show"
)

// crdYAML 是 controller-gen 從 apis/lab/v1alpha1 的標記產生的 CRD（scripts/codegen.sh），編進執行檔裡。
//
// crdYAML is the CRD controller-gen writes from the markers in
// apis/lab/v1alpha1 (scripts/codegen.sh), built into the binary.
//
//go:embed crd/lab.informer-walkthrough.github.io_podtallies.yaml
var crdYAML []byte

// crdManifest 是 crdYAML 的路徑，給錯誤訊息用。 / crdManifest is crdYAML's path, for error messages.
const crdManifest = "step06-custom-resource/crd/lab.informer-walkthrough.github.io_podtallies.yaml"

// establishTimeout 是等 CRD Established 的上限；本機叢集通常不到一秒。
//
// establishTimeout bounds the wait for the CRD to be Established; on the
// local cluster it usually takes less than a second.
const establishTimeout = 30 * time.Second

// wantCRD 解開內嵌的 YAML。 / wantCRD decodes the embedded YAML.
func wantCRD() *apiextensionsv1.CustomResourceDefinition {
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := yaml.UnmarshalStrict(crdYAML, crd); err != nil {
		panic(fmt.Sprintf("the embedded CRD does not decode (run scripts/codegen.sh): %v", err))
	}
	return crd
}

// ensureCRD 在 CRD 不存在時安裝它，然後等它 Established：在那之前，API server 還不提供
// /apis/lab.informer-walkthrough.github.io/v1alpha1，informer 的第一個請求（WatchList 的 watch，退回時的 LIST）
// 會得到 404。已經存在時，形狀（群組、名稱、範圍、v1alpha1 的 schema 與 status 子資源）必須跟這一步的相同，
// 否則說出哪裡不同就停下：這一步不覆寫別人的 CRD。
//
// ensureCRD installs the CRD when it is missing, then waits until it is
// Established: until then the API server does not serve
// /apis/lab.informer-walkthrough.github.io/v1alpha1 and an informer's first
// request (the WatchList watch, or the LIST it falls back to) gets a 404. When
// it exists, its shape (group, names, scope, and v1alpha1's schema and status
// subresource) must be this step's, or it stops and says what differs: this
// step does not overwrite someone else's CRD.
func ensureCRD(ctx context.Context, cs apiextensions.Interface, out io.Writer) error {
	want := wantCRD()
	crds := cs.ApiextensionsV1().CustomResourceDefinitions()
	got, err := crds.Get(ctx, want.Name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		if got, err = crds.Create(ctx, want, metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("the API server refused CRD %s: %v; a cluster admin can apply %s", want.Name, err, crdManifest)
		}
		show.Note(out, "installed CRD %s; waiting until it is Established", want.Name)
	case err != nil:
		return fmt.Errorf("cannot read CRD %s: %v; a cluster admin can apply %s (and step06-custom-resource/rbac/controller.yaml for you)", want.Name, err, crdManifest)
	default:
		if diff := shapeDiff(want, got); diff != "" {
			return fmt.Errorf("CRD %s already exists in another shape (%s); delete it (kubectl delete crd %s) or use another cluster", want.Name, diff, want.Name)
		}
		show.Note(out, "CRD %s is already installed", want.Name)
	}
	if err := waitEstablished(ctx, crds, got); err != nil && ctx.Err() == nil {
		return fmt.Errorf("CRD %s did not become Established: %v", want.Name, err)
	}
	return ctx.Err()
}

// waitEstablished 從 got 的 resourceVersion 開始 watch 這一個 CRD，直到 Established。用 watch 而不是
// 每隔一段時間 GET 一次：不會錯過、不會白等，請求的次數也固定（即時頁面的計數因此每次都一樣）。
//
// waitEstablished watches this one CRD from got's resourceVersion until it
// is Established. A watch rather than a GET every so often: it misses
// nothing, waits no longer than needed, and makes a fixed number of requests
// (so the live page's counts are the same every run).
func waitEstablished(ctx context.Context, crds apiextensionsv1client.CustomResourceDefinitionInterface, got *apiextensionsv1.CustomResourceDefinition) error {
	if done, err := established(got); done || err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, establishTimeout)
	defer cancel()
	w, err := crds.Watch(ctx, metav1.ListOptions{FieldSelector: "metadata.name=" + got.Name, ResourceVersion: got.ResourceVersion})
	if err != nil {
		return err
	}
	_, err = watchtools.UntilWithoutRetry(ctx, w, func(ev watch.Event) (bool, error) {
		if ev.Type == watch.Error {
			return false, apierrors.FromObject(ev.Object)
		}
		crd, ok := ev.Object.(*apiextensionsv1.CustomResourceDefinition)
		if !ok {
			return false, fmt.Errorf("unexpected %T in the watch", ev.Object)
		}
		return established(crd)
	})
	return err
}

// established 看 CRD 的 conditions：Established 為 True 就完成；名稱被拒（NamesAccepted 為 False）是錯誤。
//
// established reads the CRD's conditions: done once Established is True; names
// not accepted (NamesAccepted False) is an error.
func established(crd *apiextensionsv1.CustomResourceDefinition) (bool, error) {
	for _, c := range crd.Status.Conditions {
		if c.Type == apiextensionsv1.NamesAccepted && c.Status == apiextensionsv1.ConditionFalse {
			return false, fmt.Errorf("names not accepted: %s", c.Message)
		}
		if c.Type == apiextensionsv1.Established && c.Status == apiextensionsv1.ConditionTrue {
			return true, nil
		}
	}
	return false, nil
}

// shapeDiff 說出叢集上的 CRD 跟這一步的哪裡不同；相同時回傳空字串。
//
// shapeDiff says where the cluster's CRD differs from this step's; the empty
// string when it does not.
func shapeDiff(want, got *apiextensionsv1.CustomResourceDefinition) string {
	if got.Spec.Group != want.Spec.Group || got.Spec.Scope != want.Spec.Scope || got.Spec.Names.Kind != want.Spec.Names.Kind {
		return fmt.Sprintf("group %s, kind %s, scope %s", got.Spec.Group, got.Spec.Names.Kind, got.Spec.Scope)
	}
	w := want.Spec.Versions[0]
	for _, v := range got.Spec.Versions {
		if v.Name != w.Name {
			continue
		}
		switch {
		case !v.Served:
			return "v1alpha1 is not served"
		case v.Subresources == nil || v.Subresources.Status == nil:
			return "v1alpha1 has no status subresource"
		case !equality.Semantic.DeepEqual(v.Schema, w.Schema):
			return "v1alpha1 has another schema"
		}
		return ""
	}
	return "no version v1alpha1"
}

// servedBackoff 是第一次寫入重試的間隔：50 ms 起，每次加倍，共 8 次（最多等約 6 秒）。
//
// servedBackoff spaces the first write's tries: from 50 ms, doubling, 8
// tries in all (about 6 s of waiting at most).
var servedBackoff = wait.Backoff{Duration: 50 * time.Millisecond, Factor: 2, Steps: 8}

// createWhenServed 執行第一次寫入；API server 還沒開始提供這個資源時（404），依 backoff 的間隔再試。Established 只寫一次，
// 但每個 API server 是在自己的 CRD informer 跟上之後，才開始提供自訂資源：處理請求時，它查的是自己的 lister
// （https://github.com/kubernetes/apiextensions-apiserver/blob/v0.37.2/pkg/apiserver/customresource_handler.go
// 的 ServeHTTP），而 Established 可能是另一個 API server 寫的，或是經由這個 API server 的 watch 先送到了我們這裡。
// 平常這段空檔短到看不見；機器很忙時，我們的 POST 可能剛好落在裡面。只有在那時才多送請求，
// 所以即時頁面的計數平常不變。namespace 不存在的 404 不重試：那不會自己好。
//
// createWhenServed runs the first write, and tries again after backoff's
// intervals while the API server does not serve the resource yet (a 404).
// Established is written once, but each API server serves a custom
// resource only when its own CRD informer has caught up: a request is
// looked up in that server's lister (ServeHTTP in
// https://github.com/kubernetes/apiextensions-apiserver/blob/v0.37.2/pkg/apiserver/customresource_handler.go),
// and Established may have been written by another API server, or reached
// us through this one's watch first. Usually the gap is too short to see;
// on a busy machine our POST can land in it. Only then are more requests
// sent, so the live page's counts stay the same. A 404 for a namespace
// that does not exist is not retried: it will not mend itself.
func createWhenServed(ctx context.Context, backoff wait.Backoff, create func() error) error {
	var last error
	err := wait.ExponentialBackoffWithContext(ctx, backoff, func(context.Context) (bool, error) {
		last = create()
		if notServedYet(last) {
			return false, nil
		}
		return true, last
	})
	if wait.Interrupted(err) && ctx.Err() == nil {
		return last
	}
	return err
}

// notServedYet 分辨「API server 還不提供這個資源」的 404 與「namespace 不存在」的 404。
//
// notServedYet tells a 404 for a resource the API server does not serve
// yet from a 404 for a namespace that does not exist.
func notServedYet(err error) bool {
	if !apierrors.IsNotFound(err) {
		return false
	}
	var status apierrors.APIStatus
	if !errors.As(err, &status) {
		return true
	}
	details := status.Status().Details
	return details == nil || details.Kind != "namespaces"
}
