package watch

import (
	"net/http"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/exectriage/exectriage/journal"
)

// Metrics are the watcher's Prometheus metrics, on a registry of their own (no global state).
type Metrics struct {
	reg        *prometheus.Registry
	executions prometheus.Gauge
	flagged    *prometheus.GaugeVec
	groups     *prometheus.GaugeVec
	events     *prometheus.CounterVec
	deliveries *prometheus.CounterVec
	requests   *prometheus.CounterVec
	rateWaits  prometheus.Counter
	passes     *prometheus.CounterVec
	behind     prometheus.Gauge
	leader     prometheus.Gauge
	lastPass   atomic.Int64 // unix nanos of the last pass that read the API whole
}

// NewMetrics registers the watcher's metrics (and Go's and the process's) on a new registry.
func NewMetrics() *Metrics {
	m := &Metrics{reg: prometheus.NewRegistry()}
	f := func(c prometheus.Collector) { m.reg.MustRegister(c) }
	m.executions = prometheus.NewGauge(
		prometheus.GaugeOpts{Name: "exectriage_watch_executions", Help: "Executions in the window the last pass read."},
	)
	m.flagged = prometheus.NewGaugeVec(
		prometheus.GaugeOpts{Name: "exectriage_watch_flagged", Help: "Flagged writes in the window, by toolkit and outcome."},
		[]string{"toolkit", "outcome"},
	)
	m.groups = prometheus.NewGaugeVec(
		prometheus.GaugeOpts{Name: "exectriage_watch_groups", Help: "Duplicate groups in the window, by cause."},
		[]string{"cause"},
	)
	m.events = prometheus.NewCounterVec(
		prometheus.CounterOpts{Name: "exectriage_watch_events_total", Help: "Events found and queued, by kind."},
		[]string{"kind"},
	)
	m.deliveries = prometheus.NewCounterVec(
		prometheus.CounterOpts{
			Name: "exectriage_watch_deliveries_total",
			Help: "Deliveries by sink and what they came to (sent, failed, unclear).",
		},
		[]string{"sink", "state"},
	)
	m.requests = prometheus.NewCounterVec(
		prometheus.CounterOpts{
			Name: "exectriage_watch_api_requests_total",
			Help: "Requests sent to the Composio API, by status (0: no answer).",
		},
		[]string{"code"},
	)
	m.rateWaits = prometheus.NewCounter(
		prometheus.CounterOpts{Name: "exectriage_watch_rate_limit_waits_total", Help: "Waits for the API's rate limit."},
	)
	m.passes = prometheus.NewCounterVec(
		prometheus.CounterOpts{Name: "exectriage_watch_passes_total", Help: "Passes over the API, by result (ok, error, follower)."},
		[]string{"result"},
	)
	m.behind = prometheus.NewGauge(
		prometheus.GaugeOpts{Name: "exectriage_watch_behind_seconds", Help: "Seconds since the last pass that read the API whole began."},
	)
	m.leader = prometheus.NewGauge(
		prometheus.GaugeOpts{Name: "exectriage_watch_leader", Help: "1 while this watcher is the one that sends."},
	)
	for _, c := range []prometheus.Collector{m.executions, m.flagged, m.groups, m.events, m.deliveries, m.requests, m.rateWaits, m.passes,
		m.behind, m.leader,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{})} {
		f(c)
	}
	return m
}

// Handler serves /metrics (the Prometheus text format) and /healthz (200 while the last pass
// that read the API is younger than stale, or no pass is due yet).
func (m *Metrics) Handler(stale time.Duration, started time.Time) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{}))
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) {
		last := m.lastPass.Load()
		since := time.Since(started)
		if last != 0 {
			since = time.Since(time.Unix(0, last))
		}
		m.behind.Set(since.Seconds())
		if since > stale {
			http.Error(w, "no pass over the API for "+since.Round(time.Second).String(), http.StatusServiceUnavailable)
			return
		}
		_, _ = w.Write([]byte("ok\n"))
	})
	return mux
}

// Request counts one API request.
func (m *Metrics) Request(status int) {
	if m != nil {
		m.requests.WithLabelValues(strconv.Itoa(status)).Inc()
	}
}

// RateWait counts one wait for the rate limit.
func (m *Metrics) RateWait() {
	if m != nil {
		m.rateWaits.Inc()
	}
}

// Pass records one pass: its result and, for one that read the API, the window it read.
func (m *Metrics) Pass(result string, began time.Time, w *Window) {
	if m == nil {
		return
	}
	m.passes.WithLabelValues(result).Inc()
	m.leader.Set(map[bool]float64{true: 1}[result != "follower"])
	if w == nil {
		return
	}
	m.lastPass.Store(began.UnixNano())
	m.behind.Set(time.Since(began).Seconds())
	m.executions.Set(float64(len(w.Rows)))
	m.flagged.Reset()
	for _, r := range w.Rows {
		if r.Triage.Flagged {
			m.flagged.WithLabelValues(r.Exec.ToolkitSlug, string(r.Triage.Outcome)).Inc()
		}
	}
	m.groups.Reset()
	for _, g := range w.Groups {
		m.groups.WithLabelValues(string(g.Pattern)).Inc()
	}
}

// Queued counts events found and queued.
func (m *Metrics) Queued(kind string) {
	if m != nil {
		m.events.WithLabelValues(kind).Inc()
	}
}

// Delivered counts deliveries that came to state.
func (m *Metrics) Delivered(sink string, state journal.DeliveryState, n int) {
	if m != nil {
		m.deliveries.WithLabelValues(sink, string(state)).Add(float64(n))
	}
}
