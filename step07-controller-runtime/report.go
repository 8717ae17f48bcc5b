package main

import (
	"context"
	"maps"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	metav1ac "k8s.io/client-go/applyconfigurations/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"

	labv1alpha1 "github.com/informer-walkthrough/informer-walkthrough/step06-custom-resource/apis/lab/v1alpha1"
)

// managedBy 是這個控制器寫的每個 ConfigMap 都帶著的標籤：manager 的快取只看帶著它的 ConfigMap（見 newManager
// 的 ByObject），不必把 namespace 裡每個 ConfigMap 都放進記憶體。
//
// managedBy is the label every ConfigMap this controller writes carries: the
// manager's cache watches only ConfigMaps with it (see ByObject in
// newManager), rather than holding every ConfigMap of the namespace in
// memory.
var managedBy = map[string]string{"app.kubernetes.io/managed-by": "podtally"}

// fieldOwner 是這個控制器在 server-side apply 裡的名字：API server 記下哪些欄位歸它管。
//
// fieldOwner is this controller's name in server-side apply: the API server
// records which fields it manages.
const fieldOwner = "podtally"

// reportName 是 tally 的報告 ConfigMap 的名字。 / reportName names a tally's report ConfigMap.
func reportName(t *labv1alpha1.PodTally) string { return t.Name + "-report" }

// reportData 是報告該寫的內容：選擇器、數目與 Pod 的名字。
//
// reportData is what the report should hold: the selector, the count and
// the pods' names.
func reportData(t *labv1alpha1.PodTally, status labv1alpha1.PodTallyStatus) map[string]string {
	return map[string]string{
		"selector": t.Spec.Selector,
		"count":    strconv.Itoa(int(status.Count)),
		"pods":     strings.Join(status.Pods, "\n"),
	}
}

// reportChanged 從快取看報告是不是已經是該有的樣子（而且歸這個 tally 所有）；不是的話要寫。快取可能落後一點，
// 那樣頂多多寫一次：寫入用 server-side apply，不帶 resourceVersion，不會因為快取舊而衝突。
//
// reportChanged looks in the cache whether the report already is what it
// should be (and is owned by this tally); if not, it must be written. The
// cache may lag a little, which costs at most one write too many: the write
// is a server-side apply, which carries no resourceVersion and cannot
// conflict because the cache is old.
func (r *TallyReconciler) reportChanged(ctx context.Context, t *labv1alpha1.PodTally, status labv1alpha1.PodTallyStatus) (bool, error) {
	var have corev1.ConfigMap
	err := r.Client.Get(ctx, types.NamespacedName{Namespace: t.Namespace, Name: reportName(t)}, &have)
	switch {
	case apierrors.IsNotFound(err):
		return true, nil
	case err != nil:
		return false, err
	}
	return !metav1.IsControlledBy(&have, t) || !maps.Equal(have.Data, reportData(t, status)), nil
}

// writeReport 以 server-side apply 寫報告：不存在就建立，存在就只改這個控制器管的欄位。ownerReference 指向
// tally，controller: true（跟 controllerutil.SetControllerReference 設的一樣）：擁有者不在了，garbage collector
// 就刪掉它；Owns(&corev1.ConfigMap{}) 讓它的變化把擁有者排進佇列。
//
// writeReport writes the report with server-side apply: created if missing,
// otherwise only the fields this controller manages change. The
// ownerReference points at the tally, with controller: true (what
// controllerutil.SetControllerReference sets): once the owner is gone the
// garbage collector deletes it; Owns(&corev1.ConfigMap{}) makes its changes
// queue the owner.
func (r *TallyReconciler) writeReport(ctx context.Context, t *labv1alpha1.PodTally, status labv1alpha1.PodTallyStatus) error {
	// 跟 SetControllerReference 一樣，從 scheme 查出擁有者的 GVK（Go 型別本身不帶 apiVersion 與 kind）。
	// As SetControllerReference does, the owner's GVK comes from the scheme (a Go type carries no apiVersion or kind).
	gvk, err := apiutil.GVKForObject(t, r.Scheme)
	if err != nil {
		return err
	}
	report := corev1ac.ConfigMap(reportName(t), t.Namespace).
		WithLabels(managedBy).
		WithData(reportData(t, status)).
		WithOwnerReferences(metav1ac.OwnerReference().
			WithAPIVersion(gvk.GroupVersion().String()).WithKind(gvk.Kind).WithName(t.Name).WithUID(t.UID).
			WithController(true).WithBlockOwnerDeletion(true))
	return r.Client.Apply(ctx, report, client.FieldOwner(fieldOwner), client.ForceOwnership)
}
