package main

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/internal/metricstest"
	"github.com/floe/floe/persist"
	"github.com/floe/floe/plugin"
	"github.com/floe/floe/plugin/pluginpb"
	"github.com/floe/floe/plugin/plugintest"
	"github.com/floe/floe/preview"
	"github.com/floe/floe/s3tables"
	"github.com/floe/floe/warehouse"
	"github.com/floe/floe/web"
)

// metricsWait bounds each wait of the metrics test: far longer than
// anything should take under -race on a loaded machine (no timing asserts).
const metricsWait = 60 * time.Second

// surfaceRequests is one request to each HTTP surface: the path on that
// surface's address. Any answer (most are 401/403: no credentials) is one
// request the surface's series must count.
var surfaceRequests = []struct{ surface, addr, path string }{
	{"console", "http", "/healthz"},
	{"lance", "lance", "/v1/namespace/$/list"},
	{"taskapi", "lance", "/lance/oss/v1/tasks"},
	{"iceberg", "iceberg", "/v1/config"},
	{"s3tables", "s3tables", "/buckets"},
}

// TestMetricsOfARunningFloe starts floe serve with every surface, sends one
// request to each, connects a worker over the real gRPC port, runs one
// detection and the job it proposes, reports an observation and fetches a
// preview; then it parses /metrics (the text exposition, with expfmt) and
// asserts every family floe exports and its labels, and holds the shipped
// Grafana dashboard against those families.
func TestMetricsOfARunningFloe(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	cfg := serveConfig{HTTP: "127.0.0.1:0", GRPC: "127.0.0.1:0", Lance: "127.0.0.1:0", Iceberg: "127.0.0.1:0", Metrics: "127.0.0.1:0",
		S3: s3tablesConfig{Addr: "127.0.0.1:0", Region: s3tables.DefaultRegion, Account: s3tables.DefaultAccount}}
	s, err := startServer(ctx, cfg, dataPaths{Data: dir, Catalog: filepath.Join(dir, "catalog.db"), Warehouse: filepath.Join(dir, "warehouse")}, log)
	if err != nil {
		t.Fatal(err)
	}
	ran := make(chan error, 1)
	go func() { ran <- s.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-ran; err != nil {
			t.Errorf("run: %v", err)
		}
		if err := s.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	addrs := map[string]string{}
	for _, h := range s.https {
		addrs[h.name] = h.ln.Addr().String()
	}

	for _, r := range surfaceRequests {
		resp, err := http.Get("http://" + addrs[r.addr] + r.path)
		if err != nil {
			t.Fatalf("%s: %v", r.surface, err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}

	const jobType = "lance_compact"
	w := connectWorker(t, ctx, s, plugintest.Config{WorkerID: "w-metrics", PreviewFormats: []string{"LANCE"},
		Capabilities: []*pluginpb.Capability{{JobType: jobType, Lane: plugin.LaneLance, CanDetect: true, CanExecute: true, MaxExecuteSlots: 1}},
		OnDetect: func(context.Context, *pluginpb.Detect) ([]*pluginpb.Proposal, error) {
			return []*pluginpb.Proposal{{ObjectId: "t-metrics", DedupeKey: "compact:t-metrics"}}, nil
		},
		OnPreview: func(context.Context, *pluginpb.Preview) ([][]byte, *pluginpb.PreviewDone) {
			return [][]byte{oneRowIPC(t)}, &pluginpb.PreviewDone{TotalRows: 1, RowsSent: 1}
		},
	})
	res, err := s.svc.plugin.RunNow(ctx, jobType)
	if err != nil || len(res.Created) != 1 {
		t.Fatalf("RunNow = %+v, %v", res, err)
	}
	waitFor(t, "the job to succeed", func() bool {
		j, err := s.svc.plugin.GetJob(ctx, res.Created[0].ID)
		return err == nil && j.State == plugin.JobSucceeded
	})
	w.Observe(&pluginpb.Observation{ObjectId: "t-metrics", Format: "LANCE", AttributesJson: `{"rows":1}`, ObservedAtUnixMs: time.Now().UnixMilli()})
	waitFor(t, "the observation", func() bool { _, ok := s.svc.observe.Get("t-metrics", catalog.FormatLance); return ok })
	if _, err := s.svc.preview.Fetch(ctx, preview.Request{ObjectID: "t-metrics", Format: catalog.FormatLance}); err != nil {
		t.Fatalf("preview: %v", err)
	}

	resp, err := http.Get("http://" + addrs["metrics"] + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	mfs, err := metricstest.Parse(resp.Body)
	resp.Body.Close()
	if err != nil {
		t.Fatalf("/metrics is not the text exposition format: %v", err)
	}

	for _, r := range surfaceRequests {
		if _, counted := metricstest.Value(mfs, "floe_http_requests_total", labels{"surface": r.surface}); !counted {
			t.Errorf("the %s request is not in floe_http_requests_total: %s", r.surface, metricstest.Samples(mfs["floe_http_requests_total"]))
		}
		metricstest.Must(t, mfs, "floe_http_request_duration_seconds", labels{"surface": r.surface})
	}
	if _, old := mfs["floe_console_requests_total"]; old {
		t.Error("/metrics still carries the console's own floe_console_requests_total; its requests are on floe_http_requests_total")
	}
	hasLabels(t, mfs, "floe_http_requests_total", "surface", "route", "status")
	hasLabels(t, mfs, "floe_http_request_duration_seconds", "surface", "route")

	atLeast := func(name string, ls labels, want float64) {
		t.Helper()
		if got := metricstest.Must(t, mfs, name, ls); got < want {
			t.Errorf("%s%s = %v, want at least %v", name, metricstest.Labels(ls), got, want)
		}
	}
	atLeast("floe_jobs_created_total", labels{"type": jobType, "source": plugin.SourceRunNow}, 1)
	atLeast("floe_jobs_finished_total", labels{"type": jobType, "outcome": "succeeded"}, 1)
	atLeast("floe_job_queue_wait_seconds", labels{"type": jobType}, 1)
	atLeast("floe_job_run_seconds", labels{"type": jobType, "outcome": "succeeded"}, 1)
	atLeast("floe_detection_duration_seconds", labels{"type": jobType, "outcome": "ok"}, 1)
	atLeast("floe_jobs_pending", labels{"type": jobType}, 0)
	atLeast("floe_jobs_running", labels{"type": jobType}, 0)
	atLeast("floe_workers_connected", labels{"lane": "lance"}, 1)
	atLeast("floe_workers_connected", labels{"lane": "iceberg"}, 0)
	atLeast("floe_observations_ingested_total", labels{"format": "lance", "outcome": "stored"}, 1)
	atLeast("floe_preview_duration_seconds", labels{"format": "lance", "outcome": "ok"}, 1)
	atLeast("floe_database_up", labels{"backend": "sqlite"}, 1)
	atLeast("floe_storage_up", labels{"backend": "local"}, 1)
	atLeast("go_goroutines", nil, 1)
	// The connection limits: every listener's series, the scrape's own
	// connection counted on the metrics listener.
	atLeast("floe_connections_open", labels{"surface": "metrics"}, 1)
	for _, surface := range []string{"console", "lance", "iceberg", "s3tables", "grpc"} {
		atLeast("floe_connections_open", labels{"surface": surface}, 0)
		for _, reason := range []string{"evicted", "refused", "idle_deadline"} {
			atLeast("floe_connections_shed_total", labels{"surface": surface, "reason": reason}, 0)
		}
	}

	// Labels name job types, sources, lanes, formats, outcomes, surfaces,
	// routes and statuses: never a table, job or worker id.
	for name, mf := range mfs {
		for _, m := range mf.GetMetric() {
			for _, l := range m.GetLabel() {
				if v := l.GetValue(); v == "t-metrics" || v == res.Created[0].ID || v == "w-metrics" {
					t.Errorf("%s carries the id %q in label %s", name, v, l.GetName())
				}
			}
		}
	}

	checkDashboard(t, mfs)
}

type labels = map[string]string

// hasLabels fails unless every sample of the family carries the names.
func hasLabels(t *testing.T, mfs map[string]*dto.MetricFamily, family string, names ...string) {
	t.Helper()
	for _, m := range mfs[family].GetMetric() {
		have := map[string]bool{}
		for _, l := range m.GetLabel() {
			have[l.GetName()] = true
		}
		for _, n := range names {
			if !have[n] {
				t.Errorf("a %s sample lacks the label %s", family, n)
			}
		}
	}
}

// connectWorker dials the server's plugin channel like a worker, with a
// fresh worker token, and waits until the server lists it.
func connectWorker(t *testing.T, ctx context.Context, s *server, cfg plugintest.Config) *plugintest.Worker {
	t.Helper()
	_, token, err := s.st.CreateWorkerToken(ctx, "metrics-test")
	if err != nil {
		t.Fatal(err)
	}
	conn, err := grpc.NewClient(s.surfaces.GRPC, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	cfg.Token = token
	w, err := plugintest.Connect(ctx, conn, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Close)
	waitFor(t, "the worker to connect", func() bool { return s.svc.plugin.Connected(cfg.WorkerID) })
	return w
}

// waitFor polls cond until it holds or metricsWait passes.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(metricsWait)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond) // polling interval, not an assertion
	}
}

// oneRowIPC is an Arrow IPC stream of one row with one int64 column.
func oneRowIPC(t *testing.T) []byte {
	schema := arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64}}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	b.Field(0).(*array.Int64Builder).Append(1)
	rec := b.NewRecordBatch()
	defer rec.Release()
	ipc, err := plugintest.EncodeIPC(schema, rec)
	if err != nil {
		t.Error(err)
	}
	return ipc
}

// fakeStorage is a warehouse health watch whose last answer the test sets.
type fakeStorage struct{ ok bool }

func (f fakeStorage) Check(context.Context) warehouse.HealthStatus { return f.Status() }
func (f fakeStorage) Status() warehouse.HealthStatus {
	return warehouse.HealthStatus{OK: f.ok, Reason: "test"}
}

// TestUpGauges: the availability gauges fall to 0 when what they watch is
// gone — a closed database, a store whose last check failed, a missing
// warehouse directory — and stand at 1 otherwise.
func TestUpGauges(t *testing.T) {
	dir := t.TempDir()
	db, err := persist.Open(context.Background(), persist.Options{Path: filepath.Join(dir, "c.db")})
	if err != nil {
		t.Fatal(err)
	}
	closed, err := persist.Open(context.Background(), persist.Options{Path: filepath.Join(dir, "closed.db")})
	if err != nil {
		t.Fatal(err)
	}
	closed.Close()
	t.Cleanup(func() { db.Close() })
	for _, c := range []struct {
		name            string
		db              *persist.DB
		storage         web.StorageHealth
		warehouse       string
		backend         string
		wantDB, wantSto float64
	}{
		{"all up, local", db, nil, dir, "local", 1, 1},
		{"database closed", closed, nil, dir, "local", 0, 1},
		{"local warehouse missing", db, nil, filepath.Join(dir, "gone"), "local", 1, 0},
		{"s3 store answered", db, fakeStorage{ok: true}, "s3://b/p", "s3", 1, 1},
		{"s3 store did not answer", db, fakeStorage{ok: false}, "s3://b/p", "s3", 1, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			reg := prometheus.NewRegistry()
			if err := registerUpGauges(reg, c.db, c.storage, c.warehouse); err != nil {
				t.Fatal(err)
			}
			mfs := metricstest.Families(t, reg)
			if got := metricstest.Must(t, mfs, "floe_database_up", labels{"backend": "sqlite"}); got != c.wantDB {
				t.Errorf("floe_database_up = %v, want %v", got, c.wantDB)
			}
			if got := metricstest.Must(t, mfs, "floe_storage_up", labels{"backend": c.backend}); got != c.wantSto {
				t.Errorf("floe_storage_up = %v, want %v", got, c.wantSto)
			}
		})
	}
}
