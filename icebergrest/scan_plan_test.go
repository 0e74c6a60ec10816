package icebergrest

import (
	"context"
	"fmt"
	"iter"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	iceberggo "github.com/apache/iceberg-go"
	icecatalog "github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/catalog/rest"
	"github.com/apache/iceberg-go/table"
	"github.com/floe/floe/catalog"
	"github.com/floe/floe/iceberg"
)

// planSchema is the table the planning tests scan: partitioned by region
// (identity) and by the day of ts, so filters prune on both transforms and
// on column bounds (id, score, name).
var planSchema = iceberggo.NewSchema(0,
	iceberggo.NestedField{ID: 1, Name: "id", Type: iceberggo.PrimitiveTypes.Int64, Required: true},
	iceberggo.NestedField{ID: 2, Name: "ts", Type: iceberggo.PrimitiveTypes.TimestampTz, Required: true},
	iceberggo.NestedField{ID: 3, Name: "region", Type: iceberggo.PrimitiveTypes.String},
	iceberggo.NestedField{ID: 4, Name: "score", Type: iceberggo.PrimitiveTypes.Float64},
	iceberggo.NestedField{ID: 5, Name: "name", Type: iceberggo.PrimitiveTypes.String},
)

var planDay0 = time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)

// planRows builds rows id = from..to-1: region cycles eu/us/ap, ts walks
// one day per ten ids from planDay0, score is id mod 100, name "n<id>"
// (null every seventh row).
func planRows(t testing.TB, from, to int64) arrow.Table {
	t.Helper()
	sc, err := table.SchemaToArrowSchema(planSchema, nil, false, false)
	if err != nil {
		t.Fatal(err)
	}
	b := array.NewRecordBuilder(memory.DefaultAllocator, sc)
	defer b.Release()
	for i := from; i < to; i++ {
		b.Field(0).(*array.Int64Builder).Append(i)
		b.Field(1).(*array.TimestampBuilder).Append(arrow.Timestamp(planDay0.Add(time.Duration(i/10) * 24 * time.Hour).UnixMicro()))
		b.Field(2).(*array.StringBuilder).Append([]string{"eu", "us", "ap"}[i%3])
		b.Field(3).(*array.Float64Builder).Append(float64(i % 100))
		if i%7 == 0 {
			b.Field(4).(*array.StringBuilder).AppendNull()
		} else {
			b.Field(4).(*array.StringBuilder).Append(fmt.Sprintf("n%d", i))
		}
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	return array.NewTableFromRecords(sc, []arrow.RecordBatch{rec})
}

// planTable makes ns.<name> with four appends of 30 rows (ids 0..119):
// each append writes one file per (region, day) it touches.
func planTable(t *testing.T, ctx context.Context, cat *rest.Catalog, name string, props iceberggo.Properties) *table.Table {
	t.Helper()
	spec := iceberggo.NewPartitionSpec(
		iceberggo.PartitionField{SourceIDs: []int{3}, FieldID: 1000, Name: "region", Transform: iceberggo.IdentityTransform{}},
		iceberggo.PartitionField{SourceIDs: []int{2}, FieldID: 1001, Name: "ts_day", Transform: iceberggo.DayTransform{}},
	)
	tbl, err := cat.CreateTable(ctx, table.Identifier{"ns", name}, planSchema, icecatalog.WithPartitionSpec(&spec), icecatalog.WithProperties(props))
	if err != nil {
		t.Fatal(err)
	}
	for i := range int64(4) {
		at := planRows(t, i*30, i*30+30)
		if tbl, err = tbl.AppendTable(ctx, at, 1024, nil); err != nil {
			t.Fatal(err)
		}
		at.Release()
	}
	return tbl
}

// planned is what one planning mode of iceberg-go makes of a scan.
func planned(t *testing.T, ctx context.Context, tbl *table.Table, filter iceberggo.BooleanExpression, mode table.ScanPlanningMode) (files []string, ids []int64) {
	t.Helper()
	scan := tbl.Scan(table.WithRowFilter(filter), table.WithScanPlanningMode(mode))
	tasks, err := scan.PlanFiles(ctx)
	if err != nil {
		t.Fatalf("%s planning: %v", mode, err)
	}
	for _, task := range tasks {
		files = append(files, task.File.FilePath())
	}
	slices.Sort(files)
	at, err := tbl.Scan(table.WithRowFilter(filter), table.WithScanPlanningMode(mode)).ToArrowTable(ctx)
	if err != nil {
		t.Fatalf("%s scan: %v", mode, err)
	}
	defer at.Release()
	for _, c := range at.Column(0).Data().Chunks() {
		ids = append(ids, c.(*array.Int64).Int64Values()...)
	}
	slices.Sort(ids)
	return files, ids
}

// TestIssue26ServerSidePlanning: iceberg-go v0.7.0 planning remotely
// (planTableScan, as it does when /v1/config advertises it) reads the same
// files and rows as its own client-side planning, on a table partitioned by
// identity and day with filters on partition columns, on column bounds and
// on both; floe's plan skips exactly the files no row of which can match,
// counted here per filter.
func TestIssue26ServerSidePlanning(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t, true)
	e.bucket(t, "lake", catalog.FormatIceberg)
	cat := newClient(t, e.http.URL, "lake", "")
	if !cat.SupportsPlanTableScan() || !cat.SupportsFullRemoteScanPlanning() {
		t.Fatal("iceberg-go does not see planTableScan and its continuations in /v1/config")
	}
	if err := cat.CreateNamespace(ctx, table.Identifier{"ns"}, nil); err != nil {
		t.Fatal(err)
	}
	tbl := planTable(t, ctx, cat, "events", nil)
	allFiles, allIDs := planned(t, ctx, tbl, iceberggo.AlwaysTrue{}, table.ScanPlanningLocal)
	// 120 ids over 12 days and 3 regions; each append writes a file per
	// (region, day) pair it touches: 3 days × 3 regions = 9 files each.
	if len(allFiles) != 36 || len(allIDs) != 120 {
		t.Fatalf("the table has %d files and %d rows; the test expects 36 and 120", len(allFiles), len(allIDs))
	}
	day := func(d int) time.Time { return planDay0.Add(time.Duration(d) * 24 * time.Hour) }
	ts := func(d int) iceberggo.BooleanExpression {
		return iceberggo.GreaterThanEqual(iceberggo.Reference("ts"), iceberggo.Timestamp(day(d).UnixMicro()))
	}
	cases := []struct {
		name      string
		filter    iceberggo.BooleanExpression
		wantFiles int // files floe plans; the rest it skips
	}{
		{"identity partition: region = eu", iceberggo.EqualTo(iceberggo.Reference("region"), "eu"), 12},
		{"identity partition: region in (eu, ap)", iceberggo.IsIn(iceberggo.Reference("region"), "eu", "ap"), 24},
		{"not region = us", iceberggo.NewNot(iceberggo.EqualTo(iceberggo.Reference("region"), "us")), 24},
		{"day partition: ts >= day 9", ts(9), 9},
		{"day partition: ts < day 2", iceberggo.LessThan(iceberggo.Reference("ts"), iceberggo.Timestamp(day(2).UnixMicro())), 6},
		{"both partitions", iceberggo.NewAnd(iceberggo.EqualTo(iceberggo.Reference("region"), "us"), ts(6)), 6},
		{"bounds: id between 40 and 49", iceberggo.NewAnd(iceberggo.GreaterThanEqual(iceberggo.Reference("id"), int64(40)), iceberggo.LessThanEqual(iceberggo.Reference("id"), int64(49))), 3},
		{"bounds: score > 95", iceberggo.GreaterThan(iceberggo.Reference("score"), float64(95)), 3},
		{"bounds: name = n55 (string bounds: n5 < n55 < n60)", iceberggo.EqualTo(iceberggo.Reference("name"), "n55"), 5},
		{"or of partition and bounds", iceberggo.NewOr(iceberggo.EqualTo(iceberggo.Reference("region"), "ap"), iceberggo.EqualTo(iceberggo.Reference("id"), int64(0))), 13},
		{"nothing matches", iceberggo.EqualTo(iceberggo.Reference("region"), "mars"), 0},
		{"is null on a column never null", iceberggo.IsNull(iceberggo.Reference("region")), 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			localFiles, localIDs := planned(t, ctx, tbl, c.filter, table.ScanPlanningLocal)
			remoteFiles, remoteIDs := planned(t, ctx, tbl, c.filter, table.ScanPlanningRemote)
			if !slices.Equal(remoteIDs, localIDs) {
				t.Fatalf("rows planned by floe %v, by iceberg-go %v", remoteIDs, localIDs)
			}
			if !slices.Equal(remoteFiles, localFiles) {
				t.Fatalf("floe planned %d files, iceberg-go %d:\nfloe %v\niceberg-go %v", len(remoteFiles), len(localFiles), remoteFiles, localFiles)
			}
			if len(remoteFiles) != c.wantFiles {
				t.Fatalf("floe planned %d of %d files, want %d", len(remoteFiles), len(allFiles), c.wantFiles)
			}
		})
	}
	// floe's own count of what it skipped, and why: each append's manifest
	// spans three days, so a day filter skips whole manifests on their
	// partition summaries; region then skips files on their partition, and
	// id on their bounds.
	ref := catalog.TableRef{Bucket: "lake", Namespace: []string{"ns"}, Name: "events"}
	for _, c := range []struct {
		filter string
		want   iceberg.ScanStats
	}{
		{`{"type":"and","left":{"type":"eq","term":"region","value":"us"},"right":{"type":"lt","term":"ts","value":"2026-03-04T00:00:00+00:00"}}`,
			iceberg.ScanStats{Manifests: 4, ManifestsSkipped: 3, DataFiles: 9, SkippedByPartition: 6, Planned: 3}},
		{`{"type":"and","left":{"type":"eq","left":{"type":"reference","name":"region"},"right":"us"},"right":{"type":"lt","left":{"type":"reference","name":"id"},"right":30}}`,
			iceberg.ScanStats{Manifests: 4, DataFiles: 36, SkippedByPartition: 24, SkippedByMetrics: 9, Planned: 3}},
	} {
		res, err := e.srv.plans.Plan(ctx, ref, iceberg.ScanRequest{Filter: []byte(c.filter)})
		if err != nil {
			t.Fatal(err)
		}
		if res.Stats != c.want {
			t.Fatalf("filter %s: stats %+v, want %+v", c.filter, res.Stats, c.want)
		}
	}
}

// TestIssue26ServerSidePlanningDeletes: delete files reach the tasks they
// apply to (a position delete by iceberg-go's merge-on-read Delete, an
// equality delete on id), so a remote plan's scan returns exactly the rows
// a local one does.
func TestIssue26ServerSidePlanningDeletes(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t, true)
	e.bucket(t, "lake", catalog.FormatIceberg)
	cat := newClient(t, e.http.URL, "lake", "")
	if err := cat.CreateNamespace(ctx, table.Identifier{"ns"}, nil); err != nil {
		t.Fatal(err)
	}
	tbl := planTable(t, ctx, cat, "deletes", iceberggo.Properties{"write.delete.mode": "merge-on-read"})
	var err error
	if tbl, err = tbl.Delete(ctx, iceberggo.LessThan(iceberggo.Reference("id"), int64(5)), nil); err != nil {
		t.Fatalf("position delete: %v", err)
	}
	sc := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "ts", Type: &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}},
		{Name: "region", Type: arrow.BinaryTypes.String, Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, sc)
	for _, id := range []int64{40, 41, 100} {
		b.Field(0).(*array.Int64Builder).Append(id)
		b.Field(1).(*array.TimestampBuilder).Append(arrow.Timestamp(planDay0.Add(time.Duration(id/10) * 24 * time.Hour).UnixMicro()))
		b.Field(2).(*array.StringBuilder).Append([]string{"eu", "us", "ap"}[id%3])
	}
	rec := b.NewRecordBatch()
	b.Release()
	defer rec.Release()
	txn := tbl.NewTransaction()
	var batches iter.Seq2[arrow.RecordBatch, error] = func(yield func(arrow.RecordBatch, error) bool) { yield(rec, nil) }
	if err := txn.CommitEqualityDeletes(ctx, []int{1}, batches, nil); err != nil {
		t.Fatalf("equality delete: %v", err)
	}
	if tbl, err = txn.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	for _, f := range []iceberggo.BooleanExpression{iceberggo.AlwaysTrue{}, iceberggo.EqualTo(iceberggo.Reference("region"), "us"), iceberggo.LessThan(iceberggo.Reference("id"), int64(50))} {
		_, local := planned(t, ctx, tbl, f, table.ScanPlanningLocal)
		_, remote := planned(t, ctx, tbl, f, table.ScanPlanningRemote)
		if !slices.Equal(remote, local) {
			t.Fatalf("filter %v: rows by floe's plan %v, by iceberg-go's %v", f, remote, local)
		}
		for _, gone := range []int64{0, 4, 40, 41, 100} {
			if slices.Contains(remote, gone) {
				t.Fatalf("filter %v: deleted row %d is in the remote scan", f, gone)
			}
		}
	}
	ref := catalog.TableRef{Bucket: "lake", Namespace: []string{"ns"}, Name: "deletes"}
	res, err := e.srv.plans.Plan(ctx, ref, iceberg.ScanRequest{})
	if err != nil || res.Stats.DeleteFiles == 0 || len(res.Tasks.DeleteFiles) == 0 {
		t.Fatalf("plan %+v, %v: want the delete files attached", res.Stats, err)
	}
	for _, d := range res.Tasks.DeleteFiles {
		if d.Content != "position-deletes" && d.Content != "equality-deletes" {
			t.Fatalf("delete file %s has content %q", d.FilePath, d.Content)
		}
	}
}

// TestIssue26AsyncPlanning: a plan bigger than the synchronous bound is
// submitted and polled (fetchPlanningResult), and a result bigger than one
// answer comes as plan tasks (fetchScanTasks); iceberg-go drives both and
// reads the same rows as its client-side plan. A cancelled plan answers
// cancelled and its tasks are gone; plan ids and tasks nobody issued are
// the spec's 404s.
func TestIssue26AsyncPlanning(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t, true)
	e.srv.plans.Close()
	e.srv.plans = iceberg.NewScanPlans(e.srv.tables, nil, iceberg.PlanLimits{SyncEntries: 5, TaskSize: 4})
	t.Cleanup(e.srv.plans.Close)
	e.bucket(t, "lake", catalog.FormatIceberg)
	cat := newClient(t, e.http.URL, "lake", "")
	if err := cat.CreateNamespace(ctx, table.Identifier{"ns"}, nil); err != nil {
		t.Fatal(err)
	}
	tbl := planTable(t, ctx, cat, "big", nil)
	for _, f := range []iceberggo.BooleanExpression{iceberggo.AlwaysTrue{}, iceberggo.EqualTo(iceberggo.Reference("region"), "eu")} {
		localFiles, localIDs := planned(t, ctx, tbl, f, table.ScanPlanningLocal)
		remoteFiles, remoteIDs := planned(t, ctx, tbl, f, table.ScanPlanningRemote)
		if !slices.Equal(remoteIDs, localIDs) || !slices.Equal(remoteFiles, localFiles) {
			t.Fatalf("filter %v: floe's async plan read %d files and %d rows, iceberg-go's %d and %d", f, len(remoteFiles), len(remoteIDs), len(localFiles), len(localIDs))
		}
	}

	// The same walk by hand, as the spec lays it out.
	base := "/v1/lake/namespaces/ns/tables/big"
	code, body := e.call(t, "POST", base+"/plan", "", map[string]any{})
	id, _ := body["plan-id"].(string)
	if code != 200 || body["status"] != "submitted" || id == "" {
		t.Fatalf("planTableScan: %d %v; want submitted with a plan id", code, body)
	}
	var result map[string]any
	for range 500 { // the plan reads four small manifests: a few polls
		code, result = e.call(t, "GET", base+"/plan/"+id, "", nil)
		if code != 200 {
			t.Fatalf("fetchPlanningResult: %d %v", code, result)
		}
		if result["status"] != "submitted" {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if result["status"] != "completed" {
		t.Fatalf("the plan did not complete: %v", result)
	}
	seen := len(result["file-scan-tasks"].([]any))
	handles := result["plan-tasks"].([]any)
	if seen != 4 || len(handles) != 8 { // 36 files: 4 inline, 8 plan tasks of up to 4
		t.Fatalf("completed plan: %d inline tasks, %d plan tasks; want 4 and 8", seen, len(handles))
	}
	for _, h := range handles {
		code, tasks := e.call(t, "POST", base+"/tasks", "", map[string]any{"plan-task": h})
		if code != 200 {
			t.Fatalf("fetchScanTasks %v: %d %v", h, code, tasks)
		}
		seen += len(tasks["file-scan-tasks"].([]any))
	}
	if seen != 36 {
		t.Fatalf("the plan's tasks hold %d files, want 36", seen)
	}
	if code, body := e.call(t, "DELETE", base+"/plan/"+id, "", nil); code != 204 {
		t.Fatalf("cancelPlanning: %d %v", code, body)
	}
	if code, body := e.call(t, "GET", base+"/plan/"+id, "", nil); code != 200 || body["status"] != "cancelled" {
		t.Fatalf("a cancelled plan: %d %v", code, body)
	}
	for _, c := range []struct{ method, path, body, typ string }{
		{"POST", base + "/tasks", fmt.Sprintf(`{"plan-task":%q}`, handles[0]), typeNoSuchPlanTask},
		{"GET", base + "/plan/plan-0000", "", typeNoSuchPlanID},
		{"DELETE", base + "/plan/plan-0000", "", typeNoSuchPlanID},
		{"POST", base + "/tasks", `{"plan-task":"zzzz"}`, typeNoSuchPlanTask},
		{"GET", "/v1/lake/namespaces/ns/tables/nope/plan/" + id, "", typeNoSuchTable},
	} {
		var body any
		if c.body != "" {
			body = c.body
		}
		if code, out := e.call(t, c.method, c.path, "", body); code != 404 || errType(out) != c.typ {
			t.Errorf("%s %s: %d %v; want 404 %s", c.method, c.path, code, out, c.typ)
		}
	}
}

// TestIssue26PlanRequestRefusals: a plan request the table cannot answer
// is a 400 with a sentence (no such column, a literal of the wrong type, a
// snapshot that does not exist, a field the request does not have), an
// incremental scan the spec's 406, and nothing is planned.
func TestIssue26PlanRequestRefusals(t *testing.T) {
	e := strictEnv(t)
	base := "/v1/lake/namespaces/ns/tables/t/plan"
	for _, c := range []struct{ name, body, typ, want string }{
		{"no such column", `{"filter":{"type":"eq","term":"nope","value":1}}`, typeBadRequest, `no column is named "nope"`},
		{"wrong literal type", `{"filter":{"type":"eq","term":"id","value":"abc"}}`, typeBadRequest, "not a long"},
		{"unknown predicate", `{"filter":{"type":"like","term":"id","value":1}}`, typeBadRequest, `unknown predicate "like"`},
		{"missing snapshot", `{"snapshot-id":42}`, typeBadRequest, "snapshot 42 does not exist"},
		{"unknown field", `{"filters":true}`, typeBadRequest, `no field "filters"`},
		{"select of no column", `{"select":["nope"]}`, typeBadRequest, "no column"},
		{"deep filter", `{"filter":` + strings.Repeat(`{"type":"not","child":`, 70) + `true` + strings.Repeat(`}`, 70) + `}`, typeBadRequest, "deeper than"},
		{"incremental", `{"start-snapshot-id":1,"end-snapshot-id":2}`, typeUnsupported, "incremental"},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, body := e.call(t, "POST", base, "", c.body)
			msg := errMessage(body)
			if errType(body) != c.typ || !strings.Contains(msg, c.want) || (code != 400 && code != 406) {
				t.Fatalf("%d %v; want %s saying %q", code, body, c.typ, c.want)
			}
		})
	}
	// No body at all is the unfiltered plan of the current snapshot (none).
	if code, body := e.call(t, "POST", base, "", nil); code != 200 || body["status"] != "completed" {
		t.Fatalf("a plan without a body: %d %v", code, body)
	}
}
