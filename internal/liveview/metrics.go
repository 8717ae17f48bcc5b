package liveview

import (
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"

	"github.com/informer-walkthrough/informer-walkthrough/internal/show"
)

// client-go v0.37.2 有三個全域的 metrics 掛鉤，每個行程只能設定一次（sync.Once）：
//   - cache.SetInformerMetricsProvider：佇列裡的項目數、處理延遲、store 的 resourceVersion，
//     只給有名字的 informer（cache.NewInformerName、informers.WithInformerName）；
//   - workqueue.SetProvider：深度、加入次數、等待與處理時間、未完成的工作、重試；
//   - cache.SetReflectorMetricsProvider：在 v0.37.2 裡只存下 provider，沒有任何程式碼讀它，
//     Reflector 不再回報 metrics，所以這裡不設定它。
// 這些數字進入一個 Prometheus registry（/metrics），會變動的深度也成為頁面的事件：頁面的量表跟 /metrics 是同一個數。
// client-go v0.37.2 has three global metrics hooks, each settable once per
// process (sync.Once):
//   - cache.SetInformerMetricsProvider: queued items, processing latency, the
//     store's resourceVersion, for named informers only (cache.NewInformerName,
//     informers.WithInformerName);
//   - workqueue.SetProvider: depth, adds, queue and work duration, unfinished
//     work, retries;
//   - cache.SetReflectorMetricsProvider: in v0.37.2 it only stores the
//     provider, and no code reads it, since the Reflector no longer reports
//     metrics; so it is not set here.
// The numbers go into a Prometheus registry (/metrics), and the depths that
// move become page events too: the page's gauges and /metrics show the same
// numbers.

var (
	registry    = prometheus.NewRegistry()
	installOnce sync.Once
	// active 是 metric 事件要去的串流：一次一個步驟（測試裡一個接一個）。
	// active is the stream metric events go to: one step at a time (one after another in tests).
	active atomic.Pointer[show.Stream]

	queuedItems = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "informer_queued_items", Help: "Items in an informer's queue waiting to be processed (client-go's informer metrics).",
	}, []string{"name", "resource"})
	processingLatency = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name: "informer_processing_latency_seconds", Help: "Time to process (call the handlers for) what was popped from an informer's queue.",
		Buckets: prometheus.ExponentialBuckets(0.0001, 4, 10),
	}, []string{"name", "resource"})
	storeResourceVersion = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "informer_store_resource_version", Help: "The resourceVersion an informer's store last saw.",
	}, []string{"name", "resource"})

	wqDepth = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "workqueue_depth", Help: "Current depth of a workqueue.",
	}, []string{"name"})
	wqAdds = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "workqueue_adds_total", Help: "Total number of adds handled by a workqueue.",
	}, []string{"name"})
	wqLatency = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name: "workqueue_queue_duration_seconds", Help: "How long an item stays in a workqueue before being requested.",
		Buckets: prometheus.ExponentialBuckets(1e-6, 10, 10),
	}, []string{"name"})
	wqWork = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name: "workqueue_work_duration_seconds", Help: "How long processing an item from a workqueue takes.",
		Buckets: prometheus.ExponentialBuckets(1e-6, 10, 10),
	}, []string{"name"})
	wqUnfinished = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "workqueue_unfinished_work_seconds", Help: "Seconds of work in progress that has not been observed by work_duration.",
	}, []string{"name"})
	wqLongest = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "workqueue_longest_running_processor_seconds", Help: "How many seconds the longest running processor has been running.",
	}, []string{"name"})
	wqRetries = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "workqueue_retries_total", Help: "Total number of retries handled by a workqueue.",
	}, []string{"name"})
)

// InstallMetrics 設定 client-go 的兩個 metrics 掛鉤（一次）。要在步驟建立 informer 與 workqueue 之前呼叫：
// 它們在建立時就向 provider 要 metric。
//
// InstallMetrics sets client-go's two metrics hooks (once). Call it before
// the step creates its informers and workqueues: they ask the provider for
// their metrics when they are made.
func InstallMetrics() {
	installOnce.Do(func() {
		registry.MustRegister(queuedItems, processingLatency, storeResourceVersion,
			wqDepth, wqAdds, wqLatency, wqWork, wqUnfinished, wqLongest, wqRetries)
		cache.SetInformerMetricsProvider(informerProvider{})
		workqueue.SetProvider(workqueueProvider{})
	})
}

// MetricsHandler 是 /metrics：Prometheus 的文字格式。
//
// MetricsHandler is /metrics, in Prometheus' text format.
func MetricsHandler() http.Handler {
	return promhttp.HandlerFor(registry, promhttp.HandlerOpts{})
}

// Attach 讓之後的 metric 事件送進 s，直到 Detach。
//
// Attach sends later metric events into s, until Detach.
func Attach(s *show.Stream) { active.Store(s) }

// Detach 停止把 metric 事件送進 s（如果它還是目前的那一個）。
//
// Detach stops sending metric events into s (if it is still the current one).
func Detach(s *show.Stream) { active.CompareAndSwap(s, nil) }

// gauge 是一個會把新值送給頁面的量表：Prometheus 一份（g；計數器自己記的時候是 nil），頁面一份
// （Quiet 事件，source "metric"）。
//
// gauge is a gauge whose new values go to the page: one copy in Prometheus
// (g; nil when a counter keeps its own), one for the page (a Quiet event,
// source "metric").
type gauge struct {
	g      prometheus.Gauge
	metric string
	key    string
	mu     sync.Mutex
	value  float64
}

func newGauge(g prometheus.Gauge, metric, key string) *gauge {
	return &gauge{g: g, metric: metric, key: key}
}

// set 與 add 都在同一把鎖裡讀、改、送出：兩個 worker 同時 Inc（client-go 在鎖外呼叫 metrics），
// 兩次都算得到，頁面與 Prometheus 的數字一樣。
// set and add read, change and send under one lock: two workers calling Inc
// at once (client-go calls its metrics outside any lock) are both counted,
// and the page shows Prometheus' number.
func (g *gauge) set(v float64) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.setLocked(v)
}

func (g *gauge) add(d float64) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.setLocked(g.value + d)
}

func (g *gauge) setLocked(v float64) {
	if v == g.value {
		return
	}
	g.value = v
	if g.g != nil {
		g.g.Set(v)
	}
	if s := active.Load(); s != nil {
		show.Quiet(s, "metric", g.metric, g.key, strconv.FormatFloat(v, 'f', -1, 64), show.Value(v))
	}
}

func (g *gauge) Set(v float64) { g.set(v) }
func (g *gauge) Inc()          { g.add(1) }
func (g *gauge) Dec()          { g.add(-1) }

type informerProvider struct{}

func informerLabels(id cache.InformerNameAndResource) []string {
	return []string{id.Name(), id.GroupVersionResource().Resource}
}

func (informerProvider) NewQueuedItemMetric(id cache.InformerNameAndResource) cache.GaugeMetric {
	// 頁面的 key 是「名字/資源」：一個步驟的幾個 informer 共用一個名字（步驟 06）。
	// The page's key is "name/resource": a step's informers share one name (step 06).
	return newGauge(queuedItems.WithLabelValues(informerLabels(id)...), "informer_queued_items", id.Name()+"/"+id.GroupVersionResource().Resource)
}

func (informerProvider) NewProcessingLatencyMetric(id cache.InformerNameAndResource) cache.HistogramMetric {
	return processingLatency.WithLabelValues(informerLabels(id)...)
}

func (informerProvider) NewStoreResourceVersionMetric(id cache.InformerNameAndResource) cache.GaugeMetric {
	return storeResourceVersion.WithLabelValues(informerLabels(id)...)
}

type workqueueProvider struct{}

func (workqueueProvider) NewDepthMetric(name string) workqueue.GaugeMetric {
	return newGauge(wqDepth.WithLabelValues(name), "workqueue_depth", name)
}

func (workqueueProvider) NewAddsMetric(name string) workqueue.CounterMetric {
	return wqAdds.WithLabelValues(name)
}

func (workqueueProvider) NewLatencyMetric(name string) workqueue.HistogramMetric {
	return wqLatency.WithLabelValues(name)
}

func (workqueueProvider) NewWorkDurationMetric(name string) workqueue.HistogramMetric {
	return wqWork.WithLabelValues(name)
}

func (workqueueProvider) NewUnfinishedWorkSecondsMetric(name string) workqueue.SettableGaugeMetric {
	return wqUnfinished.WithLabelValues(name)
}

func (workqueueProvider) NewLongestRunningProcessorSecondsMetric(name string) workqueue.SettableGaugeMetric {
	return wqLongest.WithLabelValues(name)
}

func (workqueueProvider) NewRetriesMetric(name string) workqueue.CounterMetric {
	return newCounter(wqRetries.WithLabelValues(name), "workqueue_retries_total", name)
}

// counter 是會把新的總數送給頁面的計數器。
//
// counter is a counter whose new totals go to the page.
type counter struct {
	g *gauge
	c prometheus.Counter
}

func newCounter(c prometheus.Counter, metric, key string) *counter {
	return &counter{g: newGauge(nil, metric, key), c: c}
}

func (c *counter) Inc() {
	c.c.Inc()
	c.g.add(1)
}
