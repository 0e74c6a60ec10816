package bench

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/internal/dbschema"
	"github.com/floe/floe/persist"
	"github.com/floe/floe/warehouse"
)

// The scale benchmark's catalog: 100 buckets, half of them for Lance tables
// and half for Iceberg ones. b00 holds the namespace "wide", which the list
// and console figures read and which grows with the catalog (a tenth of it,
// at least 1,000 tables); b01's namespace "probe" holds the Iceberg tables
// LoadTable reads (created through the Iceberg REST, so they carry real
// metadata); the rest fills namespaces of 1,000 tables across b02–b99.
const (
	scaleBuckets   = 100
	scaleNSSize    = 1_000
	scaleProbe     = 100 // Iceberg tables with metadata
	scaleBatch     = catalog.MaxCreateTables
	scaleWideShare = 10 // the wide namespace holds 1/scaleWideShare of the catalog
)

func scaleBucket(i int) string { return fmt.Sprintf("b%02d", i) }

// scaleFormat is bucket i's format: even ones Lance, odd ones Iceberg.
func scaleFormat(i int) catalog.Format {
	if i%2 == 0 {
		return catalog.FormatLance
	}
	return catalog.FormatIceberg
}

func wideName(i int) string { return fmt.Sprintf("t%07d", i) }

// seeder grows one catalog stage by stage through the catalog's own API in
// this process (catalog.Store.CreateTables, batches of 10,000 in one
// transaction each), with floe serve stopped.
type seeder struct {
	data, dsn string // the data directory; the catalog (a SQLite file or a PostgreSQL URL)
	wide      int    // tables in b00/wide
	filler    int    // tables in the filler namespaces
	fillerNS  int    // filler namespaces made
	lance     []catalog.TableRef
	took      time.Duration // seeding time so far
}

// total is every table in the catalog.
func (s *seeder) total() int { return s.wide + s.filler + scaleProbe }

// open opens the catalog store the way floe serve finds it: the same
// database and the warehouse directory under the data directory.
func (s *seeder) open(b *testing.B) (*catalog.Store, func()) {
	b.Helper()
	ctx := context.Background()
	db, err := persist.Open(ctx, persist.Options{Path: s.dsn})
	if err != nil {
		b.Fatal(err)
	}
	if err := db.Migrate(ctx, dbschema.All()...); err != nil {
		b.Fatal(err)
	}
	local, err := warehouse.OpenLocal(filepath.Join(s.data, "warehouse"))
	if err != nil {
		b.Fatal(err)
	}
	st, err := catalog.New(db, catalog.Options{Warehouse: local.Root().String(), Backend: local})
	if err != nil {
		b.Fatal(err)
	}
	return st, func() { st.Close(); local.Close(); db.Close() }
}

// grow adds tables until the catalog holds total (the probe tables count
// though floe serve creates them).
func (s *seeder) grow(b *testing.B, total int) {
	b.Helper()
	ctx := context.Background()
	st, done := s.open(b)
	defer done()
	t0 := time.Now()
	if s.wide == 0 {
		for i := range scaleBuckets {
			if _, err := st.CreateBucket(ctx, catalog.CreateBucketInput{Name: scaleBucket(i), Format: scaleFormat(i)}); err != nil {
				b.Fatal(err)
			}
		}
		for _, ns := range [][2]string{{scaleBucket(0), "wide"}, {scaleBucket(1), "probe"}} {
			if _, err := st.CreateNamespace(ctx, ns[0], []string{ns[1]}, nil); err != nil {
				b.Fatal(err)
			}
		}
	}
	wide := max(scaleNSSize, total/scaleWideShare)
	var batch []catalog.CreateTableInput
	flush := func() {
		if len(batch) == 0 {
			return
		}
		if _, err := st.CreateTables(ctx, batch); err != nil {
			b.Fatal(err)
		}
		for _, in := range batch {
			if in.Format == catalog.FormatLance {
				s.lance = append(s.lance, in.TableRef)
			}
		}
		batch = batch[:0]
	}
	add := func(in catalog.CreateTableInput) {
		batch = append(batch, in)
		if len(batch) == scaleBatch {
			flush()
		}
	}
	for ; s.wide < wide; s.wide++ {
		add(catalog.CreateTableInput{Format: catalog.FormatLance,
			TableRef: catalog.TableRef{Bucket: scaleBucket(0), Namespace: []string{"wide"}, Name: wideName(s.wide)}})
	}
	for s.total() < total {
		if s.filler%scaleNSSize == 0 {
			flush()
			bucket := 2 + s.fillerNS%(scaleBuckets-2)
			if _, err := st.CreateNamespace(ctx, scaleBucket(bucket), []string{fmt.Sprintf("n%05d", s.fillerNS)}, nil); err != nil {
				b.Fatal(err)
			}
			s.fillerNS++
		}
		ns := s.fillerNS - 1
		bucket := 2 + ns%(scaleBuckets-2)
		add(catalog.CreateTableInput{Format: scaleFormat(bucket), TableRef: catalog.TableRef{
			Bucket: scaleBucket(bucket), Namespace: []string{fmt.Sprintf("n%05d", ns)}, Name: fmt.Sprintf("t%04d", s.filler%scaleNSSize)}})
		s.filler++
	}
	flush()
	s.took += time.Since(t0)
}

// settle lets the machine finish what the seeding left behind before a
// stage is measured, so the figures are floe's and not the seeding's
// aftermath (on 2 cores both showed as 1.4–2× slower requests): on
// PostgreSQL a VACUUM ANALYZE and a CHECKPOINT (else autovacuum and the
// checkpointer run beside the requests; VACUUM runs outside a
// transaction, so on a connection of its own), and then the kernel's
// write-back of the new files and directories (sync). SQLite checkpointed
// its WAL when the seeding closed the last connection.
func (s *seeder) settle(b *testing.B) {
	b.Helper()
	if strings.HasPrefix(s.dsn, "postgres://") || strings.HasPrefix(s.dsn, "postgresql://") {
		db, err := sql.Open("pgx", s.dsn)
		if err != nil {
			b.Fatal(err)
		}
		defer db.Close()
		for _, q := range []string{"VACUUM ANALYZE", "CHECKPOINT"} {
			if _, err := db.ExecContext(context.Background(), q); err != nil {
				b.Fatalf("%s: %v", q, err)
			}
		}
	}
	syscall.Sync()
}
