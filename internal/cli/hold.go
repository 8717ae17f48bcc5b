package cli

import (
	"io"
	"net/http"
	"time"

	"k8s.io/client-go/rest"
)

// HoldWatches 是演練「讀回自己的寫入」的 --watch-delay：回傳 cfg 的一份複本，用它送出的每個 watch 請求，
// 回應的每一段都晚 d 才交給 informer。寫入照常立刻到 API server，快取卻慢了 d：讀快取的人在這段時間裡看到的是
// 寫入之前的物件。真實世界裡這個落差通常只有幾毫秒，偶爾才撞上；拉長它，這個 race 每次都看得到。
//
// HoldWatches is --watch-delay, for the drill "reading your own write": it
// returns a copy of cfg whose every watch response is handed to the
// informer chunk by chunk, each d late. Writes reach the API server at once
// as usual, but the cache lags d behind: whoever reads the cache meanwhile
// sees the object from before the write. In real life the lag is usually
// milliseconds and only sometimes bites; stretched, the race shows every
// time.
func HoldWatches(cfg *rest.Config, d time.Duration) *rest.Config {
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
