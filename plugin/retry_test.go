package plugin

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/floe/floe/plugin/pluginpb"
	"github.com/floe/floe/plugin/plugintest"
)

func TestRetryThenFail(t *testing.T) {
	h := newHarness(t, Options{})
	var attempts atomic.Int32
	h.connect(plugintest.Config{WorkerID: "w1", HeartbeatEvery: 20 * time.Millisecond,
		Capabilities: []*pluginpb.Capability{capability("lance_compact", "lance")},
		Descriptors:  map[string]*pluginpb.Descriptor{"lance_compact": compactDescriptor("v1")},
		OnExecute: func(ctx context.Context, job *pluginpb.JobSpec, progress func(*pluginpb.Progress)) *pluginpb.Completed {
			attempts.Add(1)
			return &pluginpb.Completed{Success: false, Error: fmt.Sprintf("attempt %d broke", job.GetAttempt())}
		},
	})
	h.waitUntil("settings", func() bool { s, err := h.p.Settings("lance_compact"); return err == nil && s.Stored })
	set, _ := h.p.Settings("lance_compact")
	set.Runtime.RetryBackoff = 0
	if _, fe, err := h.p.SaveSettings(context.Background(), "lance_compact", set.Values, set.Runtime); err != nil || fe != nil {
		t.Fatal(fe, err)
	}
	j, err := h.p.SubmitJob(context.Background(), JobSpec{Type: "lance_compact", ObjectID: "t9"})
	if err != nil {
		t.Fatal(err)
	}
	h.waitUntil("job failed", func() bool { g, _ := h.p.GetJob(context.Background(), j.ID); return g.State == JobFailed })
	g, _ := h.p.GetJob(context.Background(), j.ID)
	if g.Attempts != 2 || attempts.Load() != 2 || g.Error != "attempt 2 broke" {
		t.Fatalf("attempts %d (worker saw %d), error %q", g.Attempts, attempts.Load(), g.Error)
	}
}

// TestPermanentFailureIsNotRetried: a failure the worker marks permanent
// ends the job after one attempt whatever retries remain.
func TestPermanentFailureIsNotRetried(t *testing.T) {
	h := newHarness(t, Options{})
	var attempts atomic.Int32
	h.connect(plugintest.Config{WorkerID: "w1", HeartbeatEvery: 20 * time.Millisecond,
		Capabilities: []*pluginpb.Capability{capability("lance_compact", "lance")},
		Descriptors:  map[string]*pluginpb.Descriptor{"lance_compact": compactDescriptor("v1")},
		OnExecute: func(ctx context.Context, job *pluginpb.JobSpec, progress func(*pluginpb.Progress)) *pluginpb.Completed {
			attempts.Add(1)
			return &pluginpb.Completed{Success: false, Permanent: true, Error: "column nope does not exist"}
		},
	})
	h.waitUntil("settings", func() bool { s, err := h.p.Settings("lance_compact"); return err == nil && s.Stored })
	set, _ := h.p.Settings("lance_compact")
	set.Runtime.RetryBackoff = 0
	set.Runtime.Retries = 3
	if _, fe, err := h.p.SaveSettings(context.Background(), "lance_compact", set.Values, set.Runtime); err != nil || fe != nil {
		t.Fatal(fe, err)
	}
	j, err := h.p.SubmitJob(context.Background(), JobSpec{Type: "lance_compact", ObjectID: "t9"})
	if err != nil {
		t.Fatal(err)
	}
	h.waitUntil("job failed", func() bool { g, _ := h.p.GetJob(context.Background(), j.ID); return g.State == JobFailed })
	g, _ := h.p.GetJob(context.Background(), j.ID)
	if g.Attempts != 1 || attempts.Load() != 1 || g.Error != "column nope does not exist" {
		t.Fatalf("attempts %d (worker saw %d), error %q", g.Attempts, attempts.Load(), g.Error)
	}
}
