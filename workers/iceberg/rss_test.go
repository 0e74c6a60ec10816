package iceworker

import (
	"context"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	iceberggo "github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"

	"github.com/floe/floe/plugin"
)

const (
	// gibFiles × gibRowsPerFile × gibPayload bytes of random payload make
	// the table's data files total about 1 GiB on disk: random bytes do
	// not compress, so the bytes on disk are the bytes the rewrite moves.
	gibFiles       = 64
	gibRowsPerFile = 16 << 10
	gibPayload     = 1000
	// maxWorkerRSS is the bound on the worker process while it
	// compacts the 1 GiB table.
	maxWorkerRSS = 300 << 20
	// gibWait bounds the compaction on a loaded 2-core machine.
	gibWait = 20 * time.Minute
)

var payloadSchema = iceberggo.NewSchema(0,
	iceberggo.NestedField{ID: 1, Name: "id", Type: iceberggo.PrimitiveTypes.Int64, Required: true},
	iceberggo.NestedField{ID: 2, Name: "payload", Type: iceberggo.PrimitiveTypes.Binary, Required: true},
)

// TestCompactGiBWorkerRSS (FLOE_BENCH_GIB=1) compacts a table whose data
// files total about 1 GiB with the worker in its own process, and prints
// that process's peak RSS (VmHWM) and rows/s. It fails if the peak passes
// 300 MB or a row is lost. Gated: it writes and rewrites a gigabyte.
func TestCompactGiBWorkerRSS(t *testing.T) {
	if os.Getenv("FLOE_BENCH_GIB") != "1" {
		t.Skip("set FLOE_BENCH_GIB=1 to compact a 1 GiB table in a worker process and print its peak RSS")
	}
	ctx := context.Background()
	e := newEnv(t)
	tbl, err := e.cat.CreateTable(ctx, table.Identifier{"ns", "big"}, payloadSchema)
	if err != nil {
		t.Fatal(err)
	}
	sc, err := table.SchemaToArrowSchema(tbl.Schema(), nil, false, false)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.NewChaCha8([32]byte{13}) // random bytes: incompressible
	payload := make([]byte, gibPayload)
	for i := range gibFiles {
		b := array.NewRecordBuilder(memory.DefaultAllocator, sc)
		for r := range gibRowsPerFile {
			b.Field(0).(*array.Int64Builder).Append(int64(i*gibRowsPerFile + r))
			_, _ = rng.Read(payload)
			b.Field(1).(*array.BinaryBuilder).Append(payload)
		}
		rec := b.NewRecordBatch()
		at := array.NewTableFromRecords(sc, []arrow.RecordBatch{rec})
		if tbl, err = tbl.AppendTable(ctx, at, gibRowsPerFile, nil); err != nil {
			t.Fatal(err)
		}
		at.Release()
		rec.Release()
		b.Release()
	}
	dataBytes := func() (n int64, files int) {
		_ = filepath.WalkDir(filepath.Join(Canonical(tbl.Location()), "data"), func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				if info, err := d.Info(); err == nil {
					n += info.Size()
					files++
				}
			}
			return nil
		})
		return n, files
	}
	before, files := dataBytes()
	t.Logf("table written: %d data files, %.2f GiB on disk", files, float64(before)/(1<<30))

	c := newConsole(t, e)
	_, token, err := e.store.CreateWorkerToken(ctx, "iceberg-child")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"=1", "FLOE_GRPC="+c.url, "FLOE_WORKER_TOKEN="+token)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	waitFor(t, "the worker process to connect", func() bool { return c.p.Connected("iceberg-child") })
	c.manualOnly(t)
	idle := vmHWM(t, cmd.Process.Pid)

	job, err := c.p.SubmitJob(ctx, plugin.JobSpec{Type: JobCompact, ObjectID: e.ref(t, "big").ID, Parameters: map[string]string{"min_input_files": "2"}})
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(gibWait)
	var j plugin.Job
	for {
		if j, err = c.p.GetJob(ctx, job.ID); err == nil && !j.State.Active() {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the compaction did not finish in %s", gibWait)
		}
		time.Sleep(200 * time.Millisecond)
	}
	took := j.FinishedAt.Sub(j.StartedAt)
	peak := vmHWM(t, cmd.Process.Pid)
	if j.State != plugin.JobSucceeded {
		t.Fatalf("compaction %s: %s", j.State, j.Error)
	}
	n, _ := strconv.ParseInt(j.Result["rows"], 10, 64)
	after, afterFiles := dataBytes()
	t.Logf("%s", j.ResultSummary)
	t.Logf("worker process peak RSS %.0f MiB (idle %.0f MiB) compacting %.2f GiB; %d rows in %s = %.0f rows/s (%.1f MiB/s); data dir now %d files, %.2f GiB",
		float64(peak)/(1<<20), float64(idle)/(1<<20), float64(before)/(1<<30), n, took.Round(time.Second), float64(n)/took.Seconds(),
		float64(before)/(1<<20)/took.Seconds(), afterFiles, float64(after)/(1<<30))
	if n != gibFiles*gibRowsPerFile {
		t.Fatalf("compacted %d rows, want %d", n, gibFiles*gibRowsPerFile)
	}
	got, err := e.load(t, "big").Scan(table.WithSelectedFields("id")).ToArrowTable(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer got.Release()
	if got.NumRows() != gibFiles*gibRowsPerFile {
		t.Fatalf("scan after compaction: %d rows, want %d", got.NumRows(), gibFiles*gibRowsPerFile)
	}
	if peak > maxWorkerRSS {
		t.Fatalf("worker peak RSS %d MiB is over the %d MiB bound", peak>>20, maxWorkerRSS>>20)
	}
}

// vmHWM reads a process's peak resident set in bytes.
func vmHWM(t *testing.T, pid int) int64 {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		t.Fatalf("read the worker's status: %v", err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			n, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil {
				t.Fatalf("VmHWM %q: %v", rest, err)
			}
			return n << 10
		}
	}
	t.Fatal("no VmHWM in the worker's status")
	return 0
}
