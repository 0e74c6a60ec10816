package iceworker

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"slices"
	"testing"
	"time"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/internal/runtest"
	"github.com/floe/floe/observe"
	"github.com/floe/floe/plugin"
)

// testWait bounds every wait: far longer than anything should take, so
// only a real hang trips it (no timing assertions).
const testWait = 60 * time.Second

// console is a real plugin channel on 127.0.0.1 with the test env's
// catalog, handing workers the env's Iceberg REST URL.
type console struct {
	p   *plugin.Plugin
	obs *observe.Store
	url string
}

func newConsole(t *testing.T, e *testEnv) *console {
	t.Helper()
	obs, err := observe.New(e.db, 0)
	if err != nil {
		t.Fatal(err)
	}
	p, err := plugin.New(plugin.Config{DB: e.db, Store: e.store, Observe: obs, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		IcebergURL: e.url, Options: plugin.Options{SchedulerTick: 20 * time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	runtest.Start(t, obs, p)
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan struct{})
	go func() {
		defer close(served)
		_ = p.Serve(ctx, lis)
	}()
	t.Cleanup(func() {
		sctx, scancel := context.WithTimeout(context.Background(), testWait)
		defer scancel()
		_ = p.Shutdown(sctx)
		cancel()
		<-served
		obs.Close()
	})
	return &console{p: p, obs: obs, url: lis.Addr().String()}
}

// startWorker runs the Iceberg worker against the console until the test ends.
func (c *console) startWorker(t *testing.T, e *testEnv) {
	t.Helper()
	_, token, err := e.store.CreateWorkerToken(context.Background(), "iceberg-test")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	w := New(Config{GRPC: c.url, Token: token, WorkerID: "iceberg-test", Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = w.Run(ctx)
	}()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	waitFor(t, "the worker to connect", func() bool { return c.p.Connected("iceberg-test") })
}

// manualOnly waits for the worker's descriptors and turns every job type's
// scheduled detection off, so only what a test starts runs.
func (c *console) manualOnly(t *testing.T) {
	t.Helper()
	for _, jt := range JobTypes {
		waitFor(t, jt+"'s descriptor", func() bool { _, ok := c.p.Descriptor(jt); return ok })
		set, err := c.p.Settings(jt)
		if err != nil {
			t.Fatal(err)
		}
		set.Runtime.Enabled = false
		if _, errs, err := c.p.SaveSettings(context.Background(), jt, set.Values, set.Runtime); err != nil || len(errs) > 0 {
			t.Fatalf("save %s settings: %v %v", jt, errs, err)
		}
	}
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(testWait)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestWorkerOverThePluginChannel: the worker connects with a worker token,
// detection over the channel observes the table and proposes compaction,
// and a submitted job runs to success with the rows unchanged.
func TestWorkerOverThePluginChannel(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	c := newConsole(t, e)
	c.startWorker(t, e)
	c.manualOnly(t)
	tbl := e.createTable(t, "events", true, nil)
	for i := range int64(15) {
		tbl = appendRows(t, tbl, i*3, i*3+3)
	}
	want := scanRows(t, tbl, 0)
	id := e.ref(t, "events").ID

	props, err := c.p.RunDetection(ctx, JobCompact)
	if err != nil {
		t.Fatalf("detection: %v", err)
	}
	if len(props) != 1 || props[0].ObjectID != id {
		t.Fatalf("proposals = %+v, want one for %s", props, id)
	}
	o, ok := c.obs.Get(id, catalog.FormatIceberg)
	if !ok {
		t.Fatal("no observation for the table")
	}
	var f Figures
	if err := json.Unmarshal(o.Attributes, &f); err != nil || f.DataFiles != 15 || f.Rows != 45 || f.Snapshots != 15 || f.MaxSmallPerPartition != 5 {
		t.Fatalf("observed %s (%v)", o.Attributes, err)
	}

	job, err := c.p.SubmitJob(ctx, plugin.JobSpec{Type: JobCompact, ObjectID: id, Parameters: map[string]string{"min_input_files": "2"}})
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the compaction job to finish", func() bool {
		j, err := c.p.GetJob(ctx, job.ID)
		return err == nil && j.FinishedAt.After(time.Time{})
	})
	j, _ := c.p.GetJob(ctx, job.ID)
	if j.State != plugin.JobSucceeded {
		t.Fatalf("job ended %s: %s", j.State, j.Error)
	}
	tbl = e.load(t, "events")
	if got := len(snapshotFiles(t, tbl, tbl.CurrentSnapshot())); got != 3 {
		t.Fatalf("data files after the job = %d, want 3", got)
	}
	if got := scanRows(t, tbl, 0); !slices.Equal(got, want) {
		t.Fatalf("rows changed: %d → %d", len(want), len(got))
	}

	// A job on a Lance-marked table fails at once, not after retries.
	e.createTable(t, "lancy", false, map[string]string{"table_type": "lance"})
	job, err = c.p.SubmitJob(ctx, plugin.JobSpec{Type: JobOrphans, ObjectID: e.ref(t, "lancy").ID})
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the refused job to finish", func() bool {
		j, err := c.p.GetJob(ctx, job.ID)
		return err == nil && j.FinishedAt.After(time.Time{})
	})
	if j, _ := c.p.GetJob(ctx, job.ID); j.State != plugin.JobFailed || j.Attempts != 1 {
		t.Fatalf("job on a Lance table: %s after %d attempts (%s)", j.State, j.Attempts, j.Error)
	}
}
