package lancecommit

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/fault"
	"github.com/floe/floe/internal/lancetest"
	"github.com/floe/floe/warehouse"
)

// blindLocal is the local disk behaving as a store that ignores
// If-None-Match: an exclusive create replaces what is there.
type blindLocal struct{ *warehouse.Local }

func (blindLocal) ConditionalWrites() bool { return false }

func (b blindLocal) CreateExclusive(ctx context.Context, loc warehouse.Location, data []byte) error {
	return b.WriteFile(ctx, loc, data)
}

// blindTable is a table of a managed bucket on a blindLocal warehouse.
func blindTable(t *testing.T) (*Service, *catalog.Store, catalog.Table, warehouse.Location) {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	local, err := warehouse.OpenLocal(filepath.Join(dir, "wh"))
	if err != nil {
		t.Fatal(err)
	}
	st, err := catalog.Open(ctx, catalog.Options{Path: filepath.Join(dir, "catalog.db"), Warehouse: local.Root().String(), Backend: blindLocal{local}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if _, err := st.CreateBucket(ctx, catalog.CreateBucketInput{Name: "blb", Format: catalog.FormatLance}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.CreateNamespace(ctx, "blb", []string{"ns"}, nil); err != nil {
		t.Fatal(err)
	}
	tb, _, err := st.CreateTable(ctx, catalog.CreateTableInput{TableRef: catalog.TableRef{Bucket: "blb", Namespace: []string{"ns"}, Name: "t"}, Format: catalog.FormatLance})
	if err != nil {
		t.Fatal(err)
	}
	loc, _ := warehouse.Parse(tb.Location)
	dirLoc := loc.MustJoin("_versions")
	if err := st.Storage().MkdirAll(ctx, dirLoc); err != nil {
		t.Fatal(err)
	}
	return New(st), st, tb, dirLoc
}

// Where the store cannot refuse, the database and a look decide: a
// manifest a client wrote to its final name is refused (it could have
// replaced another writer's), and a final name some writer filled behind
// floe's back is adopted as the conflict, not overwritten.
func TestCommitWithoutConditionalWrites(t *testing.T) {
	svc, st, tb, dir := blindTable(t)
	ctx := context.Background()
	wh := st.Storage()
	write := func(name string, v, rows uint64) warehouse.Location {
		t.Helper()
		p := dir.MustJoin(name)
		if err := wh.WriteFile(ctx, p, lancetest.Manifest(v, rows)); err != nil {
			t.Fatal(err)
		}
		return p
	}
	commit := func(v uint64, p warehouse.Location) error {
		_, err := svc.Create(ctx, []Commit{{Table: tb, Version: v, Manifest: p.ObjectPath(), KeyID: "k", Principal: "p"}})
		return err
	}

	final1 := write(catalog.ManifestName(1, true), 1, 1)
	err := commit(1, final1)
	if !errors.Is(err, fault.Invalid) || !strings.Contains(err.Error(), "staging name") {
		t.Fatalf("committing a manifest written to its final name = %v; want a refusal asking for a staging name", err)
	}
	if err := wh.Delete(ctx, final1); err != nil {
		t.Fatal(err)
	}
	if err := commit(1, write(catalog.ManifestName(1, true)+"-a", 1, 1)); err != nil {
		t.Fatalf("a staged commit: %v", err)
	}

	// A writer that bypasses floe puts version 2 in place; floe's commit of
	// version 2 must not replace it.
	final2 := write(catalog.ManifestName(2, true), 2, 222)
	err = commit(2, write(catalog.ManifestName(2, true)+"-b", 2, 7))
	if !errors.Is(err, fault.Conflict) {
		t.Fatalf("committing over a version written behind floe's back = %v; want the conflict", err)
	}
	got, err := wh.ReadFile(ctx, final2)
	if err != nil || string(got) != string(lancetest.Manifest(2, 222)) {
		t.Fatalf("the bypassing writer's manifest was replaced (%d bytes, %v)", len(got), err)
	}
	if err := commit(3, write(catalog.ManifestName(3, true)+"-c", 3, 3)); err != nil {
		t.Fatalf("version 3 on top of the adopted one: %v", err)
	}
	vs, err := st.LanceVersions(ctx, tb.ID, catalog.LanceVersionQuery{Limit: 10})
	if err != nil || len(vs) != 3 {
		t.Fatalf("recorded %d versions (%v), want 1, 2 (adopted) and 3", len(vs), err)
	}
}
