package liveview

import (
	"io"
	"strconv"
	"sync"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/informer-walkthrough/informer-walkthrough/internal/show"
)

// lastValue 是一串事件裡，某個 metric 最後一次送給頁面的值。 / lastValue is the last value a stream of events sent the page for one metric.
type lastValue struct {
	mu sync.Mutex
	v  float64
}

func (l *lastValue) Emit(e show.Event) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if e.Value != nil {
		l.v = *e.Value
	}
}

// 情境：幾個 worker 同時讓重試的計數加一（client-go 在鎖外呼叫 metrics）。頁面收到的最後一個數，必須就是
// Prometheus 的計數器：一次都不能少算。舊的寫法把讀與寫拆在兩段鎖裡，兩個同時讀到 3 的 Inc 只算一次。
//
// The story: several workers add one to the retry count at once (client-go
// calls its metrics outside any lock). The last number the page receives
// must be Prometheus' counter: not one missed. The old code read and wrote
// under two separate locks, so two Incs that both read 3 counted once.
func TestCounterCountsEveryIncOnThePage(t *testing.T) {
	c := prometheus.NewCounter(prometheus.CounterOpts{Name: "test_retries_total", Help: "test"})
	got := &lastValue{}
	s := show.NewStream(io.Discard, got)
	active.Store(s)
	defer active.CompareAndSwap(s, nil)
	counter := newCounter(c, "workqueue_retries_total", "test")
	const workers, each = 8, 5000
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for range each {
				counter.Inc()
			}
		})
	}
	wg.Wait()
	var m dto.Metric
	if err := c.Write(&m); err != nil {
		t.Fatal(err)
	}
	want := float64(workers * each)
	if m.GetCounter().GetValue() != want || got.v != want {
		t.Errorf("after %d Incs: Prometheus %s, the page %s; want both %s", workers*each,
			strconv.FormatFloat(m.GetCounter().GetValue(), 'f', -1, 64), strconv.FormatFloat(got.v, 'f', -1, 64), strconv.FormatFloat(want, 'f', -1, 64))
	}
}
