package main

import (
	"net/http"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/floe/floe/connlimit"
	"github.com/floe/floe/edge"
)

// processMetrics is the process's one Prometheus registry: the Go runtime
// and process collectors, and the edge's request series that every HTTP
// surface records in (floe_http_requests_total{surface,route,status} and
// its duration histogram). --metrics serves exactly this registry.
type processMetrics struct {
	reg *prometheus.Registry
	// http is handed to every HTTP surface's Config (Metrics) so all five
	// count in the same two families.
	http *edge.Metrics
	// conns counts every listener's open and shed connections.
	conns *connlimit.Metrics
}

func newProcessMetrics() processMetrics {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return processMetrics{reg: reg, http: edge.NewMetrics(reg), conns: connlimit.NewMetrics(reg)}
}

// handler serves the registry at GET /metrics and nothing else.
func (m processMetrics) handler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{}))
	return mux
}
