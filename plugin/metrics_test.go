package plugin

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/floe/floe/internal/metricstest"
	"github.com/floe/floe/plugin/pluginpb"
	"github.com/floe/floe/plugin/plugintest"
)

type labels = map[string]string

// TestMetricsFollowJobsWorkersAndDetection drives jobs through every
// outcome and checks each series the plugin exports: created by source,
// finished by outcome, queue wait and run time, detection by outcome, jobs
// pending, and workers connected by lane (zero for a lane nobody serves,
// back to zero when the worker goes).
func TestMetricsFollowJobsWorkersAndDetection(t *testing.T) {
	h := newHarness(t, Options{})
	value := func(name string, ls labels) float64 {
		t.Helper()
		return metricstest.Must(t, metricstest.Families(t, h.reg), name, ls)
	}
	for _, lane := range Lanes {
		if n := value("floe_workers_connected", labels{"lane": lane}); n != 0 {
			t.Fatalf("workers in lane %s before any connected: %v", lane, n)
		}
	}
	w := h.connect(plugintest.Config{WorkerID: "w1",
		Capabilities: []*pluginpb.Capability{capability("lance_compact", "lance"), capability("lance_cleanup", "lance"),
			capability("iceberg_expire_snapshots", "iceberg")},
		OnDetect: func(ctx context.Context, d *pluginpb.Detect) ([]*pluginpb.Proposal, error) {
			if d.GetJobType() == "iceberg_expire_snapshots" {
				return nil, errors.New("catalog unreachable")
			}
			return []*pluginpb.Proposal{{ObjectId: "t1", DedupeKey: "compact:t1"}}, nil
		},
		OnExecute: func(ctx context.Context, job *pluginpb.JobSpec, _ func(*pluginpb.Progress)) *pluginpb.Completed {
			if job.GetJobType() == "iceberg_expire_snapshots" {
				return &pluginpb.Completed{Error: "snapshot in use", Permanent: true}
			}
			return &pluginpb.Completed{Success: true}
		},
	})
	if n := value("floe_workers_connected", labels{"lane": "lance"}); n != 1 {
		t.Errorf("lance workers = %v, want 1 (one worker, two lance job types)", n)
	}
	if n := value("floe_workers_connected", labels{"lane": "iceberg"}); n != 1 {
		t.Errorf("iceberg workers = %v, want 1", n)
	}
	if n := value("floe_workers_connected", labels{"lane": "default"}); n != 0 {
		t.Errorf("default-lane workers = %v, want 0", n)
	}

	res, err := h.p.RunNow(ctxT(t), "lance_compact")
	if err != nil || len(res.Created) != 1 {
		t.Fatalf("RunNow = %+v, %v", res, err)
	}
	failing, err := h.p.SubmitJob(ctxT(t), JobSpec{Type: "iceberg_expire_snapshots", ObjectID: "t2"})
	if err != nil {
		t.Fatal(err)
	}
	// Nobody runs it: it stays pending until canceled, and never ran.
	idle, err := h.p.SubmitJob(ctxT(t), JobSpec{Type: "nobody_runs_this", ObjectID: "t3"})
	if err != nil {
		t.Fatal(err)
	}
	if n := value("floe_jobs_pending", labels{"type": "nobody_runs_this"}); n != 1 {
		t.Errorf("pending nobody_runs_this = %v, want 1", n)
	}
	h.waitUntil("the two runnable jobs finished", func() bool {
		a, _ := h.p.GetJob(context.Background(), res.Created[0].ID)
		b, _ := h.p.GetJob(context.Background(), failing.ID)
		return a.State == JobSucceeded && b.State == JobFailed
	})
	if _, err := h.p.CancelJob(ctxT(t), idle.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := h.p.RunDetection(ctxT(t), "iceberg_expire_snapshots"); err == nil {
		t.Fatal("the worker's detection error did not come back")
	}

	for _, c := range []struct {
		name string
		ls   labels
		want float64
	}{
		{"floe_jobs_created_total", labels{"type": "lance_compact", "source": SourceRunNow}, 1},
		{"floe_jobs_created_total", labels{"type": "iceberg_expire_snapshots", "source": SourceSubmitted}, 1},
		{"floe_jobs_created_total", labels{"type": "nobody_runs_this", "source": SourceSubmitted}, 1},
		{"floe_jobs_finished_total", labels{"type": "lance_compact", "outcome": "succeeded"}, 1},
		{"floe_jobs_finished_total", labels{"type": "iceberg_expire_snapshots", "outcome": "failed"}, 1},
		{"floe_jobs_finished_total", labels{"type": "nobody_runs_this", "outcome": "canceled"}, 1},
		{"floe_job_queue_wait_seconds", labels{"type": "lance_compact"}, 1},
		{"floe_job_queue_wait_seconds", labels{"type": "iceberg_expire_snapshots"}, 1},
		{"floe_job_run_seconds", labels{"type": "lance_compact", "outcome": "succeeded"}, 1},
		{"floe_job_run_seconds", labels{"type": "iceberg_expire_snapshots", "outcome": "failed"}, 1},
		{"floe_detection_duration_seconds", labels{"type": "lance_compact", "outcome": "ok"}, 1},
		{"floe_detection_duration_seconds", labels{"type": "iceberg_expire_snapshots", "outcome": "failed"}, 1},
		{"floe_jobs_pending", labels{"type": "nobody_runs_this"}, 0},
		{"floe_jobs_running", labels{"type": "lance_compact"}, 0},
		{"floe_jobs_pending", labels{"type": "lance_cleanup"}, 0}, // described, never queued: still listed
	} {
		if got := value(c.name, c.ls); got != c.want {
			t.Errorf("%s%s = %v, want %v", c.name, metricstest.Labels(c.ls), got, c.want)
		}
	}
	mfs := metricstest.Families(t, h.reg)
	if _, ok := metricstest.Value(mfs, "floe_job_run_seconds", labels{"type": "nobody_runs_this"}); ok {
		t.Error("a job canceled before any attempt has a run time")
	}
	// A detection that never reached a worker is no round trip.
	if _, err := h.p.RunDetection(ctxT(t), "nobody_detects_this"); !errors.Is(err, ErrNoWorker) {
		t.Fatalf("RunDetection without a worker: %v", err)
	}
	if _, ok := metricstest.Value(metricstest.Families(t, h.reg), "floe_detection_duration_seconds", labels{"type": "nobody_detects_this"}); ok {
		t.Error("a detection without a worker was timed")
	}

	w.Close()
	h.waitUntil("the worker is gone from the gauge", func() bool {
		v, _ := metricstest.Value(metricstest.Families(t, h.reg), "floe_workers_connected", labels{"lane": "lance"})
		return v == 0
	})
}

// TestMetricsJobTypeLabelsBounded: however many job types workers name,
// the type label takes at most maxTypeLabels values plus "other".
func TestMetricsJobTypeLabelsBounded(t *testing.T) {
	m := &metrics{types: map[string]bool{}}
	seen := map[string]bool{}
	for i := range 3 * maxTypeLabels {
		seen[m.typeLabel(fmt.Sprintf("type_%d", i))] = true
	}
	if len(seen) != maxTypeLabels+1 || !seen[otherType] {
		t.Fatalf("%d distinct labels (other: %v), want %d and other", len(seen), seen[otherType], maxTypeLabels+1)
	}
	if got := m.typeLabel("type_0"); got != "type_0" {
		t.Fatalf("a type labelled before the cap became %q", got)
	}
}

// TestMetricsOff: a plugin without a registry records nothing and works.
func TestMetricsOff(t *testing.T) {
	h := newHarnessWith(t, t.TempDir(), Options{SchedulerTick: 20 * time.Millisecond}, nil)
	h.connect(plugintest.Config{WorkerID: "w1", Capabilities: []*pluginpb.Capability{capability("lance_compact", "lance")}})
	j, err := h.p.SubmitJob(ctxT(t), JobSpec{Type: "lance_compact", ObjectID: "t1"})
	if err != nil {
		t.Fatal(err)
	}
	h.waitUntil("the job succeeded", func() bool {
		got, _ := h.p.GetJob(context.Background(), j.ID)
		return got.State == JobSucceeded
	})
	if h.p.metrics != nil {
		t.Fatal("metrics recorded without a registry")
	}
}

// TestMetricsRegisterTwice: a second plugin on the same registry is
// refused with a sentence, not a panic.
func TestMetricsRegisterTwice(t *testing.T) {
	h := newHarness(t, Options{DisableScheduler: true})
	_, err := New(Config{DB: h.db, Store: h.store, Logger: quietLogger(), Metrics: h.reg, Options: Options{DisableScheduler: true}})
	if err == nil {
		t.Fatal("a second plugin registered the same series")
	}
	if !strings.HasPrefix(err.Error(), "plugin: register metrics") {
		t.Fatalf("error = %v", err)
	}
}
