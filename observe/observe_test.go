package observe

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/persist"
	"github.com/floe/floe/persist/persisttest"
)

// openDB opens the database in dir; the test closes it (some reopen it).
func openDB(t testing.TB, dir string) *persist.DB {
	t.Helper()
	db, err := persist.Open(context.Background(), persist.Options{Path: persisttest.Path(t, filepath.Join(dir, "c.db"))})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Migrate(context.Background(), Migrations()); err != nil {
		t.Fatal(err)
	}
	return db
}

func obs(id string, f catalog.Format, at time.Time, attrs string) Observation {
	return Observation{ObjectID: id, Format: f, ObservedAt: at, WorkerID: "w1", Attributes: json.RawMessage(attrs)}
}

func TestPutGet(t *testing.T) {
	db := openDB(t, t.TempDir())
	defer db.Close()
	s, err := New(db, 10)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	t0 := time.UnixMilli(1_700_000_000_000)
	for _, tc := range []struct {
		name   string
		put    Observation
		stored bool
	}{
		{"first", obs("t1", catalog.FormatLance, t0, `{"rows":10}`), true},
		{"newer wins", obs("t1", catalog.FormatLance, t0.Add(time.Second), `{"rows":20}`), true},
		{"older loses", obs("t1", catalog.FormatLance, t0, `{"rows":5}`), false},
		{"other format is separate", obs("t1", catalog.FormatIceberg, t0, `{"rows":99}`), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ok, err := s.Put(tc.put)
			if err != nil || ok != tc.stored {
				t.Fatalf("Put = %v, %v; want %v", ok, err, tc.stored)
			}
		})
	}
	if rows, _, w, ok := s.Rows("t1", catalog.FormatLance); !ok || rows != 20 || w != "w1" {
		t.Fatalf("lance rows = %d %v", rows, ok)
	}
	if rows, _, _, ok := s.Rows("t1", catalog.FormatIceberg); !ok || rows != 99 {
		t.Fatalf("iceberg rows = %d %v", rows, ok)
	}
	if _, _, _, ok := s.Rows("t1", catalog.FormatUnset); ok {
		t.Fatal("unset format answered")
	}
	if _, err := s.Put(obs("bad", catalog.FormatLance, t0, `{not json`)); err == nil {
		t.Fatal("invalid JSON accepted")
	}
	if _, err := s.Put(obs("big", catalog.FormatLance, t0, `"`+string(make([]byte, maxAttributesBytes))+`"`)); err == nil {
		t.Fatal("oversized attributes accepted")
	}
}

func TestTypedAttributes(t *testing.T) {
	db := openDB(t, t.TempDir())
	defer db.Close()
	s, err := New(db, 10)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	attrs := `{"rows":1000,"fragments":12,"small_fragments":9,"version":14,"versions":14,"bytes":123456,
		"schema":[{"name":"id","type":"int64","nullable":false},{"name":"vec","type":{"name":"fixed_size_list"},"nullable":true}],
		"indices":[{"name":"vec_idx","type":"IVF_PQ","columns":["vec"],"indexed_rows":900,"unindexed_rows":100}],
		"history":[{"version":13,"timestamp":"2026-01-02T03:04:05Z","rows":900,"fragments":11,"bytes":100},
		           {"version":14,"timestamp":1767323045000,"rows":1000,"fragments":12,"bytes":123456}]}`
	if _, err := s.Put(obs("t", catalog.FormatLance, time.Now(), attrs)); err != nil {
		t.Fatal(err)
	}
	st, ok := s.Stats("t", catalog.FormatLance)
	if !ok {
		t.Fatal("no stats")
	}
	if *st.Rows != 1000 || *st.Fragments != 12 || *st.SmallFragments != 9 || *st.Version != 14 || *st.Versions != 14 || *st.Bytes != 123456 {
		t.Fatalf("numbers: %+v", st.Attributes)
	}
	if len(st.Schema) != 2 || st.Schema[1].TypeString() != "fixed_size_list" || st.Schema[0].TypeString() != "int64" {
		t.Fatalf("schema: %+v", st.Schema)
	}
	if len(st.Indices) != 1 || st.Indices[0].Coverage() != 0.9 {
		t.Fatalf("indices: %+v", st.Indices)
	}
	if len(st.History) != 2 || st.History[0].Timestamp.Year() != 2026 || st.History[1].Timestamp.IsZero() {
		t.Fatalf("history: %+v", st.History)
	}
	// One malformed key does not hide the others.
	if _, err := s.Put(obs("t2", catalog.FormatLance, time.Now(), `{"rows":"many","fragments":3}`)); err != nil {
		t.Fatal(err)
	}
	st, _ = s.Stats("t2", catalog.FormatLance)
	if st.Rows != nil || st.Fragments == nil || *st.Fragments != 3 {
		t.Fatalf("lenient parse: %+v", st.Attributes)
	}
}

func TestEvictionAndPersistence(t *testing.T) {
	dir := t.TempDir()
	db := openDB(t, dir)
	s, err := New(db, 3)
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.UnixMilli(1_700_000_000_000)
	for i := range 5 {
		if _, err := s.Put(obs(fmt.Sprintf("t%d", i), catalog.FormatLance, t0.Add(time.Duration(i)*time.Second), fmt.Sprintf(`{"rows":%d}`, i))); err != nil {
			t.Fatal(err)
		}
	}
	if s.Len() != 3 {
		t.Fatalf("len = %d, want the cap 3", s.Len())
	}
	for i, want := range []bool{false, false, true, true, true} {
		if _, ok := s.Get(fmt.Sprintf("t%d", i), catalog.FormatLance); ok != want {
			t.Errorf("t%d present = %v, want %v (oldest evicted)", i, ok, want)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	db.Close()

	db = openDB(t, dir)
	defer db.Close()
	var n int
	if err := db.QueryRowContext(context.Background(), `SELECT COUNT(*) FROM observations`).Scan(&n); err != nil || n != 3 {
		t.Fatalf("rows on disk = %d, %v (evicted rows must be deleted)", n, err)
	}
	s2, err := New(db, 2) // a smaller cap keeps the newest
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	if s2.Len() != 0 {
		t.Fatalf("New read %d observations; reading is Load's", s2.Len())
	}
	if err := s2.Load(context.Background()); err != nil {
		t.Fatal(err)
	}
	if rows, at, w, ok := s2.Rows("t4", catalog.FormatLance); !ok || rows != 4 || !at.Equal(t0.Add(4*time.Second)) || w != "w1" {
		t.Fatalf("after reopen: %d %v %q %v", rows, at, w, ok)
	}
	if _, ok := s2.Get("t2", catalog.FormatLance); ok {
		t.Fatal("reopen with cap 2 kept the oldest")
	}
	if w, ok := s2.WorkerFor("t3", catalog.FormatLance); !ok || w != "w1" {
		t.Fatal("WorkerFor after reopen")
	}
}

// Run flushes what is put while it runs and once more as it stops, and
// returns only then: a Put just before shutdown reaches the database
// without any Close.
func TestRunFlushesUntilItStops(t *testing.T) {
	db := openDB(t, t.TempDir())
	defer db.Close()
	s, err := New(db, 10)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	t0 := time.UnixMilli(1_700_000_000_000)
	for i := range 3 {
		if _, err := s.Put(obs(fmt.Sprintf("t%d", i), catalog.FormatLance, t0, `{"rows":1}`)); err != nil {
			t.Fatal(err)
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("Run: %v", err)
	}
	var n int
	if err := db.QueryRowContext(context.Background(), `SELECT COUNT(*) FROM observations`).Scan(&n); err != nil || n != 3 {
		t.Fatalf("rows after Run returned = %d, %v; want all 3 flushed", n, err)
	}
}
