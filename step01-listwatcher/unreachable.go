package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"

	"github.com/informer-walkthrough/informer-walkthrough/internal/show"
)

// giveUpAfter 是連不上 API server 時重試的上限（測試會把它改短）。
//
// giveUpAfter bounds the retries while the API server cannot be reached (the
// tests shorten it).
var giveUpAfter = 30 * time.Second

// retryWhileUnreachable 本身也是一個 ListerWatcher：它把呼叫轉給裡面那一個，失敗的原因若不是
// API server 的回應（連線被拒、連線中斷），就每秒重試一次，最多 giveUpAfter。API server 回應的錯誤
// （例如 403）照原樣傳回。listAndWatch 因此只需要處理 410。
//
// retryWhileUnreachable is itself a ListerWatcher: it forwards to the one
// inside and, when a call fails for a reason other than an answer from the
// API server (connection refused or broken), retries every second for at
// most giveUpAfter. Errors the API server answered with (a 403, say) pass
// through, so listAndWatch only has to handle the 410.
type retryWhileUnreachable struct {
	lw  cache.ListerWatcherWithContext
	out io.Writer
}

func (r retryWhileUnreachable) ListWithContext(ctx context.Context, opts metav1.ListOptions) (obj runtime.Object, err error) {
	err = r.retry(ctx, func() error {
		obj, err = r.lw.ListWithContext(ctx, opts)
		return err
	})
	return obj, err
}

func (r retryWhileUnreachable) WatchWithContext(ctx context.Context, opts metav1.ListOptions) (w watch.Interface, err error) {
	err = r.retry(ctx, func() error {
		w, err = r.lw.WatchWithContext(ctx, opts)
		return err
	})
	return w, err
}

func (r retryWhileUnreachable) retry(ctx context.Context, call func() error) error {
	deadline := time.Now().Add(giveUpAfter)
	for {
		err := call()
		var status apierrors.APIStatus
		if err == nil || errors.As(err, &status) || ctx.Err() != nil {
			return err
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the API server went away (%v); bring the cluster back with scripts/cluster-up.sh", err)
		}
		show.Note(r.out, "API server unreachable (%s); retrying in 1s", show.Reason(err))
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Second):
		}
	}
}
