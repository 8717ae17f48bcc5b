package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"time"

	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/informer-walkthrough/informer-walkthrough/internal/show"
	labv1alpha1 "github.com/informer-walkthrough/informer-walkthrough/step06-custom-resource/apis/lab/v1alpha1"
)

// holdWatches 是演練「讀回自己的寫入」的 --watch-delay：cfg 送出的每個 watch 請求，回應的每一段都晚 d 才交給
// informer。寫入照常立刻到 API server，快取卻慢了 d：讀快取的人在這段時間裡看到的是寫入之前的物件。
// 真實世界裡這個落差通常只有幾毫秒，偶爾才撞上；拉長它，這個競態每次都看得到。
//
// holdWatches is --watch-delay, for the drill "reading your own write":
// every chunk of every watch response cfg sends is handed to the informer d
// late. Writes reach the API server at once as usual, but the cache lags d
// behind: whoever reads the cache meanwhile sees the object from before the
// write. In real life the lag is usually milliseconds and only sometimes
// bites; stretched, the race shows every time.
func holdWatches(cfg *rest.Config, d time.Duration) *rest.Config {
	cfg = rest.CopyConfig(cfg)
	cfg.Wrap(func(next http.RoundTripper) http.RoundTripper {
		return roundTripFunc(func(req *http.Request) (*http.Response, error) {
			resp, err := next.RoundTrip(req)
			if err == nil && req.URL.Query().Get("watch") == "true" {
				resp.Body = &heldBody{ReadCloser: resp.Body, d: d}
			}
			return resp, err
		})
	})
	return cfg
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }

// heldBody 把讀到的每一段先扣住 d 再交出去。 / heldBody holds every chunk it reads for d before handing it on.
type heldBody struct {
	io.ReadCloser
	d time.Duration
}

func (b *heldBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if n > 0 {
		time.Sleep(b.d)
	}
	return n, err
}

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
