package observe

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/persist"
	"github.com/floe/floe/persist/persisttest"
)

// tracedDB opens the database in dir with every statement recorded.
func tracedDB(t *testing.T, dir string) (*persist.DB, func() []string) {
	t.Helper()
	var mu sync.Mutex
	var seen []string
	ctx := persist.WithTrace(context.Background(), func(s persist.Statement) {
		mu.Lock()
		defer mu.Unlock()
		seen = append(seen, s.Query)
	})
	db, err := persist.Open(ctx, persist.Options{Path: persisttest.Path(t, filepath.Join(dir, "c.db"))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if err := db.Migrate(context.Background(), Migrations()); err != nil {
		t.Fatal(err)
	}
	return db, func() []string {
		mu.Lock()
		defer mu.Unlock()
		out := seen
		seen = nil
		return out
	}
}

// persistThree stores t0..t2 (rows 0..2) in dir's database and closes it.
func persistThree(t *testing.T, dir string, t0 time.Time) {
	t.Helper()
	db := openDB(t, dir)
	s, err := New(db, 0)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if _, err := s.Put(obs(fmt.Sprintf("t%d", i), catalog.FormatLance, t0.Add(time.Duration(i)*time.Second), fmt.Sprintf(`{"rows":%d}`, i))); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	db.Close()
}

// Load reads keys, times and workers, no attributes; a table's attributes
// are read once, when first asked for, and held after.
func TestLoadLeavesAttributesInTheDatabase(t *testing.T) {
	dir := t.TempDir()
	t0 := time.UnixMilli(1_700_000_000_000)
	persistThree(t, dir, t0)
	db, statements := tracedDB(t, dir)
	s, err := New(db, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	statements()
	if err := s.Load(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, q := range statements() {
		if strings.Contains(q, "attributes_json") {
			t.Fatalf("Load read attributes: %s", q)
		}
	}
	if s.Len() != 3 {
		t.Fatalf("loaded %d, want 3", s.Len())
	}
	if at, ok := s.ObservedAt("t1", catalog.FormatLance); !ok || !at.Equal(t0.Add(time.Second)) {
		t.Fatalf("ObservedAt = %v %v", at, ok)
	}
	if len(statements()) != 0 {
		t.Fatal("ObservedAt read the database; the time is loaded")
	}
	for range 2 {
		if rows, _, w, ok := s.Rows("t1", catalog.FormatLance); !ok || rows != 1 || w != "w1" {
			t.Fatalf("Rows = %d %q %v", rows, w, ok)
		}
		if o, ok := s.Get("t1", catalog.FormatLance); !ok || string(o.Attributes) != `{"rows":1}` {
			t.Fatalf("Get = %s %v", o.Attributes, ok)
		}
	}
	if got := statements(); len(got) != 1 || !strings.Contains(got[0], "attributes_json") {
		t.Fatalf("asking twice read %q; want the attributes read once", got)
	}
}

// Before Load has finished the store answers from the database what it
// does not hold, the same answers it gives once loaded.
func TestReadsThroughUntilLoaded(t *testing.T) {
	dir := t.TempDir()
	t0 := time.UnixMilli(1_700_000_000_000)
	persistThree(t, dir, t0)
	db := openDB(t, dir)
	defer db.Close()
	s, err := New(db, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Put(obs("t2", catalog.FormatLance, t0.Add(time.Hour), `{"rows":20}`)); err != nil {
		t.Fatal(err)
	}
	check := func(when string) {
		t.Helper()
		if rows, _, _, ok := s.Rows("t1", catalog.FormatLance); !ok || rows != 1 {
			t.Errorf("%s: t1 rows = %d %v, want 1 from the database", when, rows, ok)
		}
		if rows, _, _, ok := s.Rows("t2", catalog.FormatLance); !ok || rows != 20 {
			t.Errorf("%s: t2 rows = %d %v, want 20 put since (newer than the row)", when, rows, ok)
		}
		if at, ok := s.ObservedAt("t0", catalog.FormatLance); !ok || !at.Equal(t0) {
			t.Errorf("%s: t0 observed at %v %v", when, at, ok)
		}
		if w, ok := s.WorkerFor("t0", catalog.FormatLance); !ok || w != "w1" {
			t.Errorf("%s: t0 worker %q %v", when, w, ok)
		}
		if _, ok := s.Get("t9", catalog.FormatLance); ok {
			t.Errorf("%s: t9 was never observed", when)
		}
		if _, ok := s.Stats("t1", catalog.FormatIceberg); ok {
			t.Errorf("%s: t1 was observed as Lance only", when)
		}
	}
	select {
	case <-s.Loaded():
		t.Fatal("Loaded before Load")
	default:
	}
	check("before Load")
	changes := s.Changes()
	if err := s.Load(context.Background()); err != nil {
		t.Fatal(err)
	}
	select {
	case <-s.Loaded():
	default:
		t.Fatal("Loaded still open after Load")
	}
	if s.Changes() == changes {
		t.Error("Load did not move Changes: an aggregate made before it would be kept")
	}
	check("after Load")
}

// Warm reads every loaded entry's attributes in batches of warmBatch, so
// later asks read nothing; with more rows than a batch it pages on.
func TestWarmReadsAttributesInBatches(t *testing.T) {
	dir := t.TempDir()
	t0 := time.UnixMilli(1_700_000_000_000)
	n := warmBatch + 7
	func() {
		db := openDB(t, dir)
		defer db.Close()
		s, err := New(db, 0)
		if err != nil {
			t.Fatal(err)
		}
		for i := range n {
			if _, err := s.Put(obs(fmt.Sprintf("t%05d", i), catalog.FormatLance, t0.Add(time.Duration(i)*time.Millisecond), fmt.Sprintf(`{"rows":%d}`, i))); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}()
	db, statements := tracedDB(t, dir)
	s, err := New(db, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Load(context.Background()); err != nil {
		t.Fatal(err)
	}
	statements()
	if err := s.Warm(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := len(statements()); got != 2 {
		t.Errorf("warming %d observations took %d reads, want 2 (batches of %d)", n, got, warmBatch)
	}
	for _, i := range []int{0, warmBatch - 1, warmBatch, n - 1} {
		rows, _, _, ok := s.Rows(fmt.Sprintf("t%05d", i), catalog.FormatLance)
		if !ok || rows != int64(i) {
			t.Errorf("t%05d after Warm: rows %d, %v; want %d", i, rows, ok, i)
		}
	}
	if q := statements(); len(q) != 0 {
		t.Errorf("asks after Warm read the database: %q", q)
	}
}
