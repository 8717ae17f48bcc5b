package main

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
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

// indexLine 是 tally 在索引裡的那一行。 / indexLine is the tally's line in the index.
func indexLine(t *labv1alpha1.PodTally, status labv1alpha1.PodTallyStatus) string {
	return fmt.Sprintf("%s: %d", t.Spec.Selector, status.Count)
}

// indexChanged 從快取看索引裡 tally 那一行是不是已經是該有的樣子。
//
// indexChanged looks in the cache whether the tally's line in the index is
// already what it should be.
func (r *TallyReconciler) indexChanged(ctx context.Context, t *labv1alpha1.PodTally, status labv1alpha1.PodTallyStatus) (bool, error) {
	var index corev1.ConfigMap
	err := r.Client.Get(ctx, types.NamespacedName{Namespace: t.Namespace, Name: indexName}, &index)
	switch {
	case apierrors.IsNotFound(err):
		return true, nil
	case err != nil:
		return false, err
	}
	return index.Data[t.Name] != indexLine(t, status), nil
}

// setIndexLine 寫 tally 在索引裡的那一行（value 是 nil 時刪掉它）。索引是共用的，別的 tally 同時也在寫：
// 用 JSON merge patch 只改這一個 key，不帶 resourceVersion，所以不會跟別人的那一行衝突，也不靠快取新不新。
// 索引還不存在時先建立（兩個 tally 同時建立時，晚到的那個得到 AlreadyExists，改成 patch）。
//
// setIndexLine writes the tally's line in the index (removes it when value
// is nil). The index is shared and other tallies write it meanwhile: a JSON
// merge patch changes this one key and carries no resourceVersion, so it
// never conflicts with another tally's line and does not depend on how fresh
// the cache is. A missing index is created first (when two tallies create it
// at once, the later gets AlreadyExists and patches instead).
func (r *TallyReconciler) setIndexLine(ctx context.Context, t *labv1alpha1.PodTally, value *string) error {
	patch, err := json.Marshal(map[string]any{"data": map[string]*string{t.Name: value}})
	if err != nil {
		return err
	}
	index := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: indexName, Namespace: t.Namespace}}
	err = r.Client.Patch(ctx, index, client.RawPatch(types.MergePatchType, patch))
	if !apierrors.IsNotFound(err) || value == nil {
		return client.IgnoreNotFound(err)
	}
	index.Labels = maps.Clone(managedBy)
	index.Data = map[string]string{t.Name: *value}
	if err := r.Client.Create(ctx, index); !apierrors.IsAlreadyExists(err) {
		return err
	}
	return r.Client.Patch(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: indexName, Namespace: t.Namespace}}, client.RawPatch(types.MergePatchType, patch))
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
	show.Line(r.Out, "podtally", "Reconcile", key, fmt.Sprintf("being deleted (deletionTimestamp set, generation %d): %s line removed; finalizer removed, and the API server deletes the tally", t.Generation, indexName),
		show.OpWrite, show.SawMeta(t), show.Into("api"))
	// 不看快取：不論快取裡的索引新不新，patch 都把這一行拿掉（沒有這一行時什麼也不改）。
	// Not from the cache: however fresh the cached index is, the patch removes the line (and changes nothing without it).
	if err := r.setIndexLine(ctx, t, nil); err != nil {
		return err
	}
	controllerutil.RemoveFinalizer(t, finalizer)
	return r.Client.Update(ctx, t)
}
