package health

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/observe"
)

// Every column sorts both ways with unobserved tables last, and following
// each page's cursor walks the whole order exactly once, filtered or not.
func TestSortedTables(t *testing.T) {
	obs := &fakeObs{m: map[string]observe.Observation{}}
	tabs := &fakeTables{gen: 1}
	rows := map[string]int64{"a": 30, "b": 10, "c": 20, "d": 10, "e": -1, "f": 5}
	for _, n := range []string{"a", "b", "c", "d", "e", "f"} {
		tabs.keys = append(tabs.keys, catalog.TableKey{ID: n, Bucket: "b1", Namespace: "ns", Name: n, Format: catalog.FormatLance,
			ModifiedAt: now.Add(-time.Duration(rows[n]) * time.Minute)})
		if rows[n] >= 0 {
			small := 1
			if n == "c" {
				small = 9 // needs maintenance
			}
			obs.put(n, catalog.FormatLance, map[string]any{"rows": rows[n], "bytes": rows[n] * 100, "fragments": small, "small_fragments": small})
		}
	}
	s := New(Config{Observations: obs, Tables: tabs, Now: func() time.Time { return now }})
	walk := func(o Order, f ListFilter, limit int) (string, int) {
		t.Helper()
		var names []string
		after, total := "", 0
		for range 10 {
			page, next, n, err := s.SortedTables(context.Background(), "b1", []string{"ns"}, o, f, after, limit)
			if err != nil {
				t.Fatal(err)
			}
			total = n
			for _, p := range page {
				names = append(names, p.Name)
			}
			if next == "" {
				return strings.Join(names, ","), total
			}
			after = next
		}
		t.Fatalf("%+v never ended: %v", o, names)
		return "", 0
	}
	cases := []struct {
		o     Order
		f     ListFilter
		want  string
		total int
	}{
		{Order{SortRows, false}, ListFilter{}, "f,b,d,c,a,e", 6},
		{Order{SortRows, true}, ListFilter{}, "a,c,b,d,f,e", 6},
		{Order{SortSize, true}, ListFilter{}, "a,c,b,d,f,e", 6},
		{Order{SortName, true}, ListFilter{}, "f,e,d,c,b,a", 6},
		{Order{SortChanged, true}, ListFilter{}, "e,f,b,d,c,a", 6}, // e changed most recently (in the catalog)
		{Order{SortHealth, true}, ListFilter{}, "c,a,b,d,f,e", 6},  // needs maintenance first, unknown last
		{Order{SortRows, true}, ListFilter{Name: "d"}, "d", 1},
		{Order{SortRows, true}, ListFilter{Attention: true}, "c", 1},
	}
	for _, c := range cases {
		for _, limit := range []int{1, 2, 10} {
			if got, total := walk(c.o, c.f, limit); got != c.want || total != c.total {
				t.Errorf("%+v %+v by %d: %s (%d), want %s (%d)", c.o, c.f, limit, got, total, c.want, c.total)
			}
		}
	}
	// A cursor whose table moved still lands after its old position.
	page, next, _, _ := s.SortedTables(context.Background(), "b1", []string{"ns"}, Order{SortRows, true}, ListFilter{}, "", 2)
	if len(page) != 2 || next != "20~c" {
		t.Fatalf("first page %v, next %q", page, next)
	}
	tabs.gen++
	obs.put("c", catalog.FormatLance, map[string]any{"rows": 1000})
	page, _, _, _ = s.SortedTables(context.Background(), "b1", []string{"ns"}, Order{SortRows, true}, ListFilter{}, next, 2)
	if got := fmt.Sprint(page[0].Name, page[1].Name); got != "bd" {
		t.Errorf("after the cursor 20~c: %s", got)
	}
	if _, _, _, err := s.SortedTables(context.Background(), "b1", []string{"ns"}, Order{SortRows, true}, ListFilter{}, "x~", 2); err == nil {
		t.Error("a made-up cursor is accepted")
	}
}
