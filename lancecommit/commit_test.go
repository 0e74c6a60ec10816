package lancecommit

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/fault"
	"github.com/floe/floe/internal/lancetest"
	"github.com/floe/floe/internal/s3test"
	"github.com/floe/floe/warehouse"
)

func TestMain(m *testing.M) { s3test.Main(m) }

// s3Table is a managed Lance table on a catalog whose warehouse is in a
// real SeaweedFS store.
func s3Table(t *testing.T) (*Service, *catalog.Store, catalog.Table) {
	t.Helper()
	store := s3test.Require(t)
	ctx := context.Background()
	root, err := warehouse.Parse("s3://" + store.Bucket(t) + "/wh")
	if err != nil {
		t.Fatal(err)
	}
	b, err := warehouse.OpenS3(ctx, root, warehouse.S3Config{Endpoint: store.Endpoint, Region: s3test.Region, PathStyle: true,
		AccessKey: store.AccessKey, SecretKey: store.SecretKey})
	if err != nil {
		t.Fatal(err)
	}
	st, err := catalog.Open(ctx, catalog.Options{Path: filepath.Join(t.TempDir(), "catalog.db"), Warehouse: root.String(), Backend: b})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if _, err := st.CreateBucket(ctx, catalog.CreateBucketInput{Name: "mvb", Format: catalog.FormatLance, ManagedVersioning: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.CreateNamespace(ctx, "mvb", []string{"ns"}, nil); err != nil {
		t.Fatal(err)
	}
	tb, _, err := st.CreateTable(ctx, catalog.CreateTableInput{TableRef: catalog.TableRef{Bucket: "mvb", Namespace: []string{"ns"}, Name: "t"}, Format: catalog.FormatLance})
	if err != nil {
		t.Fatal(err)
	}
	return New(st), st, tb
}

// TestCopyInPlaceOnS3: with the client's size and e-tag, the staged
// manifest is copied to its final name inside the store; a staged file
// rewritten after the client reported it is refused as a conflict and
// frees the number; a missing one is invalid input.
func TestCopyInPlaceOnS3(t *testing.T) {
	svc, st, tb := s3Table(t)
	ctx := context.Background()
	wh := st.Storage()
	loc, _ := warehouse.Parse(tb.Location)
	dir := loc.MustJoin("_versions")
	stageAt := func(v uint64, suffix string) (warehouse.Location, string, int64) {
		t.Helper()
		p := dir.MustJoin(catalog.ManifestName(v, true) + "-" + suffix)
		data := lancetest.Manifest(v, v)
		etag, err := wh.CreateExclusiveETag(ctx, p, data)
		if err != nil {
			t.Fatal(err)
		}
		return p, etag, int64(len(data))
	}
	commit := func(v uint64, p warehouse.Location, etag string, size int64) (Committed, error) {
		return svc.Create(ctx, []Commit{{Table: tb, Version: v, Manifest: p.ObjectPath(), Size: size, ETag: etag, KeyID: "k", Principal: "p"}})
	}

	p1, etag1, size1 := stageAt(1, "a")
	res, err := commit(1, p1, etag1, size1)
	if err != nil {
		t.Fatal(err)
	}
	res.Tidy(ctx)
	final := dir.MustJoin(catalog.ManifestName(1, true))
	if got, err := wh.ReadFile(ctx, final); err != nil || string(got) != string(lancetest.Manifest(1, 1)) {
		t.Fatalf("final manifest = %d bytes, %v", len(got), err)
	}
	if ok, _ := wh.Exists(ctx, p1); ok {
		t.Error("Tidy left the staging manifest")
	}
	if res.Versions[0].Size != size1 || res.Versions[0].ETag == "" {
		t.Errorf("committed %+v; want the client's size and the copy's e-tag", res.Versions[0])
	}

	p2, etag2, size2 := stageAt(2, "b")
	if err := wh.WriteFile(ctx, p2, lancetest.Manifest(2, 99)); err != nil { // rewritten since it was reported
		t.Fatal(err)
	}
	_, err = commit(2, p2, etag2, size2)
	var ce *fault.Error
	if !errors.Is(err, fault.Conflict) || !errors.As(err, &ce) || ce.Field != "manifest_path" {
		t.Fatalf("commit of a rewritten staging file = %v; want a manifest_path conflict", err)
	}
	if ok, _ := wh.Exists(ctx, dir.MustJoin(catalog.ManifestName(2, true))); ok {
		t.Fatal("a refused commit left its final manifest")
	}
	_, err = commit(2, dir.MustJoin(catalog.ManifestName(2, true)+"-gone"), etag2, size2)
	if !errors.Is(err, fault.Invalid) {
		t.Fatalf("commit of a missing staging file = %v; want invalid input", err)
	}
	p2, etag2, size2 = stageAt(2, "c")
	if _, err := commit(2, p2, etag2, size2); err != nil {
		t.Fatalf("version 2 after the refusals: %v (the number must be free)", err)
	}
	latest, ok, err := svc.Describe(ctx, tb, true, 0)
	if err != nil || !ok || latest.Version != 2 {
		t.Fatalf("latest = %+v, %v, %v", latest, ok, err)
	}
}
