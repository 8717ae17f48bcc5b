// Package v1alpha1 是這個 repository 自己的資源 PodTally：一個 namespace 裡的計數器，數出符合
// spec.selector 的 Pod。Go 型別上的標記（marker）驅動兩套產生器：k8s.io/code-generator 產生
// DeepCopy、clientset、lister 與 informer，controller-gen 產生 CRD 的 YAML。
// 全部由 scripts/codegen.sh 重新產生；產生的檔案不要手改。
//
// Package v1alpha1 is the repository's own resource, PodTally: a counter in
// a namespace that counts the pods matching spec.selector. The markers on
// the Go types drive two generators: k8s.io/code-generator writes DeepCopy,
// the clientset, listers and informers, and controller-gen writes the CRD's
// YAML. scripts/codegen.sh regenerates all of it; never edit a generated
// file by hand.
//
// +k8s:deepcopy-gen=package
// +groupName=lab.informer-walkthrough.github.io
package v1alpha1
