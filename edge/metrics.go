package edge

import (
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Metrics is the one request series of every surface:
// floe_http_requests_total{surface,route,status} and
// floe_http_request_duration_seconds{surface,route}. Routes are patterns,
// never raw paths, so bucket and table names cannot explode the series.
type Metrics struct {
	requests *prometheus.CounterVec
	latency  *prometheus.HistogramVec

	// per (surface, route): the curried children, so the hot path does one
	// map read instead of hashing label values per request.
	mu       sync.RWMutex
	children map[routeKey]*routeSeries
}

type routeKey struct{ surface, route string }

type routeSeries struct {
	latency prometheus.Observer
	mu      sync.Mutex
	byCode  map[int]prometheus.Counter
}

// NewMetrics registers the request series in reg.
func NewMetrics(reg prometheus.Registerer) *Metrics {
	m := &Metrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "floe_http_requests_total",
			Help: "HTTP requests by surface, route pattern and status.",
		}, []string{"surface", "route", "status"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "floe_http_request_duration_seconds",
			Help:    "HTTP request latency by surface and route pattern.",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
		}, []string{"surface", "route"}),
		children: map[routeKey]*routeSeries{},
	}
	reg.MustRegister(m.requests, m.latency)
	return m
}

func (m *Metrics) observe(surface, route string, status int, d time.Duration) {
	k := routeKey{surface, route}
	m.mu.RLock()
	rs := m.children[k]
	m.mu.RUnlock()
	if rs == nil {
		m.mu.Lock()
		if rs = m.children[k]; rs == nil {
			rs = &routeSeries{latency: m.latency.WithLabelValues(surface, route), byCode: map[int]prometheus.Counter{}}
			m.children[k] = rs
		}
		m.mu.Unlock()
	}
	rs.latency.Observe(d.Seconds())
	rs.mu.Lock()
	c := rs.byCode[status]
	if c == nil {
		c = m.requests.WithLabelValues(surface, route, strconv.Itoa(status))
		rs.byCode[status] = c
	}
	rs.mu.Unlock()
	c.Inc()
}
