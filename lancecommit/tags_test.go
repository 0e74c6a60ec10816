package lancecommit

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/fault"
	"github.com/floe/floe/internal/lancetest"
)

// localTable is an unmanaged Lance table on a local warehouse with
// versions 1..n written as LanceDB names them (V2 scheme).
func localTable(t *testing.T, n uint64) (*Service, catalog.Table, string) {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	st, err := catalog.Open(ctx, catalog.Options{Path: filepath.Join(dir, "catalog.db"), Warehouse: filepath.Join(dir, "wh")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if _, err := st.CreateBucket(ctx, catalog.CreateBucketInput{Name: "lbk", Format: catalog.FormatLance}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.CreateNamespace(ctx, "lbk", []string{"ns"}, nil); err != nil {
		t.Fatal(err)
	}
	tb, _, err := st.CreateTable(ctx, catalog.CreateTableInput{TableRef: catalog.TableRef{Bucket: "lbk", Namespace: []string{"ns"}, Name: "t"}, Format: catalog.FormatLance})
	if err != nil {
		t.Fatal(err)
	}
	root := strings.TrimPrefix(tb.Location, "file://")
	for v := uint64(1); v <= n; v++ {
		writeManifest(t, filepath.Join(root, "_versions"), v)
	}
	return New(st), tb, root
}

func writeManifest(t *testing.T, dir string, v uint64) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	name := filepath.Join(dir, catalog.ManifestName(v, true))
	if err := os.WriteFile(name, lancetest.Manifest(v, 10*v), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Tags are created, read, listed in pages, moved and deleted in Lance's
// own files; refusals carry the kind and field the surfaces map.
func TestTags(t *testing.T) {
	svc, tb, root := localTable(t, 3)
	ctx := context.Background()
	if err := svc.CreateTag(ctx, tb, "prod", 2); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"a", "b"} {
		if err := svc.CreateTag(ctx, tb, n, 1); err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile(filepath.Join(root, "_refs", "tags", "prod.json"))
	if err != nil || !strings.Contains(string(b), `"version": 2`) || !strings.Contains(string(b), `"manifestSize"`) {
		t.Fatalf("tag file %s, %v", b, err)
	}
	tg, err := svc.Tag(ctx, tb, "prod")
	if err != nil || tg.Version != 2 || tg.CreatedAt.IsZero() {
		t.Fatalf("Tag(prod) = %+v, %v", tg, err)
	}
	page, next, err := svc.Tags(ctx, tb, "", 2)
	if err != nil || len(page) != 2 || page[0].Name != "a" || next != "b" {
		t.Fatalf("first page %+v next %q %v", page, next, err)
	}
	if page, next, _ = svc.Tags(ctx, tb, next, 2); len(page) != 1 || page[0].Name != "prod" || next != "" {
		t.Fatalf("second page %+v next %q", page, next)
	}
	if err := svc.MoveTag(ctx, tb, "prod", 3); err != nil {
		t.Fatal(err)
	}
	if tg2, _ := svc.Tag(ctx, tb, "prod"); tg2.Version != 3 || !tg2.CreatedAt.Equal(tg.CreatedAt) {
		t.Errorf("moved tag %+v (created must stay %v)", tg2, tg.CreatedAt)
	}
	cases := []struct {
		name  string
		err   error
		kind  fault.Kind
		field string
	}{
		{"create twice", svc.CreateTag(ctx, tb, "prod", 1), fault.AlreadyExists, "tag"},
		{"missing version", svc.CreateTag(ctx, tb, "x", 9), fault.NotFound, "version"},
		{"move missing", svc.MoveTag(ctx, tb, "nope", 1), fault.NotFound, "tag"},
		{"traversal", svc.CreateTag(ctx, tb, "../x", 1), fault.Invalid, "tag"},
		{"version 0", svc.CreateTag(ctx, tb, "z", 0), fault.Invalid, "version"},
		{"delete missing", svc.DeleteTag(ctx, tb, "nope"), fault.NotFound, "tag"},
	}
	for _, c := range cases {
		e, ok := fault.As(c.err)
		if !ok || e.Kind != c.kind || e.Field != c.field {
			t.Errorf("%s: %v, want %s on %s", c.name, c.err, c.kind, c.field)
		}
	}
	if err := svc.DeleteTag(ctx, tb, "prod"); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Tag(ctx, tb, "prod"); !errors.Is(err, fault.NotFound) {
		t.Errorf("deleted tag: %v", err)
	}
}

// Branches are read from _refs/branches (names with '/' in sub-folders)
// with the newest version of their tree/<name>/_versions, as LanceDB 0.39
// lays them out.
func TestBranches(t *testing.T) {
	svc, tb, root := localTable(t, 2)
	ctx := context.Background()
	if got, err := svc.Branches(ctx, tb); err != nil || len(got) != 0 {
		t.Fatalf("no branches: %v %v", got, err)
	}
	refs := filepath.Join(root, "_refs", "branches")
	if err := os.MkdirAll(filepath.Join(refs, "team"), 0o755); err != nil {
		t.Fatal(err)
	}
	// As LanceDB 0.39 writes it (table.branches().create("exp", undefined, 1)).
	exp := `{"parentBranch": null, "identifier": {"version_mapping": [[1, "8fa3c866745343de8d6f135b2428e556"]]},
		"parentVersion": 1, "createAt": 1796167046, "manifestSize": 371, "metadata": {}}`
	if err := os.WriteFile(filepath.Join(refs, "exp.json"), []byte(exp), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(refs, "team", "dev.json"), []byte(`{"parentBranch":"exp","parentVersion":2,"createAt":1796167100}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, v := range []uint64{1, 2} {
		writeManifest(t, filepath.Join(root, "tree", "exp", "_versions"), v)
	}
	got, err := svc.Branches(ctx, tb)
	if err != nil || len(got) != 2 {
		t.Fatalf("Branches = %+v, %v", got, err)
	}
	if b := got[0]; b.Name != "exp" || b.ParentBranch != "" || b.ParentVersion != 1 || b.Latest != 2 || b.CreatedAt.Unix() != 1796167046 {
		t.Errorf("exp: %+v", b)
	}
	if b := got[1]; b.Name != "team/dev" || b.ParentBranch != "exp" || b.Latest != 0 {
		t.Errorf("team/dev: %+v", b)
	}
}
