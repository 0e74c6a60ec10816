package web

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	iceberggo "github.com/apache/iceberg-go"
	icecatalog "github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/catalog/rest"
	_ "github.com/apache/iceberg-go/io/gocloud/s3" // registers s3:// for iceberg-go, as an engine embedding it would
	"github.com/apache/iceberg-go/table"
	"golang.org/x/crypto/bcrypt"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/handlers"
	"github.com/floe/floe/icebergrest"
	"github.com/floe/floe/internal/dbschema"
	"github.com/floe/floe/internal/s3test"
	"github.com/floe/floe/persist/persisttest"
	"github.com/floe/floe/warehouse"
)

// s3Rows is how many rows the first append writes: enough for several row
// groups' worth of work, the figure issue 11 names.
const s3Rows = 10000

// newS3Env is newEnv with the warehouse in a real S3 store of the test's own
// (SeaweedFS on loopback), returned so the test can look at its objects.
// Under VendSTS the store runs SeaweedFS's STS and the backend assumes its
// role.
func newS3Env(t *testing.T, mode warehouse.VendMode) (*env, *warehouse.S3) {
	t.Helper()
	var store *s3test.Store
	if mode == warehouse.VendSTS {
		store = s3test.NewWithSTS(t)
	} else {
		store = s3test.New(t)
	}
	ctx := t.Context()
	root, err := warehouse.Parse("s3://" + store.Bucket(t) + "/wh")
	if err != nil {
		t.Fatal(err)
	}
	b, err := warehouse.OpenS3(ctx, root, warehouse.S3Config{Endpoint: store.Endpoint, Region: s3test.Region, PathStyle: true,
		AccessKey: store.AccessKey, SecretKey: store.SecretKey, STSRoleARN: store.RoleARN})
	if err != nil {
		t.Fatal(err)
	}
	dir := templateCopy(t)
	pdb := persisttest.OpenAt(t, filepath.Join(dir, "catalog.db"), dbschema.All()...)
	st, err := catalog.New(pdb, catalog.Options{Warehouse: root.String(), Backend: b, BcryptCost: bcrypt.MinCost})
	if err != nil {
		t.Fatalf("open catalog: %v", err)
	}
	t.Cleanup(func() { st.Close() })
	stats := &fakeStats{m: map[string]handlers.TableStats{}}
	s, err := New(Config{DB: pdb, Store: st, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Surfaces: allSurfaces, Stats: stats})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s.Handler())
	t.Cleanup(srv.Close)
	return &env{t: t, db: pdb, store: st, srv: srv, stats: stats, server: s}, b
}

// scoredArrow is the events schema after evolution: score was added.
var scoredArrow = arrow.NewSchema([]arrow.Field{
	{Name: "id", Type: arrow.PrimitiveTypes.Int64},
	{Name: "name", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "region", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "score", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
}, nil)

func scoredBatch(from, to int64) arrow.Table {
	b := array.NewRecordBuilder(memory.DefaultAllocator, scoredArrow)
	defer b.Release()
	for i := from; i < to; i++ {
		b.Field(0).(*array.Int64Builder).Append(i)
		b.Field(1).(*array.StringBuilder).Append(fmt.Sprintf("n%d", i))
		b.Field(2).(*array.StringBuilder).Append([]string{"eu", "us"}[i%2])
		b.Field(3).(*array.Int64Builder).Append(i * 10)
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	return array.NewTableFromRecords(scoredArrow, []arrow.RecordBatch{rec})
}

// scanColumn reads one int64 column of a full scan, sorted; nulls are -1.
func scanColumn(t *testing.T, ctx context.Context, tbl *table.Table, col string) []int64 {
	t.Helper()
	at, err := tbl.Scan().ToArrowTable(ctx)
	if err != nil {
		t.Fatalf("scan: %v", err)
	}
	defer at.Release()
	var out []int64
	for _, c := range at.Column(at.Schema().FieldIndices(col)[0]).Data().Chunks() {
		a := c.(*array.Int64)
		for i := range a.Len() {
			if a.IsNull(i) {
				out = append(out, -1)
			} else {
				out = append(out, a.Value(i))
			}
		}
	}
	slices.Sort(out)
	return out
}

// TestIcebergGoOnS3: iceberg-go, configured only by what floe's Iceberg
// REST hands it (the LoadTable config with vended keys; no AWS_* in the
// test), appends 10,000 rows into an S3 warehouse, scans them back, adds a
// column, appends again; then the console's table page and Browse Data
// (current and the first snapshot) read the same objects from the store.
//
// It runs with floe's own keys vended and with STS keys limited to the
// table's prefix (s3.session-token in config and storage-credentials).
func TestIcebergGoOnS3(t *testing.T) {
	for _, mode := range []warehouse.VendMode{warehouse.VendStatic, warehouse.VendSTS} {
		t.Run(string(mode), func(t *testing.T) { icebergGoOnS3(t, mode) })
	}
}

func icebergGoOnS3(t *testing.T, mode warehouse.VendMode) {
	for _, k := range []string{"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_ENDPOINT_URL", "AWS_PROFILE"} {
		t.Setenv(k, "")
	}
	t.Setenv("AWS_CONFIG_FILE", filepath.Join(t.TempDir(), "none"))
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", filepath.Join(t.TempDir(), "none"))
	ctx := context.Background()
	e, b := newS3Env(t, mode)
	e.seed("lake", catalog.FormatIceberg, "")

	rs := icebergrest.New(icebergrest.Config{Store: e.store, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Anonymous: true,
		Storage: warehouse.ClientAccess{S3: b, Mode: mode}})
	hs := httptest.NewServer(rs.Handler())
	t.Cleanup(hs.Close)
	cat, err := rest.NewCatalog(ctx, "floe", hs.URL, rest.WithWarehouseLocation("lake"))
	if err != nil {
		t.Fatal(err)
	}
	if err := cat.CreateNamespace(ctx, table.Identifier{"raw"}, nil); err != nil {
		t.Fatalf("create namespace: %v", err)
	}
	schema := iceberggo.NewSchema(0,
		iceberggo.NestedField{ID: 1, Name: "id", Type: iceberggo.PrimitiveTypes.Int64, Required: true},
		iceberggo.NestedField{ID: 2, Name: "name", Type: iceberggo.PrimitiveTypes.String},
		iceberggo.NestedField{ID: 3, Name: "region", Type: iceberggo.PrimitiveTypes.String},
	)
	spec := iceberggo.NewPartitionSpec(iceberggo.PartitionField{SourceIDs: []int{3}, FieldID: 1000, Name: "region", Transform: iceberggo.IdentityTransform{}})
	ident := table.Identifier{"raw", "events"}
	tbl, err := cat.CreateTable(ctx, ident, schema, icecatalog.WithPartitionSpec(&spec))
	if err != nil {
		t.Fatalf("create table: %v", err)
	}
	if loc := tbl.Location(); !strings.HasPrefix(loc, b.Root().String()+"/lake/") {
		t.Fatalf("table location %q is not under the S3 warehouse %s", loc, b.Root())
	}
	// LoadTable with vended credentials: under sts, temporary keys for the
	// table's prefix, in config and in storage-credentials.
	req, _ := http.NewRequest("GET", hs.URL+"/v1/lake/namespaces/raw/tables/events", nil)
	req.Header.Set("X-Iceberg-Access-Delegation", "vended-credentials")
	resp, err := hs.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var load struct {
		Config      map[string]string `json:"config"`
		StorageCred []struct {
			Prefix string            `json:"prefix"`
			Config map[string]string `json:"config"`
		} `json:"storage-credentials"`
	}
	err = json.NewDecoder(resp.Body).Decode(&load)
	resp.Body.Close()
	if err != nil || len(load.StorageCred) != 1 || load.StorageCred[0].Prefix != tbl.Location() {
		t.Fatalf("LoadTable storage-credentials = %+v, %v", load.StorageCred, err)
	}
	if tok := load.Config["s3.session-token"]; (tok != "") != (mode == warehouse.VendSTS) || load.StorageCred[0].Config["s3.session-token"] != tok {
		t.Fatalf("LoadTable s3.session-token %q under --vend-credentials %s", tok, mode)
	}

	if _, err = tbl.AppendTable(ctx, eventsBatch(0, s3Rows), 1024, nil); err != nil {
		t.Fatalf("first append: %v", err)
	}
	reloaded, err := cat.LoadTable(ctx, ident)
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	if got := scanColumn(t, ctx, reloaded, "id"); !slices.Equal(got, seqIDs(0, s3Rows)) {
		t.Fatalf("scan after the first append: %d ids", len(got))
	}

	txn := reloaded.NewTransaction()
	if err := txn.UpdateSchema(true, false).AddColumn([]string{"score"}, iceberggo.PrimitiveTypes.Int64, "", false, nil).Commit(); err != nil {
		t.Fatalf("add column: %v", err)
	}
	if tbl, err = txn.Commit(ctx); err != nil {
		t.Fatalf("commit schema: %v", err)
	}
	if _, err = tbl.AppendTable(ctx, scoredBatch(s3Rows, s3Rows+500), 1024, nil); err != nil {
		t.Fatalf("second append: %v", err)
	}
	reloaded, err = cat.LoadTable(ctx, ident)
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	if got := scanColumn(t, ctx, reloaded, "id"); !slices.Equal(got, seqIDs(0, s3Rows+500)) {
		t.Fatalf("scan after the second append: %d ids", len(got))
	}
	scores := scanColumn(t, ctx, reloaded, "score")
	if n := len(slices.DeleteFunc(slices.Clone(scores), func(v int64) bool { return v != -1 })); n != s3Rows {
		t.Fatalf("rows without score = %d, want %d (the first append's)", n, s3Rows)
	}
	if last := scores[len(scores)-1]; last != (s3Rows+499)*10 {
		t.Fatalf("largest score = %d", last)
	}

	// Every object of the table is in the store, none on the catalog host.
	entry, err := e.table("lake", "raw", "events")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(entry.MetadataLocation, "s3://") {
		t.Fatalf("metadata location %q", entry.MetadataLocation)
	}
	tl, err := warehouse.Parse(entry.Location)
	if err != nil {
		t.Fatal(err)
	}
	var parquet int
	if err := b.List(ctx, tl, func(en warehouse.Entry) error {
		if strings.HasSuffix(en.Loc.Base(), ".parquet") {
			parquet++
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if parquet < 3 {
		t.Fatalf("data files in the store = %d, want at least 3 (two partitions, two appends)", parquet)
	}

	c := e.admin()
	base := "/buckets/lake/namespaces/raw/tables/events"
	page := e.get(c, base)
	if page.status != 200 {
		t.Fatalf("table page: %d %s", page.status, page.body)
	}
	if got := page.text("iceberg-records"); got != "10,500" {
		t.Errorf("records card = %q, want 10,500", got)
	}
	if got := page.text("iceberg-snapshot-count"); got != "2" {
		t.Errorf("snapshot card = %q", got)
	}
	if got := page.text("iceberg-partition-field"); got != "identity(region) AS region" {
		t.Errorf("partition = %q", got)
	}
	if !strings.Contains(page.body, "score") {
		t.Error("the table page's schema does not show the added column score")
	}
	if !strings.Contains(page.body, entry.Location) {
		t.Errorf("the table page does not show the location %s", entry.Location)
	}
	var ids []string
	page.doc.Find(`[data-testid="iceberg-snapshot"]`).Each(func(_ int, s *goquery.Selection) {
		id, _ := s.Attr("data-snapshot")
		ids = append(ids, id)
	})
	if len(ids) != 2 {
		t.Fatalf("snapshots shown = %v", ids)
	}

	data := e.get(c, base+"/data")
	if data.status != 200 || !data.has("data-grid") {
		t.Fatalf("Browse Data: %d %s", data.status, data.body)
	}
	if n := data.doc.Find(`[data-testid="grid-row"]`).Length(); n != 50 {
		t.Errorf("current snapshot rows = %d, want the default 50", n)
	}
	var cols []string
	data.doc.Find(`[data-testid="grid-column"]`).Each(func(_ int, s *goquery.Selection) { v, _ := s.Attr("data-column"); cols = append(cols, v) })
	if strings.Join(cols, ",") != "id,name,region,score" {
		t.Errorf("current grid columns = %v", cols)
	}
	if f := data.text("grid-footer"); !strings.Contains(f, "of 10,500 rows of snapshot "+ids[0]) {
		t.Errorf("current footer = %q", f)
	}

	first := e.get(c, base+"/data?snapshot="+ids[1]+"&limit=100")
	if n := first.doc.Find(`[data-testid="grid-row"]`).Length(); first.status != 200 || n != 100 {
		t.Fatalf("first snapshot rows = %d (status %d) %s", n, first.status, first.text("iceberg-data-error"))
	}
	if f := first.text("grid-footer"); !strings.Contains(f, "of 10,000 rows of snapshot "+ids[1]) {
		t.Errorf("first snapshot footer = %q", f)
	}
}

func seqIDs(from, to int64) []int64 {
	out := make([]int64, 0, to-from)
	for i := from; i < to; i++ {
		out = append(out, i)
	}
	return out
}
