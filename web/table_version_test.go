package web

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/floe/floe/catalog"
)

// The table page reads a Lance table's version from storage: a dash before
// the first write, then the latest manifest's version (V2 names invert it),
// with no worker involved.
func TestTablePageShowsLanceVersion(t *testing.T) {
	e := newEnv(t, allSurfaces)
	e.seed("vec", catalog.FormatLance, "prod", "items")
	c := e.admin()
	const page = "/buckets/vec/namespaces/prod/tables/items"
	if got := e.get(c, page).text("meta-version"); got != "—" {
		t.Fatalf("version before any write = %q, want a dash", got)
	}
	tb, err := e.table("vec", "prod", "items")
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(strings.TrimPrefix(tb.Location, "file://"), "_versions")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	// V2 names: u64::MAX - version, zero-padded to 20 digits.
	for _, name := range []string{"18446744073709551614.manifest", "18446744073709551612.manifest", "notes.txt"} {
		if err := os.WriteFile(filepath.Join(dir, name), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r := e.get(c, page)
	if got := r.text("meta-version"); got != "3" {
		t.Fatalf("version = %q, want 3", got)
	}
	if got := r.text("meta-state"); got != "created" {
		t.Fatalf("state = %q, want created once _versions/ exists", got)
	}
}
