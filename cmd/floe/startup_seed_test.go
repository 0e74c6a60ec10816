package main

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/persist"
	"github.com/floe/floe/warehouse"
)

// A catalog for the start-up tests, spread over seedBuckets buckets of
// both formats in namespaces of seedNSSize tables, each table with the
// latest observation a worker would have left and one kept point.
//
// The first seedTemplate tables are made through the catalog's own API
// (catalog.Store.CreateTables, as a bulk load makes them). Making 200,000
// that way takes minutes on this machine (each is a row in five indexes and
// a trigram index: 300-500 µs of SQLite's work), so the rest are copies of
// those rows the database makes itself, into namespaces made through the
// API: the same columns and the same triggers (counts, generation, search)
// as CreateTables' rows, only a different namespace, id and location.
const (
	seedBuckets  = 4
	seedNSSize   = 1_000
	seedTemplate = seedBuckets * seedNSSize // one namespace a bucket
)

func seedFormat(bucket int) catalog.Format {
	if bucket%2 == 0 {
		return catalog.FormatLance
	}
	return catalog.FormatIceberg
}

// seedAttributes are what a worker reports of each format (a schema, a
// few versions): a realistic few hundred bytes to a couple of KB per table.
var seedAttributes = map[catalog.Format]string{
	catalog.FormatLance: `{"rows":125000,"fragments":12,"small_fragments":3,"version":42,"versions":42,"bytes":73400320,` +
		`"schema":[{"name":"id","type":"int64","nullable":false},{"name":"title","type":"string","nullable":true},` +
		`{"name":"vector","type":{"name":"fixed_size_list","size":768},"nullable":true},{"name":"ts","type":"timestamp[us]","nullable":true}],` +
		`"indices":[{"name":"vector_idx","type":"IVF_PQ","columns":["vector"],"indexed_rows":120000,"unindexed_rows":5000}],` +
		`"history":[` + seedHistory(10) + `]}`,
	catalog.FormatIceberg: `{"rows":125000,"data_files":40,"small_files":6,"data_bytes":73400320,"snapshots":17,` +
		`"current_snapshot_id":8723641928374,"manifests":5,"last_updated_ms":1764000000000}`,
}

func seedHistory(n int) string {
	s := ""
	for i := range n {
		if i > 0 {
			s += ","
		}
		s += fmt.Sprintf(`{"version":%d,"timestamp":%d,"rows":%d,"fragments":%d,"bytes":%d}`, 33+i, 1764000000000+int64(i)*60000, 120000+i*500, 10+i/5, 70000000+i*300000)
	}
	return s
}

// seedStorage is the store the seeding creates tables on: it keeps
// nothing, so the seeding measures the catalog's database, which is all
// start-up reads, rather than 200,000 directories and marker files on a
// shared disk. A Lance table it "prepares" is reserved, not yet written,
// as on a real store. Only what CreateTables asks is answered; anything
// else would mean the seeding does more than create tables, and panics
// on the nil Backend.
type seedStorage struct{ warehouse.Backend }

func (seedStorage) Exists(context.Context, warehouse.Location) (bool, error)    { return false, nil }
func (seedStorage) WriteFile(context.Context, warehouse.Location, []byte) error { return nil }

// seedCatalog makes a catalog of n tables under data, where floe serve
// --data data finds it, and an observation of each.
func seedCatalog(t testing.TB, data string, n int) {
	t.Helper()
	ctx := context.Background()
	wh, err := filepath.Abs(filepath.Join(data, "warehouse"))
	if err != nil {
		t.Fatal(err)
	}
	db, st, err := openStoreAt(ctx, dataPaths{Data: data, Catalog: filepath.Join(data, "catalog.db"), Warehouse: wh}, seedStorage{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	defer st.Close()
	t0 := time.Now()
	for b := range seedBuckets {
		if _, err := st.CreateBucket(ctx, catalog.CreateBucketInput{Name: fmt.Sprintf("s%02d", b), Format: seedFormat(b)}); err != nil {
			t.Fatal(err)
		}
	}
	batch := make([]catalog.CreateTableInput, 0, catalog.MaxCreateTables)
	flush := func() {
		if _, err := st.CreateTables(ctx, batch); err != nil {
			t.Fatal(err)
		}
		batch = batch[:0]
	}
	for ns := 0; ns*seedNSSize < n; ns++ {
		b := ns % seedBuckets
		bucket, name := fmt.Sprintf("s%02d", b), fmt.Sprintf("n%04d", ns)
		if _, err := st.CreateNamespace(ctx, bucket, []string{name}, nil); err != nil {
			t.Fatal(err)
		}
		size := min(seedNSSize, n-ns*seedNSSize)
		if ns*seedNSSize >= seedTemplate {
			if len(batch) > 0 {
				flush() // the templates first
			}
			copyNamespace(t, db, bucket, fmt.Sprintf("n%04d", b), name, ns, size)
			continue
		}
		for i := range size {
			batch = append(batch, catalog.CreateTableInput{Format: seedFormat(b),
				TableRef: catalog.TableRef{Bucket: bucket, Namespace: []string{name}, Name: fmt.Sprintf("t%04d", i)}})
			if len(batch) == cap(batch) {
				flush()
			}
		}
	}
	if len(batch) > 0 {
		flush()
	}
	tables := time.Since(t0)
	// The observations as a detection sweep leaves them: one a table, a
	// minute apart at most. Copied by the database from the tables' rows,
	// since storing them through the plugin channel would only measure
	// ingest; the rows are the ones observe itself writes.
	now := persist.Micros(time.Now())
	err = db.Write(ctx, func(tx *persist.Tx) error {
		if err := seedPragmas(ctx, tx); err != nil {
			return err
		}
		for f, attrs := range seedAttributes {
			if _, err := tx.ExecContext(ctx, `INSERT INTO observations(object_id, format, observed_at, worker_id, attributes_json)
				SELECT id, format, ? - (rowid % 60000000), 'seed-worker', ? FROM tables WHERE format = ?`, now, attrs, string(f)); err != nil {
				return err
			}
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO observation_points(object_id, format, observed_at, row_count, bytes, version)
			SELECT object_id, format, observed_at, 125000, 73400320, 42 FROM observations`)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("seeded %d tables in %s, their observations in %s", n, tables.Round(time.Millisecond), (time.Since(t0) - tables).Round(time.Millisecond))
}

// copyNamespace copies the first size tables of the template namespace of
// bucket into namespace to (the ns-th). A copy's id is its template's with
// the first eight hex digits replaced by ns (unique: the templates' ids
// differ in the rest), its location the template's in the new namespace.
func copyNamespace(t testing.TB, db *persist.DB, bucket, template, to string, ns, size int) {
	t.Helper()
	ctx := context.Background()
	err := db.Write(ctx, func(tx *persist.Tx) error {
		if err := seedPragmas(ctx, tx); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO tables(id, bucket, namespace, name, format, location, metadata_location,
				version_token, state, properties, created_at, modified_at, tags)
			SELECT printf('%08x', ?) || substr(id, 9), bucket, ?, name, format, replace(location, '/' || namespace || '/', '/' || ? || '/'),
				metadata_location, version_token, state, properties, created_at, modified_at, tags
			FROM tables WHERE bucket = ? AND namespace = ? ORDER BY name LIMIT ?`, ns, to, to, bucket, template, size)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// seedPragmas keeps a seeding transaction's statement journal in memory and
// its indexes in a 256 MB cache: on the seeding's connection only (floe
// serve opens its own), where they halve the time of a bulk copy.
func seedPragmas(ctx context.Context, tx *persist.Tx) error {
	for _, p := range []string{`PRAGMA temp_store = MEMORY`, `PRAGMA cache_size = -262144`} {
		if _, err := tx.ExecContext(ctx, p); err != nil {
			return err
		}
	}
	return nil
}
