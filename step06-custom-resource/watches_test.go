package main

import (
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/informer-walkthrough/informer-walkthrough/internal/testenv"
)

// watchRecorder 記下每個 watch 請求的路徑與 Accept 標頭：--trace 印出路徑，不印標頭。
//
// watchRecorder notes each watch request's path and Accept header: --trace
// prints the path, not the header.
type watchRecorder struct {
	mu      sync.Mutex
	watches map[string][]string
	next    http.RoundTripper
}

func (w *watchRecorder) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.URL.Query().Get("watch") == "true" {
		w.mu.Lock()
		w.watches[req.URL.Path] = append(w.watches[req.URL.Path], req.Header.Get("Accept"))
		w.mu.Unlock()
	}
	return w.next.RoundTrip(req)
}

// 情境：README 說 --trace 看得到一條 tally 的 watch 與一條 Pod 的 watch，而 Pod 那條之所以只拿 metadata，
// 靠的是 Accept 標頭。步驟同步之後，每種型別剛好一條 watch（安裝 CRD 的那一次，另外有一條等 CRD Established 的 watch）；
// Pod 那條的 Accept 要的是 PartialObjectMetadata，tally 那條不是。
//
// The story: the README says --trace shows one watch for tallies and one for
// pods, and that what makes the pods' watch metadata-only is its Accept
// header. Once the step has synced there is exactly one watch per type (and,
// on the run that installs the CRD, one of the CRD until it is Established);
// the pods' Accept asks for PartialObjectMetadata, the tallies' does not.
func TestOneWatchPerType(t *testing.T) {
	c := testenv.Plain(t)
	ns := c.Namespace(t)
	rec := &watchRecorder{watches: map[string][]string{}}
	cfg := c.Config()
	cfg.Wrap(func(next http.RoundTripper) http.RoundTripper { rec.next = next; return rec })
	out := startStep(t, cfg, ns, options{demoTally: true})
	out.Wait(t, 1, "watching from there")
	rec.mu.Lock()
	defer rec.mu.Unlock()
	// 安裝 CRD 的那一次另外 watch 這個 CRD，直到它 Established（crd.go 的 waitEstablished）；informer 的 watch 不算它。
	// The run that installs the CRD also watches the CRD until it is Established (waitEstablished in crd.go); it is
	// not an informer's watch.
	crd := "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"
	if installed := out.Count("-- installed CRD "); len(rec.watches[crd]) != installed {
		t.Errorf("%d watches of the CRD, and the step installed it %d times; want one watch per install", len(rec.watches[crd]), installed)
	}
	delete(rec.watches, crd)
	pods, tallies := "/api/v1/namespaces/"+ns+"/pods", "/apis/lab.informer-walkthrough.github.io/v1alpha1/namespaces/"+ns+"/podtallies"
	if len(rec.watches) != 2 || len(rec.watches[pods]) != 1 || len(rec.watches[tallies]) != 1 {
		t.Fatalf("watches by path: %v; want one for %s and one for %s", rec.watches, pods, tallies)
	}
	if accept := rec.watches[pods][0]; !strings.Contains(accept, "as=PartialObjectMetadata") {
		t.Errorf("the pods' watch has Accept %q; want it to ask for PartialObjectMetadata", accept)
	}
	if accept := rec.watches[tallies][0]; strings.Contains(accept, "PartialObjectMetadata") {
		t.Errorf("the tallies' watch has Accept %q; want whole objects", accept)
	}
}
