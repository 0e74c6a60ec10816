package catalog

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"unicode/utf8"

	"github.com/floe/floe/fault"
	"github.com/floe/floe/persist"
	"golang.org/x/crypto/bcrypt"
)

func hitNames(hits []SearchHit) []string {
	out := make([]string, 0, len(hits))
	for _, h := range hits {
		out = append(out, fmt.Sprintf("%s %s/%s/%s", h.Kind, h.Bucket, JoinNamespace(h.Namespace), h.Name))
	}
	return out
}

// Search finds buckets, namespaces, tables and views by any part of their
// names, ranks exact and prefix matches first, and follows every change —
// create, rename, deregister, drop, cascade — whoever made it, because the
// index is kept by triggers.
func TestSearch(t *testing.T) {
	ctx := context.Background()
	s := newTestStore(t)
	mustBucket(t, s, "sales", FormatLance)
	mustBucket(t, s, "ordersbucket", FormatIceberg)
	mustNamespace(t, s, "sales", "eu")
	mustNamespace(t, s, "sales", "eu", "orders_archive")
	for _, n := range []string{"orders", "daily_orders", "customers", "or"} {
		mustTable(t, s, TableRef{Bucket: "sales", Namespace: []string{"eu"}, Name: n}, FormatLance)
	}
	mustNamespace(t, s, "ordersbucket", "db")
	if _, err := s.CreateView(ctx, CreateViewInput{TableRef: TableRef{Bucket: "ordersbucket", Namespace: []string{"db"}, Name: "orders_view"},
		Location: s.opts.Warehouse + "/ordersbucket/db/orders_view", MetadataLocation: s.opts.Warehouse + "/ordersbucket/db/orders_view/metadata/v1.json"}); err != nil {
		t.Fatalf("CreateView: %v", err)
	}

	search := func(q string, opt SearchOptions) []string {
		t.Helper()
		hits, _, err := s.Search(ctx, q, opt)
		if err != nil {
			t.Fatalf("Search(%q): %v", q, err)
		}
		return hitNames(hits)
	}
	got := search("ORDERS", SearchOptions{})
	want := []string{
		"table sales/eu/orders",            // exact
		"view ordersbucket/db/orders_view", // prefix, shorter names first
		"bucket ordersbucket//ordersbucket",
		"table sales/eu/daily_orders", // anywhere in the name
		"namespace sales/eu.orders_archive/eu.orders_archive",
	}
	if !slices.Equal(got, want) {
		t.Errorf("Search(ORDERS) =\n%q\nwant\n%q", got, want)
	}
	// Under three characters only prefixes match (a trigram needs three).
	if got := search("or", SearchOptions{}); !slices.Equal(got, []string{"table sales/eu/or", "table sales/eu/orders", "view ordersbucket/db/orders_view", "bucket ordersbucket//ordersbucket"}) {
		t.Errorf("Search(or) = %q", got)
	}
	// '_' is a name character, not a wildcard.
	if got := search("y_o", SearchOptions{}); !slices.Equal(got, []string{"table sales/eu/daily_orders"}) {
		t.Errorf("Search(y_o) = %q", got)
	}
	if got := search("ers", SearchOptions{Buckets: []string{"sales"}}); !slices.Equal(got,
		[]string{"table sales/eu/orders", "table sales/eu/customers", "table sales/eu/daily_orders", "namespace sales/eu.orders_archive/eu.orders_archive"}) {
		t.Errorf("Search(ers) in sales = %q", got)
	}
	if got := search("ers", SearchOptions{Buckets: []string{}}); len(got) != 0 {
		t.Errorf("Search in no bucket = %q", got)
	}
	hits, more, err := s.Search(ctx, "orders", SearchOptions{Limit: 2})
	if err != nil || len(hits) != 2 || !more {
		t.Errorf("Search(orders, limit 2) = %d hits, more %v, %v; want 2, true", len(hits), more, err)
	}
	if _, _, err := s.Search(ctx, "orders/drop", SearchOptions{}); !errors.Is(err, fault.Invalid) {
		t.Errorf("Search with a / = %v, want invalid", err)
	}
	if got := search("orders; drop", SearchOptions{}); len(got) != 0 {
		t.Errorf("Search(orders; drop) = %q, want nothing", got)
	}

	// Names keep their case and may hold spaces and any script; search
	// compares A-Z without case and finds such names by any part.
	mustBucket(t, s, "mixed", FormatLance)
	mustNamespace(t, s, "mixed", "Finance")
	for _, n := range []string{"DailySales", "Q3 Report", "Übersicht \"alt\"", "dailysales"} {
		mustTable(t, s, TableRef{Bucket: "mixed", Namespace: []string{"Finance"}, Name: n}, FormatLance)
	}
	in := SearchOptions{Buckets: []string{"mixed"}}
	for q, want := range map[string][]string{
		"DAILYSALES": {"table mixed/Finance/DailySales", "table mixed/Finance/dailysales"},
		"da":         {"table mixed/Finance/DailySales", "table mixed/Finance/dailysales"},
		"ySal":       {"table mixed/Finance/DailySales", "table mixed/Finance/dailysales"},
		"q3 r":       {"table mixed/Finance/Q3 Report"},
		"Q":          {"table mixed/Finance/Q3 Report"},
		"fin":        {"namespace mixed/Finance/Finance"},
		"Über":       {"table mixed/Finance/Übersicht \"alt\""},
		`t "alt"`:    {"table mixed/Finance/Übersicht \"alt\""},
	} {
		got := search(q, in)
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("Search(%q) = %q, want %q", q, got, want)
		}
	}
	hits, _, err = s.Search(ctx, "dailySALES", in)
	if err != nil || len(hits) != 2 || !hits[0].Exact || !hits[1].Exact {
		t.Errorf("Search(dailySALES) = %+v, %v; want two exact hits", hits, err)
	}

	// Every change reaches the index.
	eu := []string{"eu"}
	if _, err := s.RenameTable(ctx, TableRef{Bucket: "sales", Namespace: eu, Name: "daily_orders"}, eu, "weekly_totals"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.DeregisterTable(ctx, TableRef{Bucket: "sales", Namespace: eu, Name: "customers"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.DropTable(ctx, TableRef{Bucket: "sales", Namespace: eu, Name: "orders"}); err != nil {
		t.Fatal(err)
	}
	if got := search("orders", SearchOptions{Buckets: []string{"sales"}}); !slices.Equal(got, []string{"namespace sales/eu.orders_archive/eu.orders_archive"}) {
		t.Errorf("after rename and drop: %q", got)
	}
	if got := search("totals", SearchOptions{}); !slices.Equal(got, []string{"table sales/eu/weekly_totals"}) {
		t.Errorf("renamed table: %q", got)
	}
	if got := search("customers", SearchOptions{}); len(got) != 0 {
		t.Errorf("a deregistered table is found: %q", got)
	}
	if err := s.DeleteBucket(ctx, "sales", true); err != nil {
		t.Fatal(err)
	}
	if got := search("e", SearchOptions{}); len(got) != 0 {
		t.Errorf("after deleting the bucket with its contents: %q", got)
	}
}

// The case-folded prefix lookup is a range of its index, not a scan of
// every name.
func TestSearchPrefixUsesTheFoldedIndex(t *testing.T) {
	s := newTestStore(t)
	if s.db.Dialect().Name != "sqlite" {
		t.Skip("the plan checked is SQLite's")
	}
	plan := queryPlan(t, s, searchPrefixSQL+` LIMIT 10`, "da", "da"+afterPrefix)
	if !strings.Contains(plan, "USING INDEX search_docs_by_name_lower") || strings.Contains(plan, "SCAN") {
		t.Errorf("prefix plan = %q, want a search of search_docs_by_name_lower", plan)
	}
}

// An upgraded catalog's index holds what the catalog held before
// migration 0023: the migration fills it.
func TestSearchIndexesExistingEntries(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db, err := persist.Open(ctx, persist.Options{Path: catalogPath(t, dir)})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	before := fstest.MapFS{}
	err = fs.WalkDir(migrations, "migrations", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || path.Base(p) >= "0023_" { // the catalog as it was before 0023
			return err
		}
		body, err := migrations.ReadFile(p)
		before[strings.TrimPrefix(p, "migrations/")] = &fstest.MapFile{Data: body}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Migrate(ctx, persist.Schema{Owner: MigrationOwner, Files: before, Renamed: Migrations().Renamed}); err != nil {
		t.Fatal(err)
	}
	s, err := New(db, Options{Warehouse: filepath.Join(dir, "warehouse")})
	if err != nil {
		t.Fatal(err)
	}
	mustBucket(t, s, "legacy", FormatLance)
	mustNamespace(t, s, "legacy", "ns")
	mustTable(t, s, TableRef{Bucket: "legacy", Namespace: []string{"ns"}, Name: "old_table"}, FormatLance)
	if err := db.Migrate(ctx, Migrations()); err != nil {
		t.Fatal(err)
	}
	hits, _, err := s.Search(ctx, "leg", SearchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := hitNames(hits); !slices.Equal(got, []string{"bucket legacy//legacy"}) {
		t.Errorf("Search(leg) = %q", got)
	}
	hits, _, _ = s.Search(ctx, "d_tab", SearchOptions{})
	if got := hitNames(hits); !slices.Equal(got, []string{"table legacy/ns/old_table"}) {
		t.Errorf("Search(d_tab) = %q", got)
	}
}

// Any query the search box sends is answered or refused as invalid: never
// a database error (an FTS5 syntax error, a bad range) nor a panic.
func FuzzSearch(f *testing.F) {
	for _, q := range []string{"orders", "OR", `"`, `a"b"c`, "q3 r", "Über", "é", "a*b", "x OR y", "NEAR(a b)", "%_\\", "\x00", "a/b", "\xff\xfe", strings.Repeat("z", 300)} {
		f.Add(q)
	}
	dir := f.TempDir()
	s, err := Open(context.Background(), Options{Path: filepath.Join(dir, "catalog.db"), Warehouse: filepath.Join(dir, "warehouse"), BcryptCost: bcrypt.MinCost})
	if err != nil {
		f.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	if _, err := s.CreateBucket(ctx, CreateBucketInput{Name: "fuzz", Format: FormatLance}); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, q string) {
		hits, _, err := s.Search(ctx, q, SearchOptions{})
		if err != nil && !errors.Is(err, fault.Invalid) {
			t.Fatalf("Search(%q): %v", q, err)
		}
		if norm, _ := NormalizeSearch(q); len(norm) > MaxSearchQuery || !utf8.ValidString(norm) && utf8.ValidString(q) {
			t.Fatalf("NormalizeSearch(%q) = %q", q, norm)
		}
		for _, h := range hits {
			if h.Bucket != "fuzz" {
				t.Fatalf("Search(%q) found %+v", q, h)
			}
		}
	})
}
