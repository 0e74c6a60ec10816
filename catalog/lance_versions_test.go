package catalog

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/floe/floe/fault"
	"github.com/floe/floe/persist/notify"
	"github.com/floe/floe/persist/pgtest"
)

// lanceTable makes a managed LANCE bucket "mvb" with table ns/t.
func lanceTable(t *testing.T, s *Store) Table {
	t.Helper()
	ctx := context.Background()
	if _, err := s.CreateBucket(ctx, CreateBucketInput{Name: "mvb", Format: FormatLance, ManagedVersioning: true}); err != nil {
		t.Fatal(err)
	}
	mustNamespace(t, s, "mvb", "ns")
	return mustTable(t, s, TableRef{Bucket: "mvb", Namespace: []string{"ns"}, Name: "t"}, FormatLance)
}

func reservation(tb Table, v uint64) LanceReservation {
	return LanceReservation{Version: LanceVersion{TableID: tb.ID, Version: v, ManifestPath: fmt.Sprintf("%s/_versions/%d.manifest", tb.Location, v), ManifestSize: 10, KeyID: "k1", Principal: "writer"}}
}

// TestLanceVersions: the bucket setting, reserve → finalize → read, the
// put-if-not-exists refusal, gaps, imports, release and delete.
func TestLanceVersions(t *testing.T) {
	ctx := context.Background()
	s := newTestStore(t)
	tb := lanceTable(t, s)
	b, err := s.GetBucket(ctx, "mvb")
	if err != nil || !b.ManagedVersioning {
		t.Fatalf("bucket = %+v, %v; want managed versioning on", b, err)
	}
	mustBucket(t, s, "icb", FormatIceberg)
	wantKind(t, s.SetManagedVersioning(ctx, "icb", true), fault.Invalid)
	wantKind(t, s.SetManagedVersioning(ctx, "nope", true), fault.NotFound)

	// The first commit of a table written before it was managed brings
	// the versions found in _versions/ along.
	first := reservation(tb, 3)
	first.Imported = []LanceVersion{{Version: 1, ManifestPath: tb.Location + "/_versions/1.manifest", ManifestSize: 5}, {Version: 2, ManifestPath: tb.Location + "/_versions/2.manifest", ManifestSize: 6}}
	if err := s.ReserveLanceVersions(ctx, []LanceReservation{first}); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := s.LanceVersionAt(ctx, tb.ID, 3); ok {
		t.Fatal("a reserved version is visible before it is finalized")
	}
	if latest, ok, _ := s.LanceVersionAt(ctx, tb.ID, 0); !ok || latest.Version != 2 {
		t.Fatalf("latest while 3 is reserved = %+v, %v; want the imported 2", latest, ok)
	}
	ce := wantKind(t, s.ReserveLanceVersions(ctx, []LanceReservation{reservation(tb, 3)}), fault.Conflict)
	if ce.Field != "version" {
		t.Errorf("conflict field = %q", ce.Field)
	}
	wantKind(t, s.ReserveLanceVersions(ctx, []LanceReservation{reservation(tb, 5)}), fault.Invalid)
	wantKind(t, s.ReserveLanceVersions(ctx, []LanceReservation{reservation(tb, 0)}), fault.Invalid)
	// A finalized commit is a table change: floe asks a worker to observe
	// the table at once (observe-on-commit), as for Iceberg commits.
	var changed []string
	s.OnTableChange(func(id string) { changed = append(changed, id) })
	if err := s.FinalizeLanceVersions(ctx, []LanceVersion{first.Version}); err != nil {
		t.Fatal(err)
	}
	s.OnTableChange(nil)
	if len(changed) != 1 || changed[0] != tb.ID {
		t.Errorf("OnTableChange heard %v, want [%s]", changed, tb.ID)
	}
	wantKind(t, s.FinalizeLanceVersions(ctx, []LanceVersion{first.Version}), fault.Conflict) // twice: not reserved any more
	got, ok, err := s.LanceVersionAt(ctx, tb.ID, 0)
	if err != nil || !ok || got.Version != 3 || got.Principal != "writer" || got.KeyID != "k1" || !got.Finalized || got.CreatedAt.IsZero() {
		t.Fatalf("latest = %+v, %v, %v", got, ok, err)
	}

	// A reserved number whose commit failed is freed.
	if err := s.ReserveLanceVersions(ctx, []LanceReservation{reservation(tb, 4)}); err != nil {
		t.Fatal(err)
	}
	if err := s.ReleaseLanceVersions(ctx, []LanceVersion{{TableID: tb.ID, Version: 4}}); err != nil {
		t.Fatal(err)
	}
	for v := uint64(4); v <= 6; v++ {
		r := reservation(tb, v)
		if err := s.ReserveLanceVersions(ctx, []LanceReservation{r}); err != nil {
			t.Fatal(err)
		}
		if err := s.FinalizeLanceVersions(ctx, []LanceVersion{r.Version}); err != nil {
			t.Fatal(err)
		}
	}
	page, err := s.LanceVersions(ctx, tb.ID, LanceVersionQuery{Descending: true, Limit: 2})
	if err != nil || len(page) != 2 || page[0].Version != 6 || page[1].Version != 5 {
		t.Fatalf("first descending page = %+v, %v", page, err)
	}
	page, _ = s.LanceVersions(ctx, tb.ID, LanceVersionQuery{Descending: true, After: 5})
	if len(page) != 4 || page[0].Version != 4 || page[3].Version != 1 {
		t.Fatalf("next descending page = %+v", page)
	}

	// Deleting records keeps the latest unless every record goes.
	wantKind(t, func() error {
		_, err := s.DeleteLanceVersions(ctx, tb.ID, []LanceVersionRange{{Start: 5, End: 0}})
		return err
	}(), fault.Invalid)
	n, err := s.DeleteLanceVersions(ctx, tb.ID, []LanceVersionRange{{Start: 1, End: 3}})
	if err != nil || n != 2 {
		t.Fatalf("delete [1,3) = %d, %v", n, err)
	}
	page, _ = s.LanceVersions(ctx, tb.ID, LanceVersionQuery{})
	if len(page) != 4 || page[0].Version != 3 {
		t.Fatalf("after delete = %+v", page)
	}
	if n, err = s.DeleteLanceVersions(ctx, tb.ID, []LanceVersionRange{{Start: 0, End: 0}}); err != nil || n != 4 {
		t.Fatalf("delete all = %d, %v", n, err)
	}
	if has, _ := s.HasLanceVersions(ctx, tb.ID); has {
		t.Error("records remain after deleting all")
	}

	// Dropping the table takes its records with it.
	r := reservation(tb, 1)
	if err := s.ReserveLanceVersions(ctx, []LanceReservation{r}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.DropTable(ctx, TableRef{Bucket: "mvb", Namespace: []string{"ns"}, Name: "t"}); err != nil {
		t.Fatal(err)
	}
	if has, _ := s.HasLanceVersions(ctx, tb.ID); has {
		t.Error("records outlive their dropped table")
	}
	wantKind(t, s.ReserveLanceVersions(ctx, []LanceReservation{reservation(tb, 1)}), fault.NotFound)
}

// TestLanceVersionsBatchAllOrNone: one conflicting entry leaves every
// table of the batch untouched.
func TestLanceVersionsBatchAllOrNone(t *testing.T) {
	ctx := context.Background()
	s := newTestStore(t)
	a := lanceTable(t, s)
	b := mustTable(t, s, TableRef{Bucket: "mvb", Namespace: []string{"ns"}, Name: "u"}, FormatLance)
	if err := s.ReserveLanceVersions(ctx, []LanceReservation{reservation(a, 1)}); err != nil {
		t.Fatal(err)
	}
	wantKind(t, s.ReserveLanceVersions(ctx, []LanceReservation{reservation(b, 1), reservation(a, 1)}), fault.Conflict)
	if has, _ := s.HasLanceVersions(ctx, b.ID); has {
		t.Fatal("a failed batch left a record for the other table")
	}
	if err := s.ReserveLanceVersions(ctx, []LanceReservation{reservation(b, 1), reservation(b, 2), reservation(a, 2)}); err != nil {
		t.Fatalf("a batch of consecutive versions: %v", err)
	}
}

// TestLanceVersionsTwoStores: writers on two stores of one database (two
// replicas on PostgreSQL under TestPostgres, two processes on one SQLite
// file otherwise) race for each next version of one table; every number is
// accepted exactly once and the losers get fault.Conflict.
func TestLanceVersionsTwoStores(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	a, b := openAt(t, dir), openAt(t, dir)
	tb := lanceTable(t, a)
	const writers, rounds = 4, 12
	var mu sync.Mutex
	won := map[uint64]int{}
	conflicts := 0
	var wg sync.WaitGroup
	errc := make(chan error, 2*writers)
	for si, s := range []*Store{a, b} {
		for w := range writers {
			wg.Go(func() {
				for range rounds {
					latest, _, err := s.LanceVersionAt(ctx, tb.ID, 0)
					if err != nil {
						errc <- err
						return
					}
					r := reservation(tb, latest.Version+1)
					r.Version.Principal = fmt.Sprintf("s%d-w%d", si, w)
					err = s.ReserveLanceVersions(ctx, []LanceReservation{r})
					if errors.Is(err, fault.Conflict) || errors.Is(err, fault.Invalid) {
						// fault.Invalid: the latest read was of a version
						// another writer reserved but had not finalized.
						mu.Lock()
						conflicts++
						mu.Unlock()
						continue
					}
					if err != nil {
						errc <- err
						return
					}
					if err := s.FinalizeLanceVersions(ctx, []LanceVersion{r.Version}); err != nil {
						errc <- err
						return
					}
					mu.Lock()
					won[r.Version.Version]++
					mu.Unlock()
				}
			})
		}
	}
	wg.Wait()
	close(errc)
	for err := range errc {
		t.Fatal(err)
	}
	all, err := a.LanceVersions(ctx, tb.ID, LanceVersionQuery{Limit: MaxPageSize})
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != len(won) || len(all) == 0 {
		t.Fatalf("%d versions recorded, %d accepted", len(all), len(won))
	}
	for i, v := range all {
		if v.Version != uint64(i+1) || won[v.Version] != 1 {
			t.Fatalf("version %d recorded at %d, accepted %d times", v.Version, i, won[v.Version])
		}
	}
	t.Logf("%d versions committed, %d commits refused as conflicts", len(all), conflicts)
}

// TestManagedVersioningAcrossReplicas: B answers a bucket's setting from
// memory, and once A's change to it has been heard on B, B's next answer is
// the new setting.
func TestManagedVersioningAcrossReplicas(t *testing.T) {
	dsn, dir := pgtest.DSN(t), t.TempDir()
	wh := filepath.Join(dir, "warehouse")
	a, _ := replicaStore(t, dsn, wh, "A")
	b, busB := replicaStore(t, dsn, wh, "B")
	heard := make(chan struct{}, 16)
	busB.Handle(busTopicTables, func(notify.Message) { heard <- struct{}{} })
	ctx := context.Background()
	waitHeard := heardOn(t, heard)
	mustBucket(t, a, "mvb", FormatLance)
	waitHeard("the bucket's create") // a bucket's row notifies (migration 0032)
	mustNamespace(t, a, "mvb", "ns")
	mustTable(t, a, TableRef{Bucket: "mvb", Namespace: []string{"ns"}, Name: "t"}, FormatLance)
	waitHeard("the table's create")
	if on, err := b.ManagedVersioning(ctx, "mvb"); err != nil || on {
		t.Fatalf("B reads %v, %v; want off", on, err)
	}
	if _, ok := b.tables.getFlag(ctx, "mvb", time.Now()); !ok {
		t.Fatal("B did not cache the setting it read")
	}
	if err := a.SetManagedVersioning(ctx, "mvb", true); err != nil {
		t.Fatal(err)
	}
	waitHeard("A's change of the setting")
	if on, err := b.ManagedVersioning(ctx, "mvb"); err != nil || !on {
		t.Fatalf("after A's change B reads %v, %v; want on", on, err)
	}
	if _, err := b.ManagedVersioning(ctx, "nope"); !errors.Is(err, fault.NotFound) {
		t.Errorf("an unknown bucket = %v, want fault.NotFound", err)
	}
}
