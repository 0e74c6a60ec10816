package observe

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/floe/floe/catalog"
)

// A point is kept each time a flushed observation's figures change, not
// for an unchanged one (even across a restart); History reads them oldest
// first, HistoryOf many objects' in time order.
func TestHistoryKeepsChanges(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db := openDB(t, dir)
	defer db.Close()
	s, err := New(db, 100)
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Now().Add(-time.Hour).Truncate(time.Millisecond)
	put := func(s *Store, id string, at time.Duration, attrs string) {
		t.Helper()
		if _, err := s.Put(obs(id, catalog.FormatLance, t0.Add(at), attrs)); err != nil {
			t.Fatal(err)
		}
		if err := s.Flush(ctx); err != nil {
			t.Fatal(err)
		}
	}
	put(s, "a", 0, `{"rows":10,"bytes":100,"version":1}`)
	put(s, "a", time.Minute, `{"version":1,"bytes":100,"rows":10,"history":[{"rows":99}]}`) // same figures
	put(s, "a", 2*time.Minute, `{"rows":20,"bytes":200,"version":2}`)
	put(s, "b", 3*time.Minute, `{"rows":5}`)
	put(s, "c", 4*time.Minute, `{"fragments":3}`) // no figure a chart shows
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	// A new process: the first observation after it is compared with the
	// newest kept point, not taken as new.
	s2, err := New(db, 100)
	if err != nil {
		t.Fatal(err)
	}
	put(s2, "a", 5*time.Minute, `{"rows":20,"bytes":200,"version":2}`)
	put(s2, "a", 6*time.Minute, `{"rows":30,"bytes":300,"version":3}`)

	pts, err := s2.History(ctx, "a", catalog.FormatLance, time.Time{}, 0)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range pts {
		got = append(got, fmt.Sprintf("%s:%d/%d/v%d", p.At.Sub(t0), p.Rows, p.Bytes, p.Version))
	}
	if strings.Join(got, " ") != "0s:10/100/v1 2m0s:20/200/v2 6m0s:30/300/v3" {
		t.Errorf("points of a: %v", got)
	}
	if pts, _ := s2.History(ctx, "a", catalog.FormatLance, t0.Add(time.Minute), 1); len(pts) != 1 || pts[0].Rows != 30 {
		t.Errorf("since a minute in, the newest one: %+v", pts)
	}
	if pts, _ := s2.History(ctx, "a", catalog.FormatIceberg, time.Time{}, 0); len(pts) != 0 {
		t.Errorf("another format's points: %+v", pts)
	}
	many, truncated, err := s2.HistoryOf(ctx, []string{"a", "b", "c", "nope"}, catalog.FormatLance, time.Time{})
	if err != nil || truncated || len(many) != 4 || many[2].ObjectID != "b" || many[2].HasBytes || !many[2].HasRows {
		t.Errorf("HistoryOf = %+v, %v, %v", many, truncated, err)
	}
	s2.Close()
}

// Points older than the retention and beyond MaxPointsPerObject per
// object are pruned; retention 0 keeps none.
func TestHistoryRetention(t *testing.T) {
	ctx := context.Background()
	db := openDB(t, t.TempDir())
	defer db.Close()
	s, err := New(db, 100)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	now := time.Now()
	old := now.Add(-DefaultHistoryRetention - time.Hour)
	for i := range MaxPointsPerObject + 5 {
		if _, err := db.ExecContext(ctx, `INSERT INTO observation_points(object_id, format, observed_at, row_count) VALUES ('a', 'LANCE', ?, ?)`,
			now.Add(-time.Duration(i)*time.Minute).UnixMicro(), i); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.ExecContext(ctx, `INSERT INTO observation_points(object_id, format, observed_at, row_count) VALUES ('b', 'LANCE', ?, 1)`, old.UnixMicro()); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Put(obs("c", catalog.FormatLance, now, `{"rows":1}`)); err != nil {
		t.Fatal(err)
	}
	if err := s.Flush(ctx); err != nil { // the first flush prunes
		t.Fatal(err)
	}
	count := func(id string) int {
		var n int
		if err := db.QueryRowContext(ctx, `SELECT COUNT(*) FROM observation_points WHERE object_id = ?`, id).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := count("a"); n != MaxPointsPerObject {
		t.Errorf("a keeps %d points, want %d", n, MaxPointsPerObject)
	}
	if pts, _ := s.History(ctx, "a", catalog.FormatLance, time.Time{}, 0); len(pts) != MaxPointsPerObject || pts[len(pts)-1].Rows != 0 {
		t.Errorf("the newest kept: %d points, last %+v", len(pts), pts[len(pts)-1])
	}
	if n := count("b"); n != 0 {
		t.Errorf("a point past the retention is kept")
	}
	if n := count("c"); n != 1 {
		t.Errorf("c: %d points", n)
	}

	off, err := New(db, 100)
	if err != nil {
		t.Fatal(err)
	}
	defer off.Close()
	off.SetHistoryRetention(0)
	if _, err := off.Put(obs("d", catalog.FormatLance, now, `{"rows":1}`)); err != nil {
		t.Fatal(err)
	}
	if err := off.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if n := count("d") + count("c") + count("a"); n != 0 {
		t.Errorf("history off keeps %d points", n)
	}
}

func TestReadFigures(t *testing.T) {
	for attrs, want := range map[string]string{
		`{"rows":10,"bytes":20,"version":3}`:                             "10/20/3 true",
		`{"history":[{"rows":1,"bytes":2}],"rows":7}`:                    "7/0/0 true",
		`{"schema":{"rows":5},"data_bytes":9,"current_snapshot_id":123}`: "0/9/123 true",
		`{"name":"a \"rows\": 4","rows":2.0e1}`:                          "20/0/0 true",
		`{"fragments":3}`:                                                "0/0/0 false",
		`[1,2]`:                                                          "0/0/0 false",
		`{"rows":`:                                                       "0/0/0 false",
		`  { "rows" : 3 , "bytes" : "x" }`:                               "3/0/0 true",
	} {
		f, ok := readFigures([]byte(attrs))
		if got := fmt.Sprintf("%d/%d/%d %v", f.rows, f.bytes, f.version, ok); got != want {
			t.Errorf("%s: %s, want %s", attrs, got, want)
		}
	}
}

// FuzzReadFigures: on any valid JSON object the scan reads what
// encoding/json reads at the top level; on anything else it returns
// without a panic.
func FuzzReadFigures(f *testing.F) {
	for _, s := range []string{`{"rows":1,"bytes":2}`, `{"a":{"rows":1},"rows":[1],"bytes":3}`, `{"rows":"7"}`, `{"x":"\\","rows":4}`, `{}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		fig, ok := readFigures(b)
		var top map[string]json.RawMessage
		if json.Unmarshal(b, &top) != nil || top == nil {
			return
		}
		num := func(k string) (int64, bool) {
			var n json.Number
			raw, present := top[k]
			if !present || len(raw) == 0 || raw[0] == '"' || json.Unmarshal(raw, &n) != nil {
				return 0, false
			}
			if i, err := n.Int64(); err == nil {
				return i, true
			}
			if fl, err := n.Float64(); err == nil {
				return int64(fl), true
			}
			return 0, false
		}
		if len(top) != countMembers(b) {
			return // a duplicate key: which one wins differs; nothing to compare
		}
		rows, hasRows := num("rows")
		if hasRows != fig.hasRows || rows != fig.rows {
			t.Fatalf("%s: rows %d %v, json says %d %v", b, fig.rows, fig.hasRows, rows, hasRows)
		}
		if _, hasBytes := num("bytes"); !hasBytes {
			if _, hasBytes = num("data_bytes"); !hasBytes && fig.hasBytes {
				t.Fatalf("%s: bytes found where json finds none", b)
			}
		}
		_ = ok
	})
}

// countMembers counts the top-level members the scan walks.
func countMembers(b []byte) int {
	sc := topLevel{b: b}
	n := 0
	for {
		if _, _, more := sc.next(); !more {
			return n
		}
		n++
	}
}
