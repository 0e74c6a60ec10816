package web

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/observe"
	"github.com/floe/floe/plugin"
)

// The table page reads a Lance table's version from storage: a dash before
// the first write, then the latest manifest's version (V2 names invert it),
// with no worker involved; once observed, the observed version is shown
// with "updating to version N…" while storage is ahead.
func TestTablePageShowsLanceVersion(t *testing.T) {
	e := newWorkerEnv(t, plugin.Options{}) // a plugin channel, no worker: the observe is asked for, never answered
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

	// Once a worker observed version 1, every panel shows version 1 (the
	// figures belong to it) and the header says a newer one is being read.
	if _, err := e.obs.Put(observe.Observation{ObjectID: tb.ID, Format: catalog.FormatLance, WorkerID: "w",
		ObservedAt: time.Now(), Attributes: json.RawMessage(`{"version":1,"rows":10,"fragments":1,"versions":1}`)}); err != nil {
		t.Fatal(err)
	}
	r = e.get(c, page)
	if got := strings.Join(strings.Fields(r.text("meta-version")), " "); got != "1 · updating to version 3…" {
		t.Fatalf("version behind storage = %q, want the observed one and the update", got)
	}
	if got := r.text("obs-version"); got != "1" {
		t.Fatalf("observed panel version = %q, want 1 like the header", got)
	}
	if got := r.text("meta-rows"); got != "10" {
		t.Fatalf("rows = %q, want the observation's 10", got)
	}
}
