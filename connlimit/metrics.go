package connlimit

import "github.com/prometheus/client_golang/prometheus"

// Metrics are the listeners' series: floe_connections_open{surface} and
// floe_connections_shed_total{surface,reason}, reason one of evicted (an
// idle connection closed to make room), refused (no room) and
// idle_deadline (gRPC: no authenticated stream in time).
type Metrics struct {
	openG *prometheus.GaugeVec
	shedC *prometheus.CounterVec
}

// NewMetrics registers the series in reg.
func NewMetrics(reg prometheus.Registerer) *Metrics {
	m := &Metrics{
		openG: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "floe_connections_open",
			Help: "Connections a listener holds now, by surface.",
		}, []string{"surface"}),
		shedC: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "floe_connections_shed_total",
			Help: "Connections closed or refused by the connection limits, by surface and reason (evicted, refused, idle_deadline).",
		}, []string{"surface", "reason"}),
	}
	reg.MustRegister(m.openG, m.shedC)
	return m
}

// Init creates a listener's series at zero, so dashboards see them before
// anything is shed.
func (m *Metrics) Init(surface string) {
	if m == nil {
		return
	}
	m.openG.WithLabelValues(surface)
	for _, r := range []string{"evicted", "refused", "idle_deadline"} {
		m.shedC.WithLabelValues(surface, r)
	}
}

func (m *Metrics) open(surface string, d float64) {
	if m != nil {
		m.openG.WithLabelValues(surface).Add(d)
	}
}

func (m *Metrics) shed(surface, reason string) {
	if m != nil {
		m.shedC.WithLabelValues(surface, reason).Inc()
	}
}
