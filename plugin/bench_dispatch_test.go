package plugin

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/floe/floe/plugin/pluginpb"
	"github.com/floe/floe/plugin/plugintest"
)

// BenchmarkJobDispatch measures whole jobs per second through the real
// gRPC stream (bufconn): submitted, handed to a worker with 16 slots that
// finishes each at once, and recorded as succeeded — every database write
// of a job's life included. Run with and without the plugin's metrics in
// one process, so their cost on dispatch is the ratio of the two.
func BenchmarkJobDispatch(b *testing.B) {
	for _, on := range []bool{false, true} {
		b.Run(fmt.Sprintf("metrics=%v", on), func(b *testing.B) {
			var reg *prometheus.Registry
			if on {
				reg = prometheus.NewRegistry()
			}
			benchJobDispatch(b, newHarnessWith(b, b.TempDir(), Options{SchedulerTick: 20 * time.Millisecond}, reg))
		})
	}
}

func benchJobDispatch(b *testing.B, h *harness) {
	const slots = 16
	d := compactDescriptor("v1")
	d.Runtime.GlobalConcurrency, d.Runtime.PerWorkerConcurrency, d.Runtime.Retries = slots, slots, 0
	h.connect(plugintest.Config{WorkerID: "bench",
		Capabilities: []*pluginpb.Capability{{JobType: "lance_compact", Lane: LaneLance, CanExecute: true, MaxExecuteSlots: slots}},
		Descriptors:  map[string]*pluginpb.Descriptor{"lance_compact": d}})
	h.waitUntil("descriptor", func() bool { _, ok := h.p.Descriptor("lance_compact"); return ok })
	ctx := context.Background()
	b.ResetTimer()
	for i := range b.N {
		if _, err := h.p.SubmitJob(ctx, JobSpec{Type: "lance_compact", ObjectID: fmt.Sprintf("t%d", i)}); err != nil {
			b.Fatal(err)
		}
	}
	for {
		h.p.jobs.mu.Lock()
		left := len(h.p.jobs.active)
		h.p.jobs.mu.Unlock()
		if left == 0 {
			break
		}
		time.Sleep(time.Millisecond) // poll without stealing a core from the dispatcher
	}
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "jobs/s")
}

// BenchmarkJobMetrics is what the metrics add to one job's life: created,
// sent after a wait, finished with a run time. Held against
// BenchmarkJobDispatch's time per job in the same run, it is the share of
// dispatch the metrics cost, free of the noise end-to-end runs carry.
func BenchmarkJobMetrics(b *testing.B) {
	m, err := newMetrics(prometheus.NewRegistry(), nil)
	if err != nil {
		b.Fatal(err)
	}
	now := time.Now()
	j := &Job{Type: "lance_compact", State: JobSucceeded, StartedAt: now.Add(-time.Minute), FinishedAt: now}
	for b.Loop() {
		m.jobCreated(j.Type, SourceSubmitted)
		m.jobSent(j.Type, 250*time.Millisecond)
		m.jobFinished(j)
	}
}
