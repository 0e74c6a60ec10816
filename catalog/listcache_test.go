package catalog

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/floe/floe/fault"
)

// inBothListingModes runs check on two Stores of one file, first with the
// read cache off (the table generation decides what a cached listing is
// worth), then on as floe serve has it on SQLite (the change stamp does).
func inBothListingModes(t *testing.T, check func(t *testing.T, a, b *Store)) {
	for _, stamped := range []bool{false, true} {
		t.Run(map[bool]string{false: "generation", true: "change stamp"}[stamped], func(t *testing.T) {
			dir := t.TempDir()
			a := openAt(t, dir)
			if stamped {
				a.CacheReads(nil) // as floe serve does on SQLite: served without reading the generation
			}
			check(t, a, openAt(t, dir))
		})
	}
}

// TestListTableNamesSeesEveryChange checks the cached name listing never
// outlives a change, whether made through the same Store or through a second
// one on the same file (the CLI beside floe serve).
func TestListTableNamesSeesEveryChange(t *testing.T) {
	inBothListingModes(t, checkListTableNamesSeesEveryChange)
}

func checkListTableNamesSeesEveryChange(t *testing.T, a, b *Store) {
	ctx := context.Background()
	mustBucket(t, a, "vec", FormatLance)
	mustNamespace(t, a, "vec", "docs")
	ref := func(n string) TableRef { return TableRef{Bucket: "vec", Namespace: []string{"docs"}, Name: n} }
	opt := ListTablesOptions{Format: FormatLance, IncludeDeclared: true}
	list := func() []string {
		t.Helper()
		names, _, err := a.ListTableNames(ctx, "vec", []string{"docs"}, opt)
		if err != nil {
			t.Fatal(err)
		}
		return names
	}
	mustTable(t, a, ref("one"), FormatLance)
	if got := list(); !slices.Equal(got, []string{"one"}) {
		t.Fatalf("after create: %v", got)
	}
	list() // now cached
	mustTable(t, b, ref("two"), FormatLance)
	if got := list(); !slices.Equal(got, []string{"one", "two"}) {
		t.Fatalf("after another process created a table: %v", got)
	}
	if _, err := b.DeregisterTable(ctx, ref("one")); err != nil {
		t.Fatal(err)
	}
	if got := list(); !slices.Equal(got, []string{"two"}) {
		t.Fatalf("after deregister elsewhere: %v", got)
	}
	if _, err := a.RenameTable(ctx, ref("two"), nil, "three"); err != nil {
		t.Fatal(err)
	}
	if got := list(); !slices.Equal(got, []string{"three"}) {
		t.Fatalf("after rename: %v", got)
	}
	got := list()
	got[0] = "mutated"
	if again := list(); !slices.Equal(again, []string{"three"}) {
		t.Fatalf("a caller's change to a returned slice leaked into the cache: %v", again)
	}
}

// TestNamePageCachedUntilAChange checks a repeated listing is the cached
// page with its memo built once, that a change gives a new page, and that
// an empty cached page does not outlive its namespace (only a page with
// names proves the namespace exists).
func TestNamePageCachedUntilAChange(t *testing.T) {
	inBothListingModes(t, checkNamePageCachedUntilAChange)
}

func checkNamePageCachedUntilAChange(t *testing.T, a, b *Store) {
	ctx := context.Background()
	mustBucket(t, a, "vec", FormatLance)
	mustNamespace(t, a, "vec", "docs")
	mustNamespace(t, a, "vec", "empty")
	mustTable(t, a, TableRef{Bucket: "vec", Namespace: []string{"docs"}, Name: "one"}, FormatLance)
	opt := ListTablesOptions{Format: FormatLance, IncludeDeclared: true}
	page := func(ns string) (*NamePage, error) { return a.ListTableNamePage(ctx, "vec", []string{ns}, opt) }
	builds := 0
	build := func() []byte { builds++; return []byte("x") }
	p1, err := page("docs")
	if err != nil {
		t.Fatal(err)
	}
	p1.Memo(build)
	p2, err := page("docs")
	if err != nil {
		t.Fatal(err)
	}
	p2.Memo(build)
	if p1 != p2 || builds != 1 {
		t.Fatalf("repeated listing: same page %v, memo built %d times; want the cached page, built once", p1 == p2, builds)
	}
	mustTable(t, b, TableRef{Bucket: "vec", Namespace: []string{"docs"}, Name: "two"}, FormatLance)
	p3, err := page("docs")
	if err != nil {
		t.Fatal(err)
	}
	if p3 == p1 || !slices.Equal(p3.Names, []string{"one", "two"}) {
		t.Fatalf("after another process created a table: %v (same page %v)", p3.Names, p3 == p1)
	}
	if p, err := page("empty"); err != nil || len(p.Names) != 0 {
		t.Fatalf("empty namespace: %v, %v", p, err)
	}
	if err := b.DropNamespace(ctx, "vec", []string{"empty"}, false); err != nil {
		t.Fatal(err)
	}
	if _, err := page("empty"); !errors.Is(err, fault.NotFound) {
		t.Fatalf("listing a dropped empty namespace from the cache: %v, want NotFound", err)
	}
}
