package catalog

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"github.com/floe/floe/fault"
)

// testClock is a settable clock shared by the stores of one test.
type testClock struct{ ns atomic.Int64 }

func newTestClock() *testClock {
	c := &testClock{}
	c.ns.Store(time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC).UnixNano())
	return c
}
func (c *testClock) Now() time.Time          { return time.Unix(0, c.ns.Load()).UTC() }
func (c *testClock) Advance(d time.Duration) { c.ns.Add(int64(d)) }

const testHold = 24 * time.Hour

// openHeld opens a store on dir whose drops are held for testHold.
func openHeld(t *testing.T, dir string, clock *testClock) *Store {
	t.Helper()
	s, err := Open(context.Background(), Options{Path: catalogPath(t, dir), Warehouse: filepath.Join(dir, "warehouse"),
		BcryptCost: bcrypt.MinCost, Now: clock.Now, SoftDeleteHold: testHold})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func heldFixture(t *testing.T) (*Store, *testClock) {
	t.Helper()
	clock := newTestClock()
	s := openHeld(t, t.TempDir(), clock)
	for name, f := range map[string]Format{"lance-b": FormatLance, "ice-b": FormatIceberg} {
		mustBucket(t, s, name, f)
		mustNamespace(t, s, name, "ns")
	}
	return s, clock
}

// treeOf lists every file under a table's location with its content.
func treeOf(t *testing.T, loc string) map[string]string {
	t.Helper()
	out := map[string]string{}
	root := diskPath(loc)
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, os.ErrNotExist) {
				return filepath.SkipDir
			}
			return err
		}
		if !d.IsDir() {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			out[strings.TrimPrefix(p, root)] = string(b)
		}
		return nil
	})
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	return out
}

func TestSoftDeleteDropUndropPurge(t *testing.T) {
	ctx := context.Background()
	for _, f := range []Format{FormatLance, FormatIceberg} {
		t.Run(string(f), func(t *testing.T) {
			s, clock := heldFixture(t)
			bucket := "lance-b"
			if f == FormatIceberg {
				bucket = "ice-b"
			}
			r := ref(bucket, "t")
			tb := mustTable(t, s, r, f)
			writeData(t, tb.Location)
			neighbour := mustTable(t, s, ref(bucket, "n"), f)
			writeData(t, neighbour.Location)
			before, nbefore := treeOf(t, tb.Location), treeOf(t, neighbour.Location)

			d, err := s.DropTableWith(ctx, r, DropOptions{By: "user:admin"})
			if err != nil {
				t.Fatal(err)
			}
			if !d.Held() || !d.PurgeAt.Equal(clock.Now().Add(testHold)) || d.DeletedBy != "user:admin" || d.Reason != ReasonDrop {
				t.Fatalf("drop answered %+v; want held for %s by user:admin", d, testHold)
			}
			if _, err := s.GetTable(ctx, r); !errors.Is(err, fault.NotFound) {
				t.Fatalf("GetTable after drop: %v, want not found", err)
			}
			if _, err := s.GetTableByID(ctx, tb.ID); !errors.Is(err, fault.NotFound) {
				t.Fatalf("GetTableByID after drop: %v, want not found", err)
			}
			list, _, err := s.ListTables(ctx, bucket, []string{"ns"}, ListTablesOptions{IncludeDeclared: true, IncludeDeregistered: true})
			if err != nil || names(list) != "n" {
				t.Fatalf("listing after drop = %v, %v; want only the neighbour", names(list), err)
			}
			if b, _ := s.GetBucket(ctx, bucket); b.TableCount != 1 {
				t.Fatalf("bucket counts %d tables, want 1", b.TableCount)
			}
			if got := treeOf(t, tb.Location); fmt.Sprint(got) != fmt.Sprint(before) {
				t.Fatalf("data changed by a held drop: %v, want %v", got, before)
			}
			held, _, err := s.ListDeletedTables(ctx, bucket, ListOptions{})
			if err != nil || len(held) != 1 || held[0].ID != tb.ID {
				t.Fatalf("recently deleted = %+v, %v", held, err)
			}

			// The name is free: a new table gets it, at a location of its own.
			fresh := mustTable(t, s, r, f)
			if fresh.ID == tb.ID || fresh.Location == tb.Location {
				t.Fatalf("new table %+v reuses the dropped one's id or location %s", fresh, tb.Location)
			}
			// Undrop under the old name is refused while it is taken...
			_, err = s.UndropTable(ctx, tb.ID, TableRef{})
			if ce := wantKind(t, err, fault.AlreadyExists); !strings.Contains(ce.Message, "another name") {
				t.Fatalf("undrop onto a taken name: %q", ce.Message)
			}
			// ...and works under a new one, with the table id and data.
			back, err := s.UndropTable(ctx, tb.ID, TableRef{Name: "t-restored"})
			if err != nil {
				t.Fatal(err)
			}
			if back.ID != tb.ID || back.Location != tb.Location || back.Name != "t-restored" {
				t.Fatalf("undropped %+v, want id %s at %s", back, tb.ID, tb.Location)
			}
			if got, err := s.GetTable(ctx, ref(bucket, "t-restored")); err != nil || got.ID != tb.ID {
				t.Fatalf("GetTable after undrop: %+v, %v", got, err)
			}
			if held, _, _ := s.ListDeletedTables(ctx, bucket, ListOptions{}); len(held) != 0 {
				t.Fatalf("still recently deleted after undrop: %+v", held)
			}

			// Purge now deletes exactly its files.
			if _, err := s.DropTable(ctx, ref(bucket, "t-restored")); err != nil {
				t.Fatal(err)
			}
			if _, err := s.PurgeDeletedTable(ctx, tb.ID, false); err != nil {
				t.Fatal(err)
			}
			if got := treeOf(t, tb.Location); len(got) != 0 {
				t.Fatalf("purge left %v", got)
			}
			if got := treeOf(t, neighbour.Location); fmt.Sprint(got) != fmt.Sprint(nbefore) {
				t.Fatalf("purge touched the neighbour: %v, want %v", got, nbefore)
			}
			if _, err := s.UndropTable(ctx, tb.ID, TableRef{}); !errors.Is(err, fault.NotFound) {
				t.Fatalf("undrop after purge: %v", err)
			}
		})
	}
}

func TestSoftDeleteHoldEnds(t *testing.T) {
	ctx := context.Background()
	s, clock := heldFixture(t)
	tb := mustTable(t, s, ref("lance-b", "t"), FormatLance)
	writeData(t, tb.Location)
	kept := mustTable(t, s, ref("ice-b", "kept"), FormatIceberg)
	writeData(t, kept.Location)
	if _, err := s.DropTable(ctx, ref("lance-b", "t")); err != nil {
		t.Fatal(err)
	}
	// An Iceberg drop without purge: the hold's end forgets the entry and
	// keeps every file.
	if _, err := s.ForgetTable(ctx, ref("ice-b", "kept")); err != nil {
		t.Fatal(err)
	}
	clock.Advance(testHold - time.Second)
	if done, err := s.PurgeExpired(ctx, 100); err != nil || len(done) != 0 {
		t.Fatalf("purged %d before the hold ended: %v", len(done), err)
	}
	if len(treeOf(t, tb.Location)) == 0 {
		t.Fatal("data gone before the hold ended")
	}
	clock.Advance(2 * time.Second)
	done, err := s.PurgeExpired(ctx, 100)
	if err != nil || len(done) != 2 {
		t.Fatalf("purged %+v, %v; want both tables", done, err)
	}
	if len(treeOf(t, tb.Location)) != 0 {
		t.Fatal("the dropped table's data outlived its hold")
	}
	if len(treeOf(t, kept.Location)) == 0 {
		t.Fatal("the hold's end deleted the data of a drop without purge")
	}
	if n, _ := s.CountDeletedTables(ctx, "ice-b"); n != 0 {
		t.Fatalf("%d recently deleted left", n)
	}
}

// TestSoftDeletePurgeOnceAcrossStores: two stores on one database (two
// replicas, or serve and the CLI) sweep at once; every table is purged by
// exactly one of them.
func TestSoftDeletePurgeOnceAcrossStores(t *testing.T) {
	ctx := context.Background()
	clock := newTestClock()
	dir := t.TempDir()
	a, b := openHeld(t, dir, clock), openHeld(t, dir, clock)
	mustBucket(t, a, "lance-b", FormatLance)
	mustNamespace(t, a, "lance-b", "ns")
	const n = 30
	for i := range n {
		r := ref("lance-b", fmt.Sprintf("t%d", i))
		tb := mustTable(t, a, r, FormatLance)
		writeData(t, tb.Location)
		if _, err := a.DropTable(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	clock.Advance(testHold + time.Minute)
	var wg sync.WaitGroup
	var mu sync.Mutex
	seen := map[string]int{}
	for _, s := range []*Store{a, b} {
		wg.Go(func() {
			for range 3 {
				done, err := s.PurgeExpired(ctx, 7)
				if err != nil {
					t.Error(err)
				}
				mu.Lock()
				for _, d := range done {
					seen[d.ID]++
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	for {
		done, err := a.PurgeExpired(ctx, 100)
		if err != nil {
			t.Fatal(err)
		}
		if len(done) == 0 {
			break
		}
		for _, d := range done {
			seen[d.ID]++
		}
	}
	if len(seen) != n {
		t.Fatalf("%d tables purged, want %d", len(seen), n)
	}
	for id, c := range seen {
		if c != 1 {
			t.Fatalf("table %s purged %d times", id, c)
		}
	}
}

func TestProtection(t *testing.T) {
	ctx := context.Background()
	setup := func(t *testing.T) (*Store, Table) {
		s, _ := heldFixture(t)
		mustNamespace(t, s, "lance-b", "ns", "sub")
		tb := mustTable(t, s, TableRef{Bucket: "lance-b", Namespace: []string{"ns", "sub"}, Name: "t"}, FormatLance)
		if _, err := s.SetTableProtected(ctx, TableRef{Bucket: "lance-b", Namespace: []string{"ns", "sub"}, Name: "t"}, true); err != nil {
			t.Fatal(err)
		}
		return s, tb
	}
	r := TableRef{Bucket: "lance-b", Namespace: []string{"ns", "sub"}, Name: "t"}
	refused := func(t *testing.T, err error, names ...string) {
		t.Helper()
		ce := wantKind(t, err, fault.Conflict)
		if ce.Field != FieldProtected {
			t.Fatalf("refusal field %q, want %q: %s", ce.Field, FieldProtected, ce.Message)
		}
		for _, n := range names {
			if !strings.Contains(ce.Message, n) {
				t.Fatalf("refusal %q does not name %q", ce.Message, n)
			}
		}
	}
	t.Run("a protected table refuses every destructive path", func(t *testing.T) {
		s, tb := setup(t)
		_, err := s.DropTable(ctx, r)
		refused(t, err, `table "t"`, "protected")
		_, err = s.ForgetTable(ctx, r)
		refused(t, err)
		_, err = s.DeregisterTable(ctx, r)
		refused(t, err)
		_, err = s.RenameTable(ctx, r, nil, "u")
		refused(t, err)
		_, err = s.RegisterTable(ctx, r, "file://"+filepath.Join(s.Warehouse(), "lance-b", "ns", "elsewhere.lance"), true)
		refused(t, err)
		refused(t, s.DropNamespace(ctx, "lance-b", []string{"ns"}, true), `protected table "t"`, `namespace "ns"`)
		refused(t, s.DeleteBucket(ctx, "lance-b", true), `protected table "t"`, `bucket "lance-b"`)
		_, _, err = s.OverwriteNamespace(ctx, "lance-b", []string{"ns"}, nil, CascadeOptions{})
		refused(t, err)
		_, err = s.OverwriteBucket(ctx, "lance-b", nil, false, CascadeOptions{})
		refused(t, err)
		if got, err := s.GetTable(ctx, r); err != nil || got.ID != tb.ID {
			t.Fatalf("the protected table after the refusals: %+v %v", got, err)
		}
		// Force passes, and the recently deleted entry says so.
		d, err := s.DropTableWith(ctx, r, DropOptions{Force: true, By: "user:admin"})
		if err != nil || !d.Forced {
			t.Fatalf("forced drop: %+v %v", d, err)
		}
		// Purging it needs force again.
		_, err = s.PurgeDeletedTable(ctx, tb.ID, false)
		refused(t, err, "purge")
		if _, err := s.PurgeDeletedTable(ctx, tb.ID, true); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("a protected namespace refuses drop and overwrite", func(t *testing.T) {
		s, _ := setup(t)
		mustNamespace(t, s, "lance-b", "guarded")
		if _, err := s.SetNamespaceProtected(ctx, "lance-b", []string{"guarded"}, true); err != nil {
			t.Fatal(err)
		}
		refused(t, s.DropNamespace(ctx, "lance-b", []string{"guarded"}, false), `namespace "guarded"`)
		_, _, err := s.OverwriteNamespace(ctx, "lance-b", []string{"guarded"}, nil, CascadeOptions{})
		refused(t, err)
		refused(t, s.DeleteBucket(ctx, "lance-b", true), `protected namespace "guarded"`)
		if err := s.DropNamespaceWith(ctx, "lance-b", []string{"guarded"}, CascadeOptions{Force: true}); err != nil {
			t.Fatalf("forced drop of the protected namespace: %v", err)
		}
	})
	t.Run("a protected bucket refuses delete", func(t *testing.T) {
		s, _ := heldFixture(t)
		if _, err := s.SetBucketProtected(ctx, "ice-b", true); err != nil {
			t.Fatal(err)
		}
		refused(t, s.DeleteBucket(ctx, "ice-b", true), `bucket "ice-b"`)
		if b, err := s.GetBucket(ctx, "ice-b"); err != nil || !b.Protected {
			t.Fatalf("bucket after refusal: %+v %v", b, err)
		}
		if err := s.DeleteBucketWith(ctx, "ice-b", CascadeOptions{Cascade: true, Force: true}); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("floe.protected takes true or false only", func(t *testing.T) {
		s, _ := heldFixture(t)
		_, err := s.CreateNamespace(ctx, "lance-b", []string{"x"}, map[string]string{ProtectedProperty: "yes"})
		wantKind(t, err, fault.Invalid)
	})
}
