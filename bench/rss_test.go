package bench

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/handlers"
	"github.com/floe/floe/internal/dbschema"
	"github.com/floe/floe/internal/runtest"
	"github.com/floe/floe/observe"
	"github.com/floe/floe/persist/persisttest"
	"github.com/floe/floe/plugin"
	"github.com/floe/floe/plugin/pluginpb"
	"github.com/floe/floe/plugin/plugintest"
	"github.com/floe/floe/preview"
	"github.com/floe/floe/tasks"
	"github.com/floe/floe/web"
)

// The load for the console's memory target (RSS ≤ 100 MB): this many
// observed tables, connected workers and submitted jobs.
const (
	rssObservations = 10_000
	rssWorkers      = 10
	rssJobs         = 1_000
	// rssHistory is the versions an observation carries, as the Lance
	// worker's historyLimit.
	rssHistory = 50
)

// rssWait bounds each wait for the console to see a worker: far longer than
// it should take, so only a hang trips it.
const rssWait = 30 * time.Second

// BenchmarkConsoleRSS measures the console process's resident set and Go
// heap after it holds 10,000 Lance observations (one per real table), 10
// connected workers on a real gRPC listener and 1,000 pending jobs, and has
// rendered its workers, jobs and table pages — against the same readings
// taken at the start of the run. It reports; it does not assert.
func BenchmarkConsoleRSS(b *testing.B) {
	for range b.N {
		consoleRSS(b)
	}
}

func consoleRSS(b *testing.B) {
	ctx := context.Background()
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	baseRSS, baseHeap := memNow(b)

	dir := b.TempDir()
	pdb := persisttest.OpenAt(b, filepath.Join(dir, "catalog.db"), dbschema.All()...)
	st, err := catalog.New(pdb, catalog.Options{Warehouse: filepath.Join(dir, "wh")})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	if _, err := st.CreateUser(ctx, "bench", "bench-password", catalog.RoleAdmin); err != nil {
		b.Fatal(err)
	}
	if _, err := st.CreateBucket(ctx, catalog.CreateBucketInput{Name: "bench", Format: catalog.FormatLance}); err != nil {
		b.Fatal(err)
	}
	if _, err := st.CreateNamespace(ctx, "bench", []string{"docs"}, nil); err != nil {
		b.Fatal(err)
	}

	// One real table per observation, so the console's stats and table pages
	// find what they would in production.
	start := time.Now()
	ids := make([]string, rssObservations)
	for i := range ids {
		ref := catalog.TableRef{Bucket: "bench", Namespace: []string{"docs"}, Name: fmt.Sprintf("table_%05d", i)}
		t, _, err := st.CreateTable(ctx, catalog.CreateTableInput{TableRef: ref, Format: catalog.FormatLance})
		if err != nil {
			b.Fatal(err)
		}
		ids[i] = t.ID
	}
	b.Logf("created %d tables in %s", len(ids), time.Since(start).Round(time.Millisecond))

	obs, err := observe.New(pdb, 0)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { obs.Close() })
	start = time.Now()
	now := time.Now()
	for i, id := range ids {
		o := observe.Observation{ObjectID: id, Format: catalog.FormatLance, ObservedAt: now,
			WorkerID: fmt.Sprintf("worker-%02d", i%rssWorkers), Attributes: lanceAttributes(b, i, now)}
		if _, err := obs.Put(o); err != nil {
			b.Fatal(err)
		}
	}
	if err := obs.Flush(ctx); err != nil {
		b.Fatal(err)
	}
	b.Logf("put %d observations (%d bytes each) in %s", obs.Len(), len(lanceAttributes(b, 0, now)), time.Since(start).Round(time.Millisecond))
	obsRSS, obsHeap := memNow(b)
	b.Logf("after tables and observations: RSS %.1f MB, Go heap in use %.1f MB", obsRSS, obsHeap)

	p, err := plugin.New(plugin.Config{DB: pdb, Store: st, Observe: obs, Logger: quiet, LanceURL: "http://127.0.0.1:9101",
		Options: plugin.Options{DisableScheduler: true}})
	if err != nil {
		b.Fatal(err)
	}
	runtest.Start(b, p)
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	serveCtx, stopServe := context.WithCancel(ctx)
	served := make(chan error, 1)
	go func() { served <- p.Serve(serveCtx, lis) }()
	b.Cleanup(func() {
		stopServe()
		if err := <-served; err != nil {
			b.Errorf("plugin serve: %v", err)
		}
	})

	for i := range rssWorkers {
		id := fmt.Sprintf("worker-%02d", i)
		_, token, err := st.CreateWorkerToken(ctx, id)
		if err != nil {
			b.Fatal(err)
		}
		conn, err := grpc.NewClient(lis.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
		if err != nil {
			b.Fatal(err)
		}
		w, err := plugintest.Connect(ctx, conn, plugintest.Config{Token: token, WorkerID: id, Version: "bench",
			Capabilities:   lanceCapabilities(),
			PreviewFormats: []string{"LANCE"},
			Descriptors:    map[string]*pluginpb.Descriptor{"lance_compact": compactDescriptor()}})
		if err != nil {
			b.Fatal(err)
		}
		// Workers close before the listener stops (cleanups run last-first).
		b.Cleanup(func() { w.Close(); conn.Close() })
	}
	waitWorkers(b, p, rssWorkers)

	start = time.Now()
	for i := range rssJobs {
		id := ids[i%len(ids)]
		_, err := p.SubmitJob(ctx, plugin.JobSpec{Type: "lance_compact", ObjectID: id, Lane: "lance",
			DedupeKey:  fmt.Sprintf("bench:%d", i),
			Parameters: map[string]string{"target_rows": "1048576", "task_id": strconv.Itoa(i)},
			Summary:    fmt.Sprintf("compact table_%05d: 42 fragments (40 small), threshold 8", i%len(ids))})
		if err != nil {
			b.Fatal(err)
		}
	}
	b.Logf("submitted %d jobs in %s", rssJobs, time.Since(start).Round(time.Millisecond))

	ts, err := tasks.New(pdb, st, benchRunner{p}, quiet)
	if err != nil {
		b.Fatal(err)
	}
	srv, err := web.New(web.Config{DB: pdb, Store: st, Logger: quiet,
		Surfaces: web.Surfaces{Console: "127.0.0.1:9400", Lance: "127.0.0.1:9101"},
		Stats:    handlers.StatsFromRows(obs), Plugin: p, Observe: obs, Preview: preview.New(p, obs), Tasks: ts})
	if err != nil {
		b.Fatal(err)
	}
	h := srv.Handler()
	cookies := login(b, h)
	for _, path := range []string{"/workers", "/jobs", "/buckets/bench/namespaces/docs",
		"/buckets/bench/namespaces/docs/tables/table_00000"} {
		getOK(b, h, path, cookies)
	}

	afterRSS, afterHeap := memNow(b)
	b.ReportMetric(afterRSS, "rss-MB")
	b.ReportMetric(afterHeap, "heap-MB")
	b.ReportMetric(baseRSS, "base-rss-MB")
	b.ReportMetric(baseHeap, "base-heap-MB")
	b.ReportMetric(afterRSS-baseRSS, "delta-rss-MB")
	b.Logf("RSS baseline %.1f MB, after %.1f MB (Δ %.1f MB); Go heap in use baseline %.1f MB, after %.1f MB (Δ %.1f MB); %d observations, %d workers, %d jobs",
		baseRSS, afterRSS, afterRSS-baseRSS, baseHeap, afterHeap, afterHeap-baseHeap, obs.Len(), len(p.Snapshot()), rssJobs)
}

// memNow collects garbage, returns freed pages to the OS, and reads VmRSS and
// the Go heap in use, both in MB.
func memNow(b *testing.B) (rssMB, heapMB float64) {
	b.Helper()
	runtime.GC()
	debug.FreeOSMemory()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	f, err := os.Open("/proc/self/status")
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		rest, ok := strings.CutPrefix(sc.Text(), "VmRSS:")
		if !ok {
			continue
		}
		kb, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 64)
		if err != nil {
			b.Fatalf("VmRSS %q: %v", rest, err)
		}
		return kb / 1024, float64(ms.HeapInuse) / (1 << 20)
	}
	b.Fatal("no VmRSS in /proc/self/status")
	return 0, 0
}

// lanceAttributes is one observation shaped like the Lance worker's
// (workers/lance/lib/observe.mjs): figures, a 6-field schema, 3 indices and
// a 50-version history. i varies the numbers so no two blobs are equal.
func lanceAttributes(b *testing.B, i int, at time.Time) json.RawMessage {
	b.Helper()
	type field struct {
		Name     string `json:"name"`
		Type     string `json:"type"`
		Nullable bool   `json:"nullable"`
	}
	type index struct {
		Name          string   `json:"name"`
		Type          string   `json:"type"`
		Columns       []string `json:"columns"`
		IndexedRows   int64    `json:"indexed_rows"`
		UnindexedRows int64    `json:"unindexed_rows"`
	}
	type version struct {
		Version   int64  `json:"version"`
		Time      string `json:"time"`
		Rows      int64  `json:"rows"`
		Fragments int64  `json:"fragments"`
		Files     int64  `json:"files"`
		Bytes     int64  `json:"bytes"`
	}
	rows := int64(100_000 + i*37)
	fragments := int64(8 + i%40)
	history := make([]version, rssHistory)
	for v := range history {
		history[v] = version{Version: int64(v + 1), Time: at.Add(time.Duration(v-rssHistory) * time.Hour).UTC().Format(time.RFC3339Nano),
			Rows: rows * int64(v+1) / rssHistory, Fragments: fragments * int64(v+1) / rssHistory, Files: fragments * int64(v+1) / rssHistory,
			Bytes: rows * 48 * int64(v+1) / rssHistory}
	}
	attrs := map[string]any{
		"rows": rows, "fragments": fragments, "small_fragments": fragments / 2, "files": fragments,
		"version": rssHistory, "versions": rssHistory, "oldest_version": 1, "bytes": rows * 48,
		"schema": []field{{"id", "Int64", false}, {"title", "Utf8", true}, {"body", "Utf8", true},
			{"created_at", "Timestamp<MICROSECOND, UTC>", true}, {"score", "Float32", true},
			{"vector", "FixedSizeList<Float32>[384]", true}},
		"indices": []index{
			{"id_idx", "BTree", []string{"id"}, rows - 1000, 1000},
			{"body_idx", "FTS", []string{"body"}, rows - 5000, 5000},
			{"vector_idx", "IvfPq", []string{"vector"}, rows - 20000, 20000}},
		"unindexed_rows": 20000,
		"history":        history,
	}
	raw, err := json.Marshal(attrs)
	if err != nil {
		b.Fatal(err)
	}
	return raw
}

func lanceCapabilities() []*pluginpb.Capability {
	var caps []*pluginpb.Capability
	for _, t := range []string{"lance_compact", "lance_optimize_indices", "lance_cleanup_versions"} {
		caps = append(caps, &pluginpb.Capability{JobType: t, Lane: "lance", CanDetect: true, CanExecute: true,
			MaxDetectSlots: 1, MaxExecuteSlots: 2, DescriptorVersion: "v1", DisplayName: t})
	}
	return caps
}

func compactDescriptor() *pluginpb.Descriptor {
	minV, maxV := 2.0, 100000.0
	return &pluginpb.Descriptor{
		JobType: "lance_compact", DescriptorVersion: "v1", DisplayName: "Compact",
		Form: &pluginpb.Form{Sections: []*pluginpb.FormSection{{Name: "detection", Fields: []*pluginpb.FormField{
			{Name: "min_fragments", Label: "Minimum fragments", Type: pluginpb.FieldType_FIELD_TYPE_INT,
				Min: &minV, Max: &maxV, DefaultValue: "8"},
		}}}},
		Runtime: &pluginpb.RuntimeDefaults{DetectionIntervalSeconds: 600, ExecutionTimeoutSeconds: 3600,
			MaxJobsPerDetection: 10, GlobalConcurrency: 4, PerWorkerConcurrency: 2, Retries: 1, RetryBackoffSeconds: 1},
	}
}

func waitWorkers(b *testing.B, p *plugin.Plugin, n int) {
	b.Helper()
	deadline := time.Now().Add(rssWait)
	for {
		connected := 0
		for _, w := range p.Snapshot() {
			if w.DisconnectedAt.IsZero() {
				connected++
			}
		}
		if connected >= n {
			return
		}
		if time.Now().After(deadline) {
			b.Fatalf("only %d of %d workers connected after %s", connected, n, rssWait)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func getOK(b *testing.B, h http.Handler, path string, cookies []*http.Cookie) {
	b.Helper()
	req := httptest.NewRequest(http.MethodGet, path, nil)
	for _, c := range cookies {
		req.AddCookie(c)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		b.Fatalf("GET %s: %d %s", path, rec.Code, rec.Body.String())
	}
}

// benchRunner submits task API jobs in the lance lane, as floe serve does.
type benchRunner struct{ p *plugin.Plugin }

func (r benchRunner) SubmitJob(ctx context.Context, typ, obj string, params map[string]string) (string, error) {
	j, err := r.p.SubmitJob(ctx, plugin.JobSpec{Type: typ, ObjectID: obj, Parameters: params,
		DedupeKey: "lance-task:" + params["task_id"], Summary: "task API " + typ, Lane: "lance"})
	return j.ID, err
}
