package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// GroupName 是 API 群組。它在這個專案可以使用的網域之下（GitHub 組織 informer-walkthrough 的
// informer-walkthrough.github.io），不在 k8s.io 或 kubernetes.io 之下：那兩個網域保留給
// Kubernetes 專案核准過的 API。
//
// GroupName is the API group. It sits under a domain this project may use
// (informer-walkthrough.github.io, the GitHub organisation
// informer-walkthrough's), not under k8s.io or kubernetes.io: those are kept
// for APIs the Kubernetes project has approved.
const GroupName = "lab.informer-walkthrough.github.io"

// SchemeGroupVersion 是這個套件的群組與版本。 / SchemeGroupVersion is this package's group and version.
var SchemeGroupVersion = schema.GroupVersion{Group: GroupName, Version: "v1alpha1"}

// Resource 把資源名稱（複數小寫）加上群組。產生的 lister 用它做出 NotFound 錯誤。
//
// Resource qualifies a resource name (lower-case plural) with the group. The
// generated listers use it to make NotFound errors.
func Resource(resource string) schema.GroupResource {
	return SchemeGroupVersion.WithResource(resource).GroupResource()
}

var (
	// SchemeBuilder 收集把型別加進 Scheme 的函式；產生的 clientset 呼叫 AddToScheme。
	// SchemeBuilder collects the functions that add the types to a Scheme; the generated clientset calls AddToScheme.
	SchemeBuilder = runtime.NewSchemeBuilder(addKnownTypes)
	// AddToScheme 把 PodTally 與 PodTallyList 加進一個 Scheme。 / AddToScheme adds PodTally and PodTallyList to a Scheme.
	AddToScheme = SchemeBuilder.AddToScheme
)

func addKnownTypes(scheme *runtime.Scheme) error {
	scheme.AddKnownTypes(SchemeGroupVersion, &PodTally{}, &PodTallyList{})
	metav1.AddToGroupVersion(scheme, SchemeGroupVersion)
	return nil
}
