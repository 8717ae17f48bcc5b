package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/informer-walkthrough/informer-walkthrough/internal/show"
	labv1alpha1 "github.com/informer-walkthrough/informer-walkthrough/step06-custom-resource/apis/lab/v1alpha1"
)

// readBackClient 是 --watch-delay 給 Reconciler 的 client：跟 manager 的一樣，只是每次 Status().Update 成功之後，
// 立刻透過快取把物件讀回來，說出讀到的是不是自己剛寫的版本、等了多久（readBack）。Reconcile 本身一行都不用改。
//
// readBackClient is the client --watch-delay gives the Reconciler: the
// manager's, except that after every successful Status().Update it reads the
// object back through the cache at once and says whether it got the version
// just written, and how long it waited (readBack). Reconcile itself does not
// change a line.
type readBackClient struct {
	client.Client
	out io.Writer
}

func (c readBackClient) Status() client.SubResourceWriter {
	return readBackStatus{SubResourceWriter: c.Client.Status(), c: c}
}

// readBackStatus 是 readBackClient 的 Status()：Update 成功之後讀回。 / readBackStatus is readBackClient's Status(): reads back after a successful Update.
type readBackStatus struct {
	client.SubResourceWriter
	c readBackClient
}

func (s readBackStatus) Update(ctx context.Context, obj client.Object, opts ...client.SubResourceUpdateOption) error {
	if err := s.SubResourceWriter.Update(ctx, obj, opts...); err != nil {
		return err
	}
	if t, ok := obj.(*labv1alpha1.PodTally); ok {
		s.c.readBack(ctx, t)
	}
	return nil
}

// readBack 透過快取讀回剛寫的 tally，說出讀到的是不是自己剛寫的版本，以及等了多久。沒有 read-your-writes 時，
// 快取落後，讀到的是舊的 resourceVersion；有了它（--read-your-writes），Get 先等快取看見這次寫入，再回傳。
//
// readBack reads the tally just written back through the cache and says
// whether it got the version just written, and how long it waited. Without
// read-your-writes the cache lags and the read returns the old
// resourceVersion; with it (--read-your-writes), Get first waits until the
// cache has seen the write, then returns.
func (c readBackClient) readBack(ctx context.Context, written *labv1alpha1.PodTally) {
	key := client.ObjectKeyFromObject(written)
	began := time.Now()
	var got labv1alpha1.PodTally
	if err := c.Get(ctx, key, &got); err != nil {
		show.Line(c.out, "podtally", "readback", key.String(), "Get through the cache: "+err.Error(), show.OpRead)
		return
	}
	waited := time.Since(began).Round(100 * time.Millisecond)
	verdict := "the cache is behind: the write is not there yet"
	if got.ResourceVersion == written.ResourceVersion {
		verdict = "the cache has the write"
	}
	show.Line(c.out, "podtally", "readback", key.String(),
		fmt.Sprintf("Get through the cache after %s: count %d (wrote %d); %s", waited, got.Status.Count, written.Status.Count, verdict), show.OpRead)
}
