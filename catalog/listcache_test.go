package catalog

import (
	"context"
	"slices"
	"testing"
)

// TestListTableNamesSeesEveryChange checks the cached name listing never
// outlives a change, whether made through the same Store or through a second
// one on the same file (the CLI beside floe serve).
func TestListTableNamesSeesEveryChange(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	a := openAt(t, dir)
	b := openAt(t, dir)
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
