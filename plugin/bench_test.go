package plugin

import (
	"fmt"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/plugin/pluginpb"
	"github.com/floe/floe/plugin/plugintest"
)

// BenchmarkObservationIngest measures observations per second from a worker
// over the real gRPC stream (bufconn) into the observe store, in batches of
// observationBatch per message, with and without the plugin's and the
// store's metrics in one process. Target: ≥ 20,000/s.
func BenchmarkObservationIngest(b *testing.B) {
	for _, on := range []bool{false, true} {
		b.Run(fmt.Sprintf("metrics=%v", on), func(b *testing.B) {
			var reg *prometheus.Registry
			if on {
				reg = prometheus.NewRegistry()
			}
			h := newHarnessWith(b, b.TempDir(), Options{DisableScheduler: true}, reg)
			if on {
				if err := h.obs.Instrument(reg); err != nil {
					b.Fatal(err)
				}
			}
			benchObservationIngest(b, h)
		})
	}
}

func benchObservationIngest(b *testing.B, h *harness) {
	const observationBatch = 100
	w := h.connectB(plugintest.Config{WorkerID: "bench"})
	const attrs = `{"rows":1000,"fragments":12,"version":7,"bytes":123456}`
	b.ResetTimer()
	sent := 0
	for sent < b.N {
		n := min(observationBatch, b.N-sent)
		msg := make([]*pluginpb.Observation, n)
		for i := range n {
			msg[i] = &pluginpb.Observation{ObjectId: fmt.Sprintf("t%d", (sent+i)%50_000), Format: "LANCE",
				ObservedAtUnixMs: int64(sent + i + 1), AttributesJson: attrs}
		}
		w.Observe(msg...)
		sent += n
	}
	last := fmt.Sprintf("t%d", (b.N-1)%50_000)
	for {
		if o, ok := h.obs.Get(last, catalog.FormatLance); ok && o.ObservedAt.UnixMilli() == int64(b.N) {
			break
		}
		select {
		case <-w.Done():
			b.Fatal(w.Err())
		case <-time.After(time.Millisecond): // poll without stealing a core from the reader
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "obs/s")
}
