package catalog

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/floe/floe/persist/persisttest"
)

// filterNames are table names the filter must treat exactly: case, LIKE's
// and FTS5's special characters, text beyond ASCII, case folds that
// change a character's length.
var filterNames = []string{
	"Orders_EU", "orders_eu", "orders_us", "ORDERS", "100%_done", "100x_done", "a_b", "axb", `a\b`, `c:\temp`,
	"naïve_table", "NAÏVE", "日本語テーブル", "emoji 🚀 rocket", `quote"name`, "spaces in name", "x%y", "under__score",
	"MiXeD", "straße", "STRASSE", "İstanbul", "ΣΊΣΥΦΟΣ", "σίσυφος", "a.b.c", "end_",
}

// filterQueries are the filters tried: matching and not, through the
// index and not, upper case, short and impossible ones.
var filterQueries = []string{
	"orders", "Orders", "ORDERS", "rders_", "_eu", "%", "%_", "0%_", `\`, `\b`, `a\`, "a_b", "_", "__", "a_", "_b",
	"naï", "ïve", "NAÏ", "日本語", "本語テ", "日", "日本", "🚀 r", "🚀", `"`, `e"n`, `"na`, "in name", "s i", " ", "   ",
	"fill_0001", "fill_00", "00", "f", "fi", "MiX", "xeD", "XED", "straß", "traße", "STRA", "İst", "stanbul",
	"ΊΣΥ", "ίσυ", "σίσ", "Σ", "zzz", "a.b", ".c", "end", "a/b", "$x", "x\x00yz", "\xff\xfe\xfd", strings.Repeat("o", 256),
}

// filterStore is a store whose namespace big holds filterNames and enough
// fill_ tables to be past filterScanTables, so the index is what the
// listings choose for the filters with few candidates.
func filterStore(t *testing.T) *Store {
	t.Helper()
	s := newTestStore(t)
	mustBucket(t, s, "f-b", FormatLance)
	mustNamespace(t, s, "f-b", "big")
	var ins []CreateTableInput
	for _, n := range filterNames {
		ins = append(ins, CreateTableInput{TableRef: TableRef{Bucket: "f-b", Namespace: []string{"big"}, Name: n}, Format: FormatLance})
	}
	for i := range filterScanTables + 100 {
		ins = append(ins, CreateTableInput{TableRef: TableRef{Bucket: "f-b", Namespace: []string{"big"}, Name: fmt.Sprintf("fill_%05d", i)}, Format: FormatLance})
	}
	if _, err := s.CreateTables(context.Background(), ins); err != nil {
		t.Fatal(err)
	}
	return s
}

// wantFiltered is every name of the big namespace passing q, sorted.
func wantFiltered(q string) []string {
	var out []string
	for _, n := range filterNames {
		if NameFilterMatches(n, q) {
			out = append(out, n)
		}
	}
	for i := range filterScanTables + 100 {
		if n := fmt.Sprintf("fill_%05d", i); NameFilterMatches(n, q) {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return out
}

// namesBy lists the big namespace's names under one way of filtering.
func namesBy(t *testing.T, s *Store, way filterWay, q string) []string {
	t.Helper()
	where, args := tableFilter(s.filterCond(way, "f-b", "big", q), "f-b", "big", ListTablesOptions{NameFilter: q}, false)
	rows, err := s.ro.QueryContext(context.Background(), `SELECT name FROM tables WHERE `+where+` ORDER BY name`, args...)
	if err != nil {
		t.Fatalf("%q: %v", q, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		out = append(out, n)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestNameFilterMatchesScan: the trigram index with its exact test and the
// scan give the same tables for every filter, and so do the listings,
// their count and their pages, whichever way they choose.
func TestNameFilterMatchesScan(t *testing.T) {
	ctx := context.Background()
	s := filterStore(t)
	for _, q := range filterQueries {
		want := wantFiltered(q)
		if filterCanMatch(q) && !NameFilterPrefix(q) {
			if got := namesBy(t, s, filterScan, q); !slices.Equal(got, want) {
				t.Errorf("%q by the scan: %q, want %q", q, got, want)
			}
			if got := namesBy(t, s, filterIndex, q); !slices.Equal(got, want) {
				t.Errorf("%q through the index: %q, want %q", q, got, want)
			}
		}
		opt := ListTablesOptions{NameFilter: q, IncludeDeclared: true}
		n, err := s.CountTables(ctx, "f-b", []string{"big"}, opt)
		if err != nil || n != len(want) {
			t.Errorf("%q: CountTables = %d, %v; want %d", q, n, err, len(want))
		}
		// Every page, 7 at a time, by the ?after= cursor.
		var got []string
		for {
			opt.Limit = 7
			items, next, err := s.ListTables(ctx, "f-b", []string{"big"}, opt)
			if err != nil {
				t.Fatalf("%q: ListTables: %v", q, err)
			}
			for _, it := range items {
				got = append(got, it.Name)
			}
			if next == "" {
				break
			}
			opt.After = next
		}
		if !slices.Equal(got, want) {
			t.Errorf("%q: ListTables pages give %q, want %q", q, got, want)
		}
		opt.After, opt.Limit = "", 0
		if len(want) >= 3 {
			if after, err := s.SkipTables(ctx, "f-b", []string{"big"}, opt, 3); err != nil || after != want[2] {
				t.Errorf("%q: SkipTables(3) = %q, %v; want %q", q, after, err, want[2])
			}
		}
		names, _, err := s.ListTableNames(ctx, "f-b", []string{"big"}, ListTablesOptions{NameFilter: q, IncludeDeclared: true, ListOptions: ListOptions{Limit: MaxPageSize}})
		if err != nil || !slices.Equal(names, want[:min(len(want), MaxPageSize)]) {
			t.Errorf("%q: ListTableNames = %q, %v", q, names, err)
		}
	}
}

// TestFilterChoosesByCandidates: a filter goes through the index only in
// a namespace past filterScanTables and only while the index has few
// candidates for it, counted over the whole catalog.
func TestFilterChoosesByCandidates(t *testing.T) {
	ctx := context.Background()
	s := filterStore(t)
	mustNamespace(t, s, "f-b", "small")
	mustNamespace(t, s, "f-b", "other")
	var ins []CreateTableInput
	for _, n := range []string{"orders_eu", "fill_00042"} {
		ins = append(ins, CreateTableInput{TableRef: TableRef{Bucket: "f-b", Namespace: []string{"small"}, Name: n}, Format: FormatLance})
	}
	// Common elsewhere, rare in big: the index would hand over every one
	// of these to be passed over.
	for i := range (filterScanTables+100)/filterCandidateShare + 10 {
		ins = append(ins, CreateTableInput{TableRef: TableRef{Bucket: "f-b", Namespace: []string{"other"}, Name: fmt.Sprintf("naïve_%d", i)}, Format: FormatLance})
	}
	if _, err := s.CreateTables(ctx, ins); err != nil {
		t.Fatal(err)
	}
	postgres := persisttest.OnPostgres(t)
	cases := []struct {
		ns, q string
		opt   ListTablesOptions
		want  filterWay
	}{
		{"big", "", ListTablesOptions{}, filterNone},
		{"big", "a/b", ListTablesOptions{}, filterEmpty},
		{"big", "fi", ListTablesOptions{}, filterPrefix},
		{"big", "fill_00042", ListTablesOptions{}, filterIndex}, // one candidate
		{"big", "orders", ListTablesOptions{}, filterIndex},     // four (ORDERS too: FTS5 folds case)
		{"big", "fill_", ListTablesOptions{}, filterScan},       // every fill_ table
		{"big", "_0", ListTablesOptions{}, filterPrefix},
		{"big", "naïve", ListTablesOptions{}, filterScan},                                                       // two here, many in other
		{"big", "orders", ListTablesOptions{IncludeDeregistered: true}, filterScan},                             // the index has none
		{"small", "fill_00042", ListTablesOptions{}, filterScan},                                                // a small namespace
		{"big", "日本語", ListTablesOptions{}, map[bool]filterWay{false: filterIndex, true: filterScan}[postgres]}, // pg_trgm keeps ASCII letters and digits only here
	}
	for _, tc := range cases {
		tc.opt.NameFilter = tc.q
		got, err := s.filterWay(ctx, "f-b", tc.ns, tc.opt)
		if err != nil || got != tc.want {
			t.Errorf("%s %q %+v: way %d, %v; want %d", tc.ns, tc.q, tc.opt, got, err, tc.want)
		}
	}
}

// TestNameFilterPlan: through the index the listing seeks the tables its
// candidates name (name=?), never reading the namespace's range; a short
// filter reads the range of names starting with it. SQLite's plans.
func TestNameFilterPlan(t *testing.T) {
	s := newTestStore(t)
	for _, tc := range []struct {
		way  filterWay
		q    string
		want string
	}{
		{filterIndex, "orders", "(bucket=? AND namespace=? AND name=?)"},
		{filterPrefix, "or", "(bucket=? AND namespace=? AND name>? AND name<?)"},
	} {
		opt := ListTablesOptions{NameFilter: tc.q, IncludeDeclared: true, ListOptions: ListOptions{After: "m"}}
		where, args := tableFilter(s.filterCond(tc.way, "b", "ns", tc.q), "b", "ns", opt, true)
		for _, query := range []string{
			`SELECT ` + tableColumns + ` FROM tables WHERE ` + where + ` ORDER BY name LIMIT 51`,
			`SELECT COUNT(*) FROM tables WHERE ` + where,
		} {
			plan := queryPlan(t, s, query, args...)
			if !strings.Contains(plan, tc.want) || strings.Contains(plan, "SCAN tables") {
				t.Errorf("%q: the plan does not seek %s: %s", tc.q, tc.want, plan)
			}
			if tc.way == filterIndex && !strings.Contains(plan, "VIRTUAL TABLE INDEX") {
				t.Errorf("%q: the plan does not use the trigram index: %s", tc.q, plan)
			}
		}
	}
}

func queryPlan(t *testing.T, s *Store, query string, args ...any) string {
	t.Helper()
	rows, err := s.db.QueryContext(context.Background(), `EXPLAIN QUERY PLAN `+query, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var plan []string
	for rows.Next() {
		var id, parent, notused int
		var detail string
		if err := rows.Scan(&id, &parent, &notused, &detail); err != nil {
			t.Fatal(err)
		}
		plan = append(plan, detail)
	}
	return strings.Join(plan, "; ")
}
