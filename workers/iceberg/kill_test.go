package iceworker

import (
	"context"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"os/signal"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/floe/floe/plugin"
)

// childEnv makes the test binary run as an Iceberg worker process (see
// TestMain): the kill test needs a process it can kill -9.
const childEnv = "FLOE_ICEWORKER_TEST_CHILD"

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) == "1" {
		runChild()
		return
	}
	os.Exit(m.Run())
}

// runChild is the worker process: it holds every job at "committing"
// (after the rewrite wrote its files, before the commit) until killed.
func runChild() {
	LimitProcessMemory() // as `floe worker iceberg` does
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	w := New(Config{GRPC: os.Getenv("FLOE_GRPC"), Token: os.Getenv("FLOE_WORKER_TOKEN"), WorkerID: "iceberg-child",
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	w.stageHook = func(stage string) {
		if stage == "committing" && os.Getenv("FLOE_HOLD_MARK") != "" {
			os.WriteFile(os.Getenv("FLOE_HOLD_MARK"), []byte("held"), 0o644)
			<-ctx.Done()
		}
	}
	_ = w.Run(ctx)
}

// TestKilledMidWriteLeavesTableReadable: the worker process is killed -9
// after the compaction wrote its files and before it committed; the table
// stays at its previous snapshot with the same rows. The worker restarts
// (as serve restarts it), the console fails the lost attempt and retries
// it, and the retry compacts with the rows unchanged.
func TestKilledMidWriteLeavesTableReadable(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	tbl := e.createTable(t, "events", true, nil)
	for i := range int64(12) {
		tbl = appendRows(t, tbl, i*3, i*3+3)
	}
	want := scanRows(t, tbl, 0)
	before := tbl.CurrentSnapshot().SnapshotID
	c := newConsole(t, e)
	_, token, err := e.store.CreateWorkerToken(ctx, "iceberg-child")
	if err != nil {
		t.Fatal(err)
	}
	mark := t.TempDir() + "/held"
	start := func(hold string) *exec.Cmd {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), childEnv+"=1", "FLOE_GRPC="+c.url, "FLOE_WORKER_TOKEN="+token, "FLOE_HOLD_MARK="+hold)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		})
		return cmd
	}
	cmd := start(mark)
	waitFor(t, "the worker process to connect", func() bool { return c.p.Connected("iceberg-child") })
	// The job type's retries come from its descriptor.
	waitFor(t, "the compaction descriptor", func() bool { _, ok := c.p.Descriptor(JobCompact); return ok })
	set, err := c.p.Settings(JobCompact)
	if err != nil {
		t.Fatal(err)
	}
	set.Runtime.Enabled = false                // no detection-made jobs beside ours
	set.Runtime.RetryBackoff = 1 * time.Second // the retry comes while the test waits
	if _, _, err := c.p.SaveSettings(ctx, JobCompact, set.Values, set.Runtime); err != nil {
		t.Fatal(err)
	}

	job, err := c.p.SubmitJob(ctx, plugin.JobSpec{Type: JobCompact, ObjectID: e.ref(t, "events").ID, Parameters: map[string]string{"min_input_files": "2"}})
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the job to reach its commit", func() bool {
		_, err := os.Stat(mark)
		return err == nil
	})
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()

	tbl = e.load(t, "events")
	if got := tbl.CurrentSnapshot().SnapshotID; got != before {
		t.Fatalf("current snapshot moved from %d to %d although the worker died before committing", before, got)
	}
	if got := scanRows(t, tbl, 0); !slices.Equal(got, want) {
		t.Fatalf("rows changed: %d → %d", len(want), len(got))
	}
	start("") // the restarted worker does not hold
	waitFor(t, "the retried job to finish", func() bool {
		j, err := c.p.GetJob(ctx, job.ID)
		return err == nil && !j.State.Active()
	})
	j, _ := c.p.GetJob(ctx, job.ID)
	if j.State != plugin.JobSucceeded || j.Attempts != 2 {
		t.Fatalf("job after the kill and restart: %s after %d attempts (%s)", j.State, j.Attempts, j.Error)
	}
	tbl = e.load(t, "events")
	if got := scanRows(t, tbl, 0); !slices.Equal(got, want) {
		t.Fatalf("rows changed by the retried compaction: %d → %d", len(want), len(got))
	}
	if got := len(snapshotFiles(t, tbl, tbl.CurrentSnapshot())); got != 3 {
		t.Fatalf("data files after the retry = %d, want 3", got)
	}
}
