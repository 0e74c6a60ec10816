package catalog

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"github.com/floe/floe/fault"
	"github.com/floe/floe/internal/runtest"
	"github.com/floe/floe/persist"
	"github.com/floe/floe/persist/notify"
	"github.com/floe/floe/persist/pgtest"
)

// replicaStore opens one replica's catalog on the shared database with its
// own bus and the read cache on, as `floe serve --catalog postgres://…` does.
func replicaStore(t testing.TB, dsn, warehouse, name string) (*Store, *notify.Bus) {
	t.Helper()
	return openReplica(t, context.Background(), dsn, warehouse, name)
}

// openReplica is replicaStore with the context Open is given (a trace:
// persist.WithTrace).
func openReplica(t testing.TB, ctx context.Context, dsn, warehouse, name string) (*Store, *notify.Bus) {
	t.Helper()
	db, err := persist.Open(ctx, persist.Options{Path: dsn})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Migrate(ctx, Migrations()); err != nil {
		t.Fatal(err)
	}
	s, err := New(db, Options{Warehouse: warehouse, BcryptCost: bcrypt.MinCost})
	if err != nil {
		t.Fatal(err)
	}
	bus := notify.New(db, notify.Options{Replica: name})
	runtest.Start(t, bus)
	t.Cleanup(func() { bus.Close(); s.Close(); db.Close() })
	select {
	case <-bus.Listening():
	case <-time.After(30 * time.Second):
		t.Fatal("bus never listened")
	}
	s.CacheReads(bus)
	return s, bus
}

// heardOn returns a wait for the next message on heard (a handler of B's
// bus sends one per notification), failing t after 30 seconds.
func heardOn(t *testing.T, heard <-chan struct{}) func(what string) {
	return func(what string) {
		t.Helper()
		select {
		case <-heard:
		case <-time.After(30 * time.Second):
			t.Fatalf("B never heard %s", what)
		}
	}
}

func (s *Store) cached(ref TableRef) bool {
	_, ok := s.tables.get(context.Background(), tableKey{ref.Bucket, JoinNamespace(ref.Namespace), ref.Name}, s.now())
	return ok
}

// TestTableCacheAcrossReplicas: B serves a described table from memory,
// and once the notification of A's change has arrived on B, B's next read
// is the new state — for each kind of change A makes. B's own changes are
// seen at once, without waiting for any notification.
func TestTableCacheAcrossReplicas(t *testing.T) {
	dsn, dir := pgtest.DSN(t), t.TempDir()
	wh := filepath.Join(dir, "warehouse")
	a, _ := replicaStore(t, dsn, wh, "A")
	b, busB := replicaStore(t, dsn, wh, "B")
	heard := make(chan struct{}, 16)
	busB.Handle(busTopicTables, func(notify.Message) { heard <- struct{}{} }) // after the cache's own handler
	ctx := context.Background()
	waitHeard := heardOn(t, heard)
	mustBucket(t, a, "bkt", FormatIceberg)
	waitHeard("the bucket's create") // a bucket's row notifies too (migration 0032)
	mustNamespace(t, a, "bkt", "ns")

	cases := []struct {
		name   string
		change func(t *testing.T, tb Table) // run on A
		check  func(t *testing.T, got Table, err error)
	}{
		{"commit", func(t *testing.T, tb Table) {
			if _, err := a.CommitTable(ctx, tb.ID, tb.VersionToken, tb.Location+"/metadata/00001.metadata.json", nil); err != nil {
				t.Fatal(err)
			}
		}, func(t *testing.T, got Table, err error) {
			if err != nil || got.MetadataLocation == "" {
				t.Fatalf("after A's commit B reads %+v, %v", got, err)
			}
		}},
		{"drop", func(t *testing.T, tb Table) {
			if _, err := a.DropTable(ctx, TableRef{Bucket: "bkt", Namespace: tb.Namespace, Name: tb.Name}); err != nil {
				t.Fatal(err)
			}
		}, func(t *testing.T, got Table, err error) { wantKind(t, err, fault.NotFound) }},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ref := TableRef{Bucket: "bkt", Namespace: []string{"ns"}, Name: "t" + string(rune('a'+i))}
			tb := mustTable(t, a, ref, FormatIceberg)
			waitHeard("the create") // else its notification could land after B's read
			if _, err := b.GetTable(ctx, ref); err != nil {
				t.Fatal(err)
			}
			if !b.cached(ref) {
				t.Fatal("B did not cache a table it read")
			}
			c.change(t, tb)
			waitHeard(c.name)
			got, err := b.GetTable(ctx, ref)
			c.check(t, got, err)
		})
	}

	t.Run("declared Lance table", func(t *testing.T) {
		// Cached like any entry, and dropped by the notification of A
		// recording the data it saw (declared → created).
		mustBucket(t, a, "lnc", FormatLance)
		waitHeard("the bucket's create")
		mustNamespace(t, a, "lnc", "ns")
		ref := TableRef{Bucket: "lnc", Namespace: []string{"ns"}, Name: "vectors"}
		tb := mustTable(t, a, ref, FormatLance)
		waitHeard("the declare")
		if got, err := b.GetTable(ctx, ref); err != nil || got.State != StateDeclared || !b.cached(ref) {
			t.Fatalf("B reads %q, %v, cached %v", got.State, err, b.cached(ref))
		}
		if err := a.SetLanceState(ctx, tb.ID, StateCreated); err != nil {
			t.Fatal(err)
		}
		waitHeard("the state change")
		if got, err := b.GetTable(ctx, ref); err != nil || got.State != StateCreated {
			t.Fatalf("after A recorded the data B reads %q, %v", got.State, err)
		}
	})

	t.Run("bucket row", func(t *testing.T) {
		// GetBucket is cached beside the entries (every Iceberg request
		// resolves its bucket); a change to the bucket's row alone, which
		// touches no table, still reaches B (migration 0032's trigger).
		if got, err := b.GetBucket(ctx, "bkt"); err != nil || got.Protected {
			t.Fatalf("B reads %+v, %v", got, err)
		}
		if _, ok := b.tables.getBucket(ctx, "bkt", b.now()); !ok {
			t.Fatal("B did not cache a bucket it read")
		}
		if _, err := a.SetBucketProtected(ctx, "bkt", true); err != nil {
			t.Fatal(err)
		}
		waitHeard("the protection")
		if got, err := b.GetBucket(ctx, "bkt"); err != nil || !got.Protected {
			t.Fatalf("after A protected the bucket B reads protected=%v, %v", got.Protected, err)
		}
		if _, err := b.SetBucketProtected(ctx, "bkt", false); err != nil {
			t.Fatal(err)
		}
		if got, err := b.GetBucket(ctx, "bkt"); err != nil || got.Protected { // no wait: B's own commit
			t.Fatalf("after B's own change B reads protected=%v, %v", got.Protected, err)
		}
		waitHeard("B's own change")
	})

	t.Run("own write", func(t *testing.T) {
		ref := TableRef{Bucket: "bkt", Namespace: []string{"ns"}, Name: "own"}
		mustTable(t, b, ref, FormatIceberg)
		waitHeard("B's own create (the trigger notifies every process)")
		if _, err := b.GetTable(ctx, ref); err != nil || !b.cached(ref) {
			t.Fatalf("read: %v, cached %v", err, b.cached(ref))
		}
		if _, err := b.DropTable(ctx, ref); err != nil {
			t.Fatal(err)
		}
		_, err := b.GetTable(ctx, ref) // no wait: the commit itself invalidated
		wantKind(t, err, fault.NotFound)
	})
}

// TestTableCacheOnSQLite: on SQLite a read is served from memory until
// anything commits; a change made by another process (the CLI beside floe
// serve), which no commit hook here hears, is seen by the very next read.
func TestTableCacheOnSQLite(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path, wh := filepath.Join(dir, "c.db"), filepath.Join(dir, "wh")
	db, err := persist.Open(ctx, persist.Options{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Migrate(ctx, Migrations()); err != nil {
		t.Fatal(err)
	}
	s, err := New(db, Options{Warehouse: wh, BcryptCost: bcrypt.MinCost})
	if err != nil {
		t.Fatal(err)
	}
	bus := notify.New(db, notify.Options{})
	runtest.Start(t, bus)
	t.Cleanup(func() { bus.Close(); s.Close(); db.Close() })
	s.CacheReads(bus)
	mustBucket(t, s, "bkt", FormatIceberg)
	mustNamespace(t, s, "bkt", "ns")
	for _, name := range []string{"t", "u"} {
		ref := TableRef{Bucket: "bkt", Namespace: []string{"ns"}, Name: name}
		mustTable(t, s, ref, FormatIceberg)
		if _, err := s.GetTable(ctx, ref); err != nil || !s.cached(ref) {
			t.Fatalf("read %s: %v, cached %v", name, err, s.cached(ref))
		}
	}
	// Creating u invalidated t; reading t again caches it again.
	ref := TableRef{Bucket: "bkt", Namespace: []string{"ns"}, Name: "t"}
	if s.cached(ref) {
		t.Fatal("t is still served after this process's own write")
	}
	if _, err := s.GetTable(ctx, ref); err != nil || !s.cached(ref) {
		t.Fatalf("read t again: %v, cached %v", err, s.cached(ref))
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), dropHelperEnv+"="+path, dropHelperEnv+"_WAREHOUSE="+wh)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("the other process failed: %v\n%s", err, out)
	}
	if s.cached(ref) {
		t.Fatal("another process dropped t, and the cache still serves it")
	}
	_, err = s.GetTable(ctx, ref)
	wantKind(t, err, fault.NotFound)
}

// dropHelperEnv makes this test binary, run again, a second process that
// drops bkt/ns/t from the catalog file it names; see TestMain.
const dropHelperEnv = "CATALOG_DROP_HELPER"

func dropHelper(path string) int {
	wh := os.Getenv(dropHelperEnv + "_WAREHOUSE")
	ctx := context.Background()
	db, err := persist.Open(ctx, persist.Options{Path: path})
	if err == nil {
		var s *Store
		if s, err = New(db, Options{Warehouse: wh, BcryptCost: bcrypt.MinCost}); err == nil {
			_, err = s.DropTable(ctx, TableRef{Bucket: "bkt", Namespace: []string{"ns"}, Name: "t"})
			s.Close()
		}
		db.Close()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "drop helper:", err)
		return 1
	}
	return 0
}

// TestTableCacheOffWithoutListener: on PostgreSQL once the listener is
// gone, nothing is cached (a change could go unheard).
func TestTableCacheOffWithoutListener(t *testing.T) {
	ref := TableRef{Bucket: "bkt", Namespace: []string{"ns"}, Name: "t"}
	t.Run("postgres listener closed", func(t *testing.T) {
		dsn, dir := pgtest.DSN(t), t.TempDir()
		s, bus := replicaStore(t, dsn, filepath.Join(dir, "wh"), "A")
		mustBucket(t, s, "bkt", FormatIceberg)
		mustNamespace(t, s, "bkt", "ns")
		mustTable(t, s, ref, FormatIceberg)
		bus.Close()
		if _, err := s.GetTable(context.Background(), ref); err != nil || s.cached(ref) {
			t.Fatalf("without a listener: %v, cached %v", err, s.cached(ref))
		}
	})
}

// TestTableCacheBesideOtherWrites: a write that changes no table entry (a
// bucket's tags here; observations, sessions and jobs in floe serve) moves
// the cache's stamp, and a cached table is then served after one read of
// the generations, not of its row; a change to a table entry still drops
// it. Likewise a bucket row beside a write that changes no bucket and no
// table. On SQLite and on PostgreSQL.
func TestTableCacheBesideOtherWrites(t *testing.T) {
	for _, dialect := range []string{"sqlite", "postgres"} {
		t.Run(dialect, func(t *testing.T) {
			dir := t.TempDir()
			dsn := filepath.Join(dir, "c.db")
			if dialect == "postgres" {
				dsn = pgtest.DSN(t)
			}
			var mu sync.Mutex
			var rows, bucketRows, gens int
			trace := persist.WithTrace(context.Background(), func(st persist.Statement) {
				mu.Lock()
				defer mu.Unlock()
				switch {
				case strings.Contains(st.Query, "FROM tables WHERE bucket ="):
					rows++
				case strings.Contains(st.Query, "FROM buckets b WHERE b.name ="):
					bucketRows++
				case strings.Contains(st.Query, "FROM table_generation"):
					gens++
				}
			})
			count := func() (int, int) {
				mu.Lock()
				defer mu.Unlock()
				r, g := rows, gens
				rows, gens = 0, 0
				return r, g
			}
			countBuckets := func() int {
				mu.Lock()
				defer mu.Unlock()
				n := bucketRows
				bucketRows = 0
				return n
			}
			s, _ := openReplica(t, trace, dsn, filepath.Join(dir, "wh"), "A")
			ctx := context.Background()
			mustBucket(t, s, "bkt", FormatIceberg)
			mustNamespace(t, s, "bkt", "ns")
			ref := TableRef{Bucket: "bkt", Namespace: []string{"ns"}, Name: "t"}
			tb := mustTable(t, s, ref, FormatIceberg)
			if _, err := s.GetTable(ctx, ref); err != nil {
				t.Fatal(err)
			}
			count()
			for i := range 3 {
				if _, err := s.UpdateBucketTags(ctx, "bkt", map[string]string{"n": fmt.Sprint(i)}, nil); err != nil {
					t.Fatal(err)
				}
				if _, err := s.GetTable(ctx, ref); err != nil {
					t.Fatal(err)
				}
				if r, g := count(); r != 0 || g == 0 {
					t.Fatalf("after a write to a bucket's tags, a describe read the table's row %d times and the generation %d times; want the generation only", r, g)
				}
			}
			if _, err := s.GetTable(ctx, ref); err != nil {
				t.Fatal(err)
			}
			if r, g := count(); r != 0 || g > 1 {
				t.Fatalf("a describe with nothing written since the last read %d rows and %d generations", r, g)
			}
			meta := tb.Location + "/metadata/00001.metadata.json"
			if _, err := s.CommitTable(ctx, tb.ID, tb.VersionToken, meta, nil); err != nil {
				t.Fatal(err)
			}
			got, err := s.GetTable(ctx, ref)
			if err != nil || got.MetadataLocation != meta {
				t.Fatalf("after the table's commit the cache answers metadata %q, %v", got.MetadataLocation, err)
			}
			if r, _ := count(); r != 1 {
				t.Fatalf("after the table's own change a describe read its row %d times; want once", r)
			}

			// The bucket row: served beside a write that changes no bucket
			// and no table (an API key here), read again after its own
			// change and after a table change (its count).
			if _, err := s.GetBucket(ctx, "bkt"); err != nil {
				t.Fatal(err)
			}
			countBuckets()
			if _, _, err := s.CreateAPIKey(ctx, "beside", RoleReadonly, "", 0); err != nil {
				t.Fatal(err)
			}
			if _, err := s.GetBucket(ctx, "bkt"); err != nil {
				t.Fatal(err)
			}
			if n := countBuckets(); n != 0 {
				t.Fatalf("after a write to API keys GetBucket read the bucket's row %d times; want none", n)
			}
			if _, err := s.UpdateBucketTags(ctx, "bkt", map[string]string{"team": "ops"}, nil); err != nil {
				t.Fatal(err)
			}
			if b, err := s.GetBucket(ctx, "bkt"); err != nil || b.Tags["team"] != "ops" {
				t.Fatalf("after the bucket's own change GetBucket answers tags %v, %v", b.Tags, err)
			}
			mustTable(t, s, TableRef{Bucket: "bkt", Namespace: []string{"ns"}, Name: "u"}, FormatIceberg)
			if b, err := s.GetBucket(ctx, "bkt"); err != nil || b.TableCount != 2 {
				t.Fatalf("after a second table GetBucket answers %d tables, %v; want 2", b.TableCount, err)
			}
		})
	}
}

// TestTableCacheKeepsServedEntriesPastAPass: a pass over more tables than
// the cache holds (a crawler describing every table) fills it and forces
// an eviction; a table served from the cache before the pass is still
// served after it, and the cache stays within its bound.
func TestTableCacheKeepsServedEntriesPastAPass(t *testing.T) {
	dir := t.TempDir()
	s, _ := replicaStore(t, filepath.Join(dir, "c.db"), filepath.Join(dir, "wh"), "A")
	ctx := context.Background()
	mustBucket(t, s, "bkt", FormatIceberg)
	mustNamespace(t, s, "bkt", "ns")
	refs := make([]TableRef, maxCachedTables+maxCachedTables/20)
	for from := 0; from < len(refs); from += MaxCreateTables {
		var ins []CreateTableInput
		for i := from; i < min(from+MaxCreateTables, len(refs)); i++ {
			refs[i] = TableRef{Bucket: "bkt", Namespace: []string{"ns"}, Name: fmt.Sprintf("t%05d", i)}
			ins = append(ins, CreateTableInput{TableRef: refs[i], Format: FormatIceberg})
		}
		if _, err := s.CreateTables(ctx, ins); err != nil {
			t.Fatal(err)
		}
	}
	hot := refs[0]
	for range 2 { // read, then served from the cache
		if _, err := s.GetTable(ctx, hot); err != nil {
			t.Fatal(err)
		}
	}
	for _, ref := range refs[1:] {
		if _, err := s.GetTable(ctx, ref); err != nil {
			t.Fatal(err)
		}
	}
	s.tables.mu.Lock()
	n := len(s.tables.m)
	s.tables.mu.Unlock()
	if n > maxCachedTables {
		t.Fatalf("the cache holds %d entries; its bound is %d", n, maxCachedTables)
	}
	if !s.cached(hot) {
		t.Fatal("a pass over every table evicted the table served before it")
	}
	if s.cached(refs[1]) {
		t.Fatal("the pass's first table, read once, outlived the eviction; want it gone")
	}
}
