package preview

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/floe/floe/catalog"
)

// roundTripBuckets, in seconds: a warm worker answers 200 rows in about
// 10 ms, a busy or remote one in hundreds; Timeout (15 s) is the last.
var roundTripBuckets = []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 15}

// metrics is floe_preview_duration_seconds{format,outcome}.
type metrics struct {
	roundTrip *prometheus.HistogramVec
}

// Instrument registers the broker's series in reg and starts recording
// them: floe_preview_duration_seconds{format,outcome}, one observation per
// Fetch. Call it once, before the broker serves; a broker never
// instrumented records nothing.
func (b *Broker) Instrument(reg prometheus.Registerer) error {
	m := &metrics{roundTrip: prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name: "floe_preview_duration_seconds",
		Help: "Browse Data round trips to a worker, by format and outcome " +
			"(ok, not_observed, worker_gone, worker_error, timeout, too_large, decode_error, bad_filter, canceled).",
		Buckets: roundTripBuckets,
	}, []string{"format", "outcome"})}
	if err := reg.Register(m.roundTrip); err != nil {
		return fmt.Errorf("preview: register metrics: %w", err)
	}
	b.metrics.Store(m)
	return nil
}

// observe records one Fetch.
func (b *Broker) observe(f catalog.Format, d time.Duration, err error) {
	m := b.metrics.Load()
	if m == nil {
		return
	}
	m.roundTrip.WithLabelValues(formatLabel(f), outcome(err)).Observe(d.Seconds())
}

func formatLabel(f catalog.Format) string {
	switch f {
	case catalog.FormatLance, catalog.FormatIceberg:
		return strings.ToLower(string(f))
	}
	return "other"
}

// outcome names a Fetch's result by its reason, never its text.
func outcome(err error) string {
	for _, o := range []struct {
		reason error
		name   string
	}{
		{ErrNotObserved, "not_observed"}, {ErrWorkerGone, "worker_gone"}, {ErrTimeout, "timeout"},
		{ErrTooLarge, "too_large"}, {ErrDecode, "decode_error"}, {ErrBadFilter, "bad_filter"}, {ErrWorker, "worker_error"},
	} {
		if errors.Is(err, o.reason) {
			return o.name
		}
	}
	switch {
	case err == nil:
		return "ok"
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return "canceled" // the caller left before the rows came
	}
	return "worker_error"
}
