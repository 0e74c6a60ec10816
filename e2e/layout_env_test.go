package e2e

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/catalog/rest"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/test/bufconn"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/icebergrest"
	"github.com/floe/floe/internal/dbschema"
	"github.com/floe/floe/internal/lancetest"
	"github.com/floe/floe/internal/runtest"
	"github.com/floe/floe/lancecommit"
	"github.com/floe/floe/observe"
	"github.com/floe/floe/persist/persisttest"
	"github.com/floe/floe/plugin"
	"github.com/floe/floe/plugin/pluginpb"
	"github.com/floe/floe/plugin/plugintest"
	"github.com/floe/floe/preview"
	"github.com/floe/floe/tasks"
	"github.com/floe/floe/web"
)

// Names long enough to break a layout that does not wrap or scroll them.
const (
	longBucket = "layout-vectors-with-a-rather-long-bucket-name-for-wrapping"
	longTable  = "a_table_whose_name_goes_on_and_on_without_any_place_to_break_it_xxxxxxxxxxxxxxxx"
)

// layoutWait bounds the waits for jobs to reach the states the pages show.
const layoutWait = 30 * time.Second

// layoutConsole is a console with every page populated: a Lance and an
// Iceberg bucket, a Lance table with finished and failed maintenance tasks,
// and jobs in every state a badge exists for (one with a long JSON result).
type layoutConsole struct {
	url      string
	lanceTbl catalog.Table
	longJob  string // a succeeded job with a long result
	obs      *observe.Store
	store    *catalog.Store
}

type taskRunner struct{ p *plugin.Plugin }

func (r taskRunner) SubmitJob(ctx context.Context, typ, obj string, params map[string]string) (string, error) {
	j, err := r.p.SubmitJob(ctx, plugin.JobSpec{Type: typ, ObjectID: obj, Parameters: params, Lane: "lance"})
	return j.ID, err
}

func startLayoutConsole(t *testing.T) layoutConsole {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	pdb := persisttest.OpenAt(t, filepath.Join(dir, "catalog.db"), dbschema.All()...)
	store, err := catalog.New(pdb, catalog.Options{Warehouse: filepath.Join(dir, "warehouse")})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := store.EnsureAdmin(ctx, adminPassword); err != nil {
		t.Fatal(err)
	}
	obs, err := observe.New(pdb, 0)
	if err != nil {
		t.Fatal(err)
	}
	p, err := plugin.New(plugin.Config{DB: pdb, Store: store, Observe: obs, Logger: log, Options: plugin.Options{SchedulerTick: 20 * time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	ts, err := tasks.New(pdb, store, taskRunner{p}, log, tasks.WithSchemas(obs))
	if err != nil {
		t.Fatal(err)
	}
	s, err := web.New(web.Config{DB: pdb, Store: store, Logger: log, Plugin: p, Observe: obs, Preview: preview.New(p, obs), Tasks: ts,
		Surfaces: web.Surfaces{Console: "127.0.0.1:9400", Lance: "127.0.0.1:9101", Iceberg: "127.0.0.1:8181", GRPC: "127.0.0.1:9401"}})
	if err != nil {
		t.Fatal(err)
	}
	runtest.Start(t, obs, p, s)
	srv := httptest.NewServer(s.Handler()) // binds 127.0.0.1
	lis := bufconn.Listen(1 << 20)
	gs := grpc.NewServer()
	p.Register(gs)
	go gs.Serve(lis)
	conn, err := grpc.NewClient("passthrough:///bufnet",
		grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) { return lis.DialContext(ctx) }),
		grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	_, token, err := store.CreateWorkerToken(ctx, "layout-worker")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		s.Close()
		srv.Close()
		conn.Close()
		sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = p.Shutdown(sctx)
		gs.Stop()
		obs.Close()
		store.Close()
	})

	// The scripted worker: compaction succeeds with a long result, cleanup
	// fails with a long error, optimize-indices runs until the test ends.
	var caps []*pluginpb.Capability
	for _, typ := range tasks.Types {
		cp := &pluginpb.Capability{JobType: string(typ), Lane: "lance", CanExecute: true, MaxExecuteSlots: 4}
		if typ == tasks.TypeScalarIndex {
			cp.DescriptorVersion = "v1" // its settings form has fields shown only for FTS
		}
		caps = append(caps, cp)
	}
	longValue := strings.Repeat("fragment-0123456789abcdef-", 12)
	w, err := plugintest.Connect(ctx, conn, plugintest.Config{Token: token, WorkerID: "layout-worker-with-a-long-identifier-0123456789abcdef",
		Capabilities: caps, HeartbeatEvery: time.Second, Descriptors: map[string]*pluginpb.Descriptor{string(tasks.TypeScalarIndex): scalarIndexDescriptor()},
		OnExecute: func(ctx context.Context, job *pluginpb.JobSpec, progress func(*pluginpb.Progress)) *pluginpb.Completed {
			switch job.GetJobType() {
			case string(tasks.TypeCompact):
				return &pluginpb.Completed{JobId: job.GetJobId(), Success: true, Summary: "compacted",
					Result:     map[string]string{"fragments_removed": "12", "rewritten_files": longValue},
					ResultJson: `{"metrics":{"fragments_removed":12,"files":["` + longValue + `","` + longValue + `"]},"note":"` + longValue + `"}`}
			case string(tasks.TypeCleanup):
				return &pluginpb.Completed{JobId: job.GetJobId(), Error: "cleanup refused: " + longValue, Permanent: true}
			}
			progress(&pluginpb.Progress{JobId: job.GetJobId(), State: "running", Percent: 30, Stage: "training"})
			<-ctx.Done()
			return &pluginpb.Completed{JobId: job.GetJobId(), Error: "stopped"}
		}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Close)
	waitUntil(t, "worker connected", func() bool {
		ws := p.Snapshot()
		return len(ws) > 0 && ws[0].Status == plugin.WorkerConnected
	})

	// Catalog: a Lance bucket with a long name and table, an Iceberg table.
	if _, err := store.CreateBucket(ctx, catalog.CreateBucketInput{Name: longBucket, Format: catalog.FormatLance}); err != nil {
		t.Fatal(err)
	}
	if _, err := store.CreateNamespace(ctx, longBucket, []string{"docs"}, nil); err != nil {
		t.Fatal(err)
	}
	tb, _, err := store.CreateTable(ctx, catalog.CreateTableInput{TableRef: catalog.TableRef{Bucket: longBucket, Namespace: []string{"docs"}, Name: longTable}, Format: catalog.FormatLance})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := store.CreateBucket(ctx, catalog.CreateBucketInput{Name: "layout-lake", Format: catalog.FormatIceberg}); err != nil {
		t.Fatal(err)
	}
	createIcebergTable(t, store)
	// The new panels with content: two kept observations (the Trends
	// charts), a long tag (Tags and branches) and a second Iceberg schema
	// (Schema history).
	for i, attrs := range []string{`{"rows": 1000, "bytes": 3145728, "version": 1}`, `{"rows": 1234567, "bytes": 5368709120, "version": 2}`} {
		if _, err := obs.Put(observe.Observation{ObjectID: tb.ID, Format: catalog.FormatLance, WorkerID: "layout-worker",
			ObservedAt: time.Now().Add(time.Duration(i-2) * time.Hour), Attributes: []byte(attrs)}); err != nil {
			t.Fatal(err)
		}
		if err := obs.Flush(ctx); err != nil {
			t.Fatal(err)
		}
	}
	vdir := filepath.Join(strings.TrimPrefix(tb.Location, "file://"), "_versions")
	if err := os.MkdirAll(vdir, 0o755); err != nil {
		t.Fatal(err)
	}
	for v := uint64(1); v <= 2; v++ {
		if err := os.WriteFile(filepath.Join(vdir, catalog.ManifestName(v, true)), lancetest.Manifest(v, 100*v), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := lancecommit.New(store).CreateTag(ctx, tb, "release-candidate-with-a-rather-long-name-0123456789", 2); err != nil {
		t.Fatal(err)
	}
	evolveIcebergSchema(t, store)

	// Jobs in every state.
	done, err := ts.Submit(ctx, tb, tasks.TypeCompact, []byte(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ts.Submit(ctx, tb, tasks.TypeCleanup, []byte(`{"retain_versions": 2}`)); err != nil {
		t.Fatal(err)
	}
	running, err := p.SubmitJob(ctx, plugin.JobSpec{Type: string(tasks.TypeOptimizeIndices), ObjectID: tb.ID, Lane: "lance"})
	if err != nil {
		t.Fatal(err)
	}
	canceled, err := p.SubmitJob(ctx, plugin.JobSpec{Type: "iceberg_expire", Lane: "iceberg"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.CancelJob(ctx, canceled.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := p.SubmitJob(ctx, plugin.JobSpec{Type: "iceberg_rewrite", Lane: "iceberg"}); err != nil { // stays pending: no worker
		t.Fatal(err)
	}
	var longJob string
	waitUntil(t, "jobs settled", func() bool {
		jobs, _, err := p.ListJobs(ctx, plugin.JobFilter{})
		if err != nil {
			return false
		}
		states := map[plugin.JobState]bool{}
		for _, j := range jobs {
			states[j.State] = true
			if j.Type == string(tasks.TypeCompact) && j.State == plugin.JobSucceeded {
				longJob = j.ID
			}
		}
		r, _ := p.GetJob(ctx, running.ID)
		return states[plugin.JobSucceeded] && states[plugin.JobFailed] && r.State == plugin.JobRunning
	})
	// floe serve links job events to tasks; here the test does it.
	jobs, _, err := p.ListJobs(ctx, plugin.JobFilter{})
	if err != nil {
		t.Fatal(err)
	}
	for _, j := range jobs {
		if !j.State.Active() {
			_, _ = ts.OnJobUpdate(ctx, tasks.JobUpdate{JobID: j.ID, State: string(j.State), StartedAt: j.StartedAt,
				CompletedAt: j.FinishedAt, Result: tasks.JobResult(j.ResultJSON, j.Result), Error: j.Error})
		}
	}
	if got, err := ts.Get(ctx, tb.ID, done.ID); err != nil || got.Status != tasks.StatusCompleted {
		t.Fatalf("compaction task %+v, %v", got, err)
	}
	return layoutConsole{url: srv.URL, lanceTbl: tb, longJob: longJob, obs: obs, store: store}
}

func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(layoutWait); !cond(); {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// createIcebergTable makes layout-lake.sales.events through the real
// Iceberg REST catalog with iceberg-go, as an engine would.
func createIcebergTable(t *testing.T, store *catalog.Store) {
	t.Helper()
	ctx := context.Background()
	rs := httptest.NewServer(icebergrest.New(icebergrest.Config{Store: store, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Anonymous: true}).Handler())
	t.Cleanup(rs.Close)
	cat, err := rest.NewCatalog(ctx, "floe", rs.URL, rest.WithWarehouseLocation("layout-lake"))
	if err != nil {
		t.Fatal(err)
	}
	if err := cat.CreateNamespace(ctx, []string{"sales"}, nil); err != nil {
		t.Fatal(err)
	}
	schema := iceberg.NewSchema(0,
		iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int64, Required: true},
		iceberg.NestedField{ID: 2, Name: "a_rather_long_column_name_that_should_wrap_or_scroll_inside_its_card", Type: iceberg.PrimitiveTypes.String},
	)
	if _, err := cat.CreateTable(ctx, []string{"sales", "events"}, schema); err != nil {
		t.Fatalf("iceberg-go create: %v", err)
	}
}

// evolveIcebergSchema gives createIcebergTable's table a second schema
// through the Iceberg REST (a column added, one renamed).
func evolveIcebergSchema(t *testing.T, store *catalog.Store) {
	t.Helper()
	ctx := context.Background()
	rs := httptest.NewServer(icebergrest.New(icebergrest.Config{Store: store, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Anonymous: true}).Handler())
	t.Cleanup(rs.Close)
	cat, err := rest.NewCatalog(ctx, "floe", rs.URL, rest.WithWarehouseLocation("layout-lake"))
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := cat.LoadTable(ctx, []string{"sales", "events"})
	if err != nil {
		t.Fatal(err)
	}
	txn := tbl.NewTransaction()
	if err := txn.UpdateSchema(true, false).RenameColumn([]string{"id"}, "event_id").
		AddColumn([]string{"another_rather_long_column_name_added_by_the_second_schema"}, iceberg.PrimitiveTypes.String, "", false, nil).Commit(); err != nil {
		t.Fatal(err)
	}
	if _, err := txn.Commit(ctx); err != nil {
		t.Fatal(err)
	}
}

// scalarIndexDescriptor is the bundled worker's scalar index settings form
// in short: FTS options shown only while the index type is FTS.
func scalarIndexDescriptor() *pluginpb.Descriptor {
	fts := &pluginpb.VisibleWhen{Field: "index_type", Equals: "FTS"}
	return &pluginpb.Descriptor{JobType: string(tasks.TypeScalarIndex), DescriptorVersion: "v1", DisplayName: "Lance scalar index",
		Form: &pluginpb.Form{Sections: []*pluginpb.FormSection{{Name: "defaults", Title: "Defaults for submitted builds", Fields: []*pluginpb.FormField{
			{Name: "index_type", Label: "Index type", Type: pluginpb.FieldType_FIELD_TYPE_SELECT, DefaultValue: "BTREE",
				Options: []*pluginpb.SelectOption{{Value: "BTREE"}, {Value: "BITMAP"}, {Value: "LABEL_LIST"}, {Value: "FTS"}}},
			{Name: "with_position", Label: "FTS: keep positions", Type: pluginpb.FieldType_FIELD_TYPE_BOOL, DefaultValue: "false", VisibleWhen: fts},
			{Name: "language", Label: "FTS: language", Type: pluginpb.FieldType_FIELD_TYPE_STRING, DefaultValue: "English", Pattern: "[A-Za-z]{2,32}", VisibleWhen: fts},
		}}}}}
}
