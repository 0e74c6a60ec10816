package plugin

import (
	"fmt"
	"testing"
	"time"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/plugin/pluginpb"
	"github.com/floe/floe/plugin/plugintest"
)

// BenchmarkObservationIngest measures observations per second from a worker
// over the real gRPC stream (bufconn) into the observe store, in batches of
// observationBatch per message. Target: ≥ 20,000/s.
func BenchmarkObservationIngest(b *testing.B) {
	const observationBatch = 100
	h := newBenchHarness(b)
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
