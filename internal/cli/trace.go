package cli

import (
	"fmt"
	"io"
	"net/http"
	"sync"
)

// Tracer 包住 client-go 的 HTTP transport，每個請求印一行：方法、路徑與查詢字串、
// 狀態碼。watch 請求在回應標頭到達時就印出，不等串流結束。
//
// Tracer wraps client-go's HTTP transport and prints one line per request:
// method, path and query, status. A watch request is printed when its
// response headers arrive, not when the stream ends.
func Tracer(w io.Writer) func(http.RoundTripper) http.RoundTripper {
	var mu sync.Mutex
	return func(next http.RoundTripper) http.RoundTripper {
		return roundTripFunc(func(req *http.Request) (*http.Response, error) {
			resp, err := next.RoundTrip(req)
			status := "error"
			if err == nil {
				status = fmt.Sprint(resp.StatusCode)
			}
			mu.Lock()
			defer mu.Unlock()
			fmt.Fprintf(w, "trace: %s %s -> %s\n", req.Method, req.URL.RequestURI(), status)
			return resp, err
		})
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }
