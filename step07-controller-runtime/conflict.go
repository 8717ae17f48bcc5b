package main

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/informer-walkthrough/informer-walkthrough/internal/show"
	labv1alpha1 "github.com/informer-walkthrough/informer-walkthrough/step06-custom-resource/apis/lab/v1alpha1"
)

// failed 是寫入失敗時的預設做法：印一行，回傳錯誤。controller-runtime 以限速的方式把 key 重新排入佇列，
// 下一次 Reconcile 重新讀、重新算、再寫。409 Conflict 時，那一次讀到的是比較新的 tally（讓我們衝突的那次寫入，
// watch 很快就送到快取）。
//
// failed is what a failed write does by default: print a line and return
// the error. controller-runtime queues the key again, rate-limited, and the
// next Reconcile reads, works it out and writes again. After a 409 Conflict
// that read finds a newer tally (the watch soon brings the write we
// conflicted with into the cache).
func (r *TallyReconciler) failed(key string, err error) (reconcile.Result, error) {
	if apierrors.IsConflict(err) {
		show.Line(r.Out, "podtally", "Reconcile", key, "409 Conflict: returning the error; controller-runtime queues the key again with backoff, and the next Reconcile reads the newer tally from the cache",
			show.OpConflict, show.Into("api"))
	} else {
		show.Line(r.Out, "podtally", "Reconcile", key, fmt.Sprintf("FAILED: %v; returning the error: controller-runtime queues the key again with backoff", err), show.OpFail)
	}
	return reconcile.Result{}, err
}

// rereadAfterConflict 是 --reread-on-conflict 的例外做法：寫 status 得到 409 之後不回傳錯誤，而是透過
// APIReader 直接向 API server 重讀（快取可能還沒收到讓我們衝突的那次寫入）、重算、再寫。代價是每次衝突
// 多一個不經快取的 GET；controller-runtime 說 GetAPIReader「應該少用」，而且這也不保證正確：讀完到寫入
// 之間，別人還是可能再寫一次（那時 RetryOnConflict 再試）。預設的 failed 比較簡單，通常就夠了。
//
// rereadAfterConflict is --reread-on-conflict's exception: after a 409 on
// the status write it does not return the error but reads again from the API
// server through the APIReader (the cache may not have the write we
// conflicted with yet), works the status out again and writes again. The
// cost is one uncached GET per conflict; controller-runtime says GetAPIReader
// "should be used sparingly", and it guarantees nothing either: someone may
// write again between the read and the write (RetryOnConflict then tries
// again). The default, failed, is simpler and usually enough.
func (r *TallyReconciler) rereadAfterConflict(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	key := req.String()
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		show.Line(r.Out, "podtally", "Reconcile", key, "409 Conflict: reading the tally again through the APIReader (not the cache)", show.OpConflict, show.Into("api"))
		var t labv1alpha1.PodTally
		if err := r.APIReader.Get(ctx, req.NamespacedName, &t); err != nil {
			return err
		}
		want, _, err := r.count(ctx, &t)
		if err != nil {
			return err
		}
		if labv1alpha1.SameStatus(t.Status, want) {
			show.Line(r.Out, "podtally", "Reconcile", key, "the fresh copy has this status already (another writer was first): nothing to write", show.OpSync, show.SawMeta(&t))
			return nil
		}
		show.Line(r.Out, "podtally", "Reconcile", key, fmt.Sprintf("UpdateStatus from the fresh copy: count %d -> %d", t.Status.Count, want.Count), show.OpWrite, show.Into("api"))
		t.Status = want
		return r.Client.Status().Update(ctx, &t)
	})
	if err != nil {
		return reconcile.Result{}, err
	}
	return reconcile.Result{RequeueAfter: r.Recount}, nil
}
