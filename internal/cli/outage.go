package cli

import (
	"context"
	"errors"
	"io"
	"net/http"
	"sync"

	"github.com/informer-walkthrough/informer-walkthrough/internal/show"
)

// OutageNotes 包裝 client-go 的 HTTP transport，在 API server 連不上時印一行說明，
// 連回來時再印一行；期間的重試不再重複印出。Reflector 會自己退避重試，一直撐到 API server
// 回來，但它只寫進 klog；沒有這兩行，學習者只看到輸出停住，不知道發生了什麼。
//
// OutageNotes wraps client-go's HTTP transport: when the API server cannot be
// reached it prints one line, and another once it answers again; the retries
// in between say nothing more. A Reflector backs off and retries on its own
// until the API server is back, but it only tells klog; without these two
// lines a learner sees the output stop and cannot tell why.
func OutageNotes(w io.Writer) func(http.RoundTripper) http.RoundTripper {
	var mu sync.Mutex
	down := false
	return func(next http.RoundTripper) http.RoundTripper {
		return roundTripFunc(func(req *http.Request) (*http.Response, error) {
			resp, err := next.RoundTrip(req)
			if errors.Is(err, context.Canceled) {
				return resp, err
			}
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err != nil && !down:
				down = true
				show.Note(w, "API server unreachable (%s); client-go keeps retrying with backoff (if the cluster is down: scripts/cluster-up.sh)", show.Reason(err))
			case err == nil && down:
				down = false
				show.Note(w, "API server answers again")
			}
			return resp, err
		})
	}
}
