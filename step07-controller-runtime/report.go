package main

import (
	"context"
	"fmt"
	"maps"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

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

// reportName 是 tally 的報告 ConfigMap 的名字。 / reportName names a tally's report ConfigMap.
func reportName(t *labv1alpha1.PodTally) string { return t.Name + "-report" }

// report 算出 tally 的報告該是什麼樣子：一個 ConfigMap，寫著選擇器、數目與 Pod 的名字，由 tally 擁有
// （SetControllerReference：ownerReferences 裡一筆 controller: true 的 PodTally）。擁有者不在了，
// garbage collector 就刪掉它；Owns(&corev1.ConfigMap{}) 讓它的變化把擁有者排進佇列。回傳的 op 是 "created"、
// "updated"，或空字串（已經是這個樣子）。
//
// report works out what the tally's report should be: a ConfigMap holding
// the selector, the count and the pods' names, owned by the tally
// (SetControllerReference: one PodTally in ownerReferences with controller:
// true). Once the owner is gone the garbage collector deletes it;
// Owns(&corev1.ConfigMap{}) makes its changes queue the owner. The op
// returned is "created", "updated", or empty (it is like that already).
func (r *TallyReconciler) report(ctx context.Context, t *labv1alpha1.PodTally, status labv1alpha1.PodTallyStatus) (*corev1.ConfigMap, string, error) {
	want := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: reportName(t), Namespace: t.Namespace, Labels: maps.Clone(managedBy)},
		Data: map[string]string{
			"selector": t.Spec.Selector,
			"count":    strconv.Itoa(int(status.Count)),
			"pods":     strings.Join(status.Pods, "\n"),
		},
	}
	if err := controllerutil.SetControllerReference(t, want, r.Scheme); err != nil {
		return nil, "", err
	}
	var have corev1.ConfigMap
	err := r.Client.Get(ctx, client.ObjectKeyFromObject(want), &have)
	switch {
	case apierrors.IsNotFound(err):
		return want, "created", nil
	case err != nil:
		return nil, "", err
	case !metav1.IsControlledBy(&have, t):
		return nil, "", fmt.Errorf("ConfigMap %s/%s exists and is not this tally's report", have.Namespace, have.Name)
	case maps.Equal(have.Data, want.Data):
		return &have, "", nil
	}
	have.Data = want.Data
	return &have, "updated", nil
}
