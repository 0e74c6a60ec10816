package observe

import (
	"fmt"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/floe/floe/catalog"
)

// Outcomes of one Put, as the ingest counter labels them.
const (
	outcomeStored  = iota // newest for its object: held and persisted
	outcomeStale          // older than the one held: dropped
	outcomeRefused        // invalid or oversized attributes
	outcomes
)

var outcomeNames = [outcomes]string{"stored", "stale", "refused"}

// Formats as label values; anything else is "other".
var formatNames = [...]string{"lance", "iceberg", "other"}

func formatIndex(f catalog.Format) int {
	switch f {
	case catalog.FormatLance:
		return 0
	case catalog.FormatIceberg:
		return 1
	}
	return 2
}

// metrics is floe_observations_ingested_total{format,outcome}, its
// children resolved once: Put is the hot path of a detection sweep (tens of
// thousands a second), so it does one atomic add, no label hashing.
type metrics struct {
	ingested [len(formatNames)][outcomes]prometheus.Counter
}

// Instrument registers the store's series in reg and starts recording
// them: floe_observations_ingested_total{format,outcome}. Call it once,
// before workers report; a store never instrumented records nothing.
func (s *Store) Instrument(reg prometheus.Registerer) error {
	vec := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "floe_observations_ingested_total",
		Help: "Observations workers reported, by format and outcome (stored; stale: older than the one held; refused: invalid or oversized).",
	}, []string{"format", "outcome"})
	if err := reg.Register(vec); err != nil {
		return fmt.Errorf("observe: register metrics: %w", err)
	}
	m := &metrics{}
	for f, fn := range formatNames {
		for o, on := range outcomeNames {
			m.ingested[f][o] = vec.WithLabelValues(fn, on)
		}
	}
	s.metrics.Store(m)
	return nil
}

func (s *Store) count(f catalog.Format, outcome int) {
	if m := s.metrics.Load(); m != nil {
		m.ingested[formatIndex(f)][outcome].Inc()
	}
}
