package iceworker

import (
	"context"
	"io"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/floe/floe/plugin/pluginpb"
)

// benchFiles and benchRowsPerFile shape the compaction benchmark's table
// (FLOE_BENCH_FILES / FLOE_BENCH_ROWS override them for the 1,000 x 1,000
// figure of the issue; the defaults keep `make bench` short).
func benchShape() (files, rows int) {
	files, rows = 100, 10000
	if n, err := strconv.Atoi(os.Getenv("FLOE_BENCH_FILES")); err == nil && n > 0 {
		files = n
	}
	if n, err := strconv.Atoi(os.Getenv("FLOE_BENCH_ROWS")); err == nil && n > 0 {
		rows = n
	}
	return files, rows
}

// peakRSS reads the process's peak resident set (VmHWM) in bytes; resetPeak
// starts a new peak (Linux: clear_refs 5). Both are best effort.
func peakRSS() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return -1
	}
	for _, l := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return n << 10
		}
	}
	return -1
}

func resetPeak() { _ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) }

// BenchmarkCompact compacts a table of files x rows written in one
// transaction (one file per append) and reports rows/s and the process's
// peak RSS during the compaction.
func BenchmarkCompact(b *testing.B) {
	ctx := context.Background()
	files, perFile := benchShape()
	for range b.N {
		b.StopTimer()
		e := newEnv(b)
		tbl := e.createTable(b, "bench", false, nil)
		sc := arrowSchemaOf(b, tbl)
		txn := tbl.NewTransaction()
		for i := range files {
			at := rows(sc, int64(i*perFile), int64((i+1)*perFile))
			if err := txn.AppendTable(ctx, at, int64(perFile), nil); err != nil {
				b.Fatal(err)
			}
			at.Release()
		}
		if _, err := txn.Commit(ctx); err != nil {
			b.Fatal(err)
		}
		j := e.job(b, JobCompact, "bench", map[string]string{"min_input_files": "2"})
		resetPeak()
		b.StartTimer()
		start := time.Now()
		out, err := j.Run(ctx)
		took := time.Since(start)
		b.StopTimer()
		if err != nil {
			b.Fatal(err)
		}
		n, _ := strconv.ParseInt(out.Result["rows"], 10, 64)
		if n != int64(files*perFile) {
			b.Fatalf("compacted %d rows, want %d (%s)", n, files*perFile, out.Summary)
		}
		b.ReportMetric(float64(n)/took.Seconds(), "rows/s")
		b.ReportMetric(float64(peakRSS())/(1<<20), "peakRSS-MiB")
		b.Logf("%s in %s", out.Summary, took.Round(time.Millisecond))
	}
}

// BenchmarkDetectSweep runs detection sweeps per job type over N tables
// with one append each (FLOE_BENCH_TABLES, default 200; the figure
// is for 1,000) and reports seconds per sweep: "fresh" reads every table
// as the worker did before it remembered anything, "first" is a new
// worker's first sweep, "again" the next one over unchanged tables.
func BenchmarkDetectSweep(b *testing.B) {
	ctx := context.Background()
	n := 200
	if v, err := strconv.Atoi(os.Getenv("FLOE_BENCH_TABLES")); err == nil && v > 0 {
		n = v
	}
	e := newEnv(b)
	for i := range n {
		tbl := e.createTable(b, "t"+strconv.Itoa(i), true, nil)
		appendRows(b, tbl, 0, 6)
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	sweep := func(b *testing.B, jt string, memo *sweepMemo) time.Duration {
		var obs, props int
		start := time.Now()
		errText := Detect(ctx, log, &pluginpb.Detect{JobType: jt, Cluster: &pluginpb.ClusterContext{IcebergRestUrl: e.url, ApiKey: e.key}},
			&catalogs{}, LocalFiles{}, memo, DetectOut{
				Proposals:    func(p []*pluginpb.Proposal) { props += len(p) },
				Observations: func(o []*pluginpb.Observation) { obs += len(o) },
			})
		took := time.Since(start)
		if errText != "" || obs != n {
			b.Fatalf("sweep: %q, %d observations of %d tables", errText, obs, n)
		}
		return took
	}
	for _, jt := range []string{JobCompact, JobOrphans} {
		b.Run(jt, func(b *testing.B) {
			for range b.N {
				fresh := sweep(b, jt, nil)
				memo := newSweepMemo()
				first := sweep(b, jt, memo)
				again := sweep(b, jt, memo)
				b.ReportMetric(fresh.Seconds(), "s/fresh-sweep")
				b.ReportMetric(first.Seconds(), "s/first-sweep")
				b.ReportMetric(again.Seconds(), "s/next-sweep")
				b.Logf("%s over %d tables: fresh %s, first with memo %s, next %s (%.1fx faster than fresh)", jt, n,
					fresh.Round(time.Millisecond), first.Round(time.Millisecond), again.Round(time.Millisecond), fresh.Seconds()/again.Seconds())
			}
		})
	}
}
