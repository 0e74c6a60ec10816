package iceworker

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"
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
	"github.com/floe/floe/icebergrest"
	"github.com/floe/floe/internal/dbschema"
	"github.com/floe/floe/internal/icebergtest"
	"github.com/floe/floe/persist"
	"github.com/floe/floe/persist/persisttest"
)

// testEnv is a real floe catalog on disk behind floe's real Iceberg REST
// handler on 127.0.0.1, and an iceberg-go client writing through it.
type testEnv struct {
	db    *persist.DB
	store *catalog.Store
	url   string
	key   string
	cat   *rest.Catalog
	ice   *Catalog
}

func newEnv(t testing.TB) *testEnv {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	db := persisttest.OpenAt(t, filepath.Join(dir, "catalog.db"), dbschema.All()...)
	store, err := catalog.New(db, catalog.Options{Warehouse: filepath.Join(dir, "warehouse")})
	if err != nil {
		t.Fatalf("open catalog: %v", err)
	}
	t.Cleanup(func() { store.Close() })
	t.Cleanup(func() { icebergtest.CheckReadable(t, filepath.Join(dir, "warehouse")) })
	srv := icebergrest.New(icebergrest.Config{Store: store, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(hs.Close)
	if _, err := store.CreateBucket(ctx, catalog.CreateBucketInput{Name: "lake", Format: catalog.FormatIceberg}); err != nil {
		t.Fatal(err)
	}
	_, key, err := store.CreateAPIKey(ctx, "test", catalog.RoleReadWrite, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	cat, err := rest.NewCatalog(ctx, "floe", hs.URL, rest.WithWarehouseLocation("lake"), rest.WithOAuthToken(key))
	if err != nil {
		t.Fatal(err)
	}
	if err := cat.CreateNamespace(ctx, table.Identifier{"ns"}, nil); err != nil {
		t.Fatal(err)
	}
	ice, err := NewCatalog(hs.URL, key)
	if err != nil {
		t.Fatal(err)
	}
	return &testEnv{db: db, store: store, url: hs.URL, key: key, cat: cat, ice: ice}
}

var eventsSchema = iceberggo.NewSchema(0,
	iceberggo.NestedField{ID: 1, Name: "id", Type: iceberggo.PrimitiveTypes.Int64, Required: true},
	iceberggo.NestedField{ID: 2, Name: "name", Type: iceberggo.PrimitiveTypes.String},
	iceberggo.NestedField{ID: 3, Name: "region", Type: iceberggo.PrimitiveTypes.String},
)

// createTable makes ns.<name>, partitioned by region when partitioned.
func (e *testEnv) createTable(t testing.TB, name string, partitioned bool, props iceberggo.Properties) *table.Table {
	t.Helper()
	opts := []icecatalog.CreateTableOpt{icecatalog.WithProperties(props)}
	if partitioned {
		spec := iceberggo.NewPartitionSpec(iceberggo.PartitionField{SourceIDs: []int{3}, FieldID: 1000, Name: "region", Transform: iceberggo.IdentityTransform{}})
		opts = append(opts, icecatalog.WithPartitionSpec(&spec))
	}
	tbl, err := e.cat.CreateTable(context.Background(), table.Identifier{"ns", name}, eventsSchema, opts...)
	if err != nil {
		t.Fatalf("create table: %v", err)
	}
	return tbl
}

func (e *testEnv) load(t testing.TB, name string) *table.Table {
	t.Helper()
	tbl, err := e.cat.LoadTable(context.Background(), table.Identifier{"ns", name})
	if err != nil {
		t.Fatalf("load %s: %v", name, err)
	}
	return tbl
}

// ref finds the table in floe's index, as detection does.
func (e *testEnv) ref(t testing.TB, name string) TableRef {
	t.Helper()
	refs, err := e.ice.ListTables(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range refs {
		if r.Name == name {
			return r
		}
	}
	t.Fatalf("table %s is not in the index (%d tables)", name, len(refs))
	return TableRef{}
}

// job builds a job on the named table with params over the defaults.
func (e *testEnv) job(t testing.TB, jobType, name string, params map[string]string) *Job {
	t.Helper()
	s, err := readSettings(jobType, "", params)
	if err != nil {
		t.Fatal(err)
	}
	return &Job{Type: jobType, Ref: e.ref(t, name), Settings: s, Catalog: e.ice, Files: LocalFiles{}}
}

// rows builds rows id = from..to-1 with the table's columns (score too
// when withScore).
func rows(sc *arrow.Schema, from, to int64) arrow.Table {
	b := array.NewRecordBuilder(memory.DefaultAllocator, sc)
	defer b.Release()
	for i := from; i < to; i++ {
		b.Field(0).(*array.Int64Builder).Append(i)
		if i%7 == 0 {
			b.Field(1).(*array.StringBuilder).AppendNull()
		} else {
			b.Field(1).(*array.StringBuilder).Append(fmt.Sprintf("n%d", i))
		}
		b.Field(2).(*array.StringBuilder).Append([]string{"eu", "us", "ap"}[(i/3)%3])
		if sc.NumFields() > 3 {
			b.Field(3).(*array.Int64Builder).Append(i * 10)
		}
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	return array.NewTableFromRecords(sc, []arrow.RecordBatch{rec})
}

func arrowSchemaOf(t testing.TB, tbl *table.Table) *arrow.Schema {
	t.Helper()
	sc, err := table.SchemaToArrowSchema(tbl.Schema(), nil, false, false)
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

func appendRows(t testing.TB, tbl *table.Table, from, to int64) *table.Table {
	t.Helper()
	at := rows(arrowSchemaOf(t, tbl), from, to)
	defer at.Release()
	out, err := tbl.AppendTable(context.Background(), at, 1<<20, nil)
	if err != nil {
		t.Fatalf("append %d..%d: %v", from, to, err)
	}
	return out
}

// scanRows reads a snapshot (0: current) as sorted one-line rows: the
// multiset of rows, comparable before and after a rewrite.
func scanRows(t testing.TB, tbl *table.Table, snapshot int64) []string {
	t.Helper()
	var opts []table.ScanOption
	if snapshot != 0 {
		opts = append(opts, table.WithSnapshotID(snapshot))
	}
	at, err := tbl.Scan(opts...).ToArrowTable(context.Background())
	if err != nil {
		t.Fatalf("scan: %v", err)
	}
	defer at.Release()
	var out []string
	tr := array.NewTableReader(at, 1024)
	defer tr.Release()
	for tr.Next() {
		rec := tr.RecordBatch()
		for r := 0; r < int(rec.NumRows()); r++ {
			var cells []string
			for c := 0; c < int(rec.NumCols()); c++ {
				col := rec.Column(c)
				if col.IsNull(r) {
					cells = append(cells, rec.ColumnName(c)+"=null")
				} else {
					cells = append(cells, rec.ColumnName(c)+"="+col.ValueStr(r))
				}
			}
			out = append(out, strings.Join(cells, ","))
		}
	}
	slices.Sort(out)
	return out
}

// snapshotFiles lists the live data files of one snapshot (read here with
// iceberg-go directly, not through the worker's own code).
func snapshotFiles(t testing.TB, tbl *table.Table, s *table.Snapshot) []string {
	t.Helper()
	fs, err := tbl.FS(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	mans, err := s.Manifests(fs)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, m := range mans {
		for e, err := range m.Entries(fs, true) {
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, Canonical(e.DataFile().FilePath()))
		}
	}
	slices.Sort(out)
	return out
}

// tree maps every file under dir to its content hash.
func tree(t testing.TB, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		h := sha256.Sum256(b)
		out[p] = hex.EncodeToString(h[:])
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// plant writes a file aged by age.
func plant(t testing.TB, path string, age time.Duration) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("planted "+path), 0o644); err != nil {
		t.Fatal(err)
	}
	when := time.Now().Add(-age)
	if err := os.Chtimes(path, when, when); err != nil {
		t.Fatal(err)
	}
}

func mustRun(t testing.TB, j *Job) Outcome {
	t.Helper()
	out, err := j.Run(context.Background())
	if err != nil {
		t.Fatalf("%s on %s: %v", j.Type, j.Ref.Ident(), err)
	}
	return out
}

func withProps(p iceberggo.Properties) []icecatalog.CreateTableOpt {
	if p == nil {
		return nil
	}
	return []icecatalog.CreateTableOpt{icecatalog.WithProperties(p)}
}
