package plugin

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/floe/floe/plugin/pluginpb"
	"github.com/floe/floe/plugin/plugintest"
)

// TestRestartAdoptsOrRetriesRunningJobs: jobs a previous console process left
// running are adopted when their worker reconnects still running them, and
// retried when it reconnects without them.
func TestRestartAdoptsOrRetriesRunningJobs(t *testing.T) {
	dir := t.TempDir()
	h1 := newHarnessIn(t, dir, Options{})
	release := make(chan struct{})
	defer close(release)
	cfg := plugintest.Config{WorkerID: "w1", Capabilities: []*pluginpb.Capability{capability("lance_compact", "lance")},
		Descriptors: map[string]*pluginpb.Descriptor{"lance_compact": compactDescriptor("v1")},
		OnExecute: func(ctx context.Context, job *pluginpb.JobSpec, progress func(*pluginpb.Progress)) *pluginpb.Completed {
			progress(&pluginpb.Progress{Percent: 10, Stage: "start"})
			select {
			case <-release:
			case <-ctx.Done():
			}
			return nil
		}}
	h1.connect(cfg)
	h1.waitUntil("settings", func() bool { s, err := h1.p.Settings("lance_compact"); return err == nil && s.Stored })
	kept, _ := h1.p.SubmitJob(context.Background(), JobSpec{Type: "lance_compact", ObjectID: "a"})
	lost, _ := h1.p.SubmitJob(context.Background(), JobSpec{Type: "lance_compact", ObjectID: "b"})
	h1.waitUntil("both running", func() bool {
		n := 0
		for _, j := range h1.p.ActiveJobs() {
			if j.State == JobRunning {
				n++
			}
		}
		return n == 2
	})
	h1.close() // the console stops; the jobs stay running in the database

	h2 := newHarnessIn(t, dir, Options{})
	for _, id := range []string{kept.ID, lost.ID} {
		if j, err := h2.p.GetJob(context.Background(), id); err != nil || j.State != JobRunning {
			t.Fatalf("after restart %s: %s %v", id, j.State, err)
		}
	}
	cfg2 := cfg
	cfg2.OnExecute = func(ctx context.Context, job *pluginpb.JobSpec, progress func(*pluginpb.Progress)) *pluginpb.Completed {
		return &pluginpb.Completed{Success: true, Summary: "redone"}
	}
	w := h2.connect(cfg2)
	w.Heartbeat(1, 2, kept.ID) // still runs "kept", lost "lost"
	w.Send(&pluginpb.WorkerMessage{Body: &pluginpb.WorkerMessage_Completed{Completed: &pluginpb.Completed{
		JobId: kept.ID, Success: true, Summary: "finished after the restart"}}})
	h2.waitUntil("both succeeded", func() bool {
		a, _ := h2.p.GetJob(context.Background(), kept.ID)
		b, _ := h2.p.GetJob(context.Background(), lost.ID)
		return a.State == JobSucceeded && b.State == JobSucceeded
	})
	a, _ := h2.p.GetJob(context.Background(), kept.ID)
	b, _ := h2.p.GetJob(context.Background(), lost.ID)
	if a.Attempts != 1 || a.ResultSummary != "finished after the restart" {
		t.Fatalf("adopted job: attempts %d summary %q", a.Attempts, a.ResultSummary)
	}
	if b.Attempts != 2 || b.ResultSummary != "redone" || !slices.ContainsFunc(b.Activity, func(x Activity) bool {
		return strings.Contains(x.Message, "reconnected without") && !x.At.IsZero()
	}) {
		t.Fatalf("retried job: attempts %d summary %q activity %+v", b.Attempts, b.ResultSummary, b.Activity)
	}
}
