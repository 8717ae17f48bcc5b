package main

import (
	"context"
	"fmt"
	"maps"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	"github.com/informer-walkthrough/informer-walkthrough/internal/show"
	labv1alpha1 "github.com/informer-walkthrough/informer-walkthrough/step06-custom-resource/apis/lab/v1alpha1"
)

// finalizer 是這個控制器放在每個 tally 上的 finalizer。它在的時候，刪除 tally 只會設定 deletionTimestamp
// （也讓 generation 加一），物件留著，直到控制器清掉索引裡的那一行、再把 finalizer 拿掉。
//
// finalizer is the finalizer this controller puts on every tally. While it
// is there, deleting a tally only sets deletionTimestamp (and adds one to
// the generation); the object stays until the controller has cleared its
// index line and taken the finalizer off.
const finalizer = "lab.informer-walkthrough.github.io/index-entry"

// indexName 是 namespace 裡共用的索引 ConfigMap：每個 tally 一行（選擇器與數目）。它屬於所有的 tally，
// 沒有一個能擁有它，所以 garbage collector 幫不上忙：一個 tally 離開時，它那一行要由 finalizer 清掉。
//
// indexName is the namespace's shared index ConfigMap: one line per tally
// (its selector and count). It belongs to every tally, so none can own it,
// and the garbage collector cannot help: when a tally goes, its line must be
// cleared by the finalizer.
const indexName = "podtally-index"

// indexEntry 算出索引裡 tally 那一行該是什麼，回傳要寫的索引與 op（"created"、"updated" 或空字串）。
//
// indexEntry works out what the tally's line in the index should be, and
// returns the index to write and the op ("created", "updated" or empty).
func (r *TallyReconciler) indexEntry(ctx context.Context, t *labv1alpha1.PodTally, status labv1alpha1.PodTallyStatus) (*corev1.ConfigMap, string, error) {
	line := fmt.Sprintf("%s: %d", t.Spec.Selector, status.Count)
	var index corev1.ConfigMap
	err := r.Client.Get(ctx, types.NamespacedName{Namespace: t.Namespace, Name: indexName}, &index)
	switch {
	case apierrors.IsNotFound(err):
		return &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Name: indexName, Namespace: t.Namespace, Labels: maps.Clone(managedBy)},
			Data:       map[string]string{t.Name: line},
		}, "created", nil
	case err != nil:
		return nil, "", err
	case index.Data[t.Name] == line:
		return &index, "", nil
	}
	if index.Data == nil {
		index.Data = map[string]string{}
	}
	index.Data[t.Name] = line
	return &index, "updated", nil
}

// finalize 處理刪除中的 tally：清掉它在索引裡的那一行，再拿掉 finalizer，API server 接著真的刪除它。
// 它擁有的報告不必處理：tally 不在之後，garbage collector 會刪掉它。GenerationChangedPredicate 讓這次更新通過，
// 因為設定 deletionTimestamp 時 API server 把 generation 加了一
// （https://github.com/kubernetes/apiserver/blob/v0.37.2/pkg/registry/generic/registry/store.go 的 markAsDeleting）。
//
// finalize handles a tally being deleted: it clears the tally's line from
// the index, then takes the finalizer off, and the API server then really
// deletes it. The report it owns needs nothing: once the tally is gone, the
// garbage collector deletes it. GenerationChangedPredicate lets this update
// through because the API server added one to the generation when it set
// deletionTimestamp (markAsDeleting in
// https://github.com/kubernetes/apiserver/blob/v0.37.2/pkg/registry/generic/registry/store.go).
func (r *TallyReconciler) finalize(ctx context.Context, t *labv1alpha1.PodTally) error {
	key := show.Key(t)
	if !controllerutil.ContainsFinalizer(t, finalizer) {
		show.Line(r.Out, "podtally", "Reconcile", key, "being deleted, and our finalizer is already off: nothing to do", show.OpSync, show.SawMeta(t))
		return nil
	}
	var index corev1.ConfigMap
	err := r.Client.Get(ctx, types.NamespacedName{Namespace: t.Namespace, Name: indexName}, &index)
	if err != nil && !apierrors.IsNotFound(err) {
		return err
	}
	_, listed := index.Data[t.Name]
	what := fmt.Sprintf("being deleted (deletionTimestamp set, generation %d): ", t.Generation)
	if listed {
		what += indexName + " updated: " + t.Name + " removed; "
	}
	show.Line(r.Out, "podtally", "Reconcile", key, what+"finalizer removed, and the API server deletes the tally", show.OpWrite, show.SawMeta(t), show.Into("api"))
	if listed {
		delete(index.Data, t.Name)
		if err := r.Client.Update(ctx, &index); err != nil {
			return err
		}
	}
	controllerutil.RemoveFinalizer(t, finalizer)
	return r.Client.Update(ctx, t)
}
