package iceworker

import (
	"context"
	"io"
	"log/slog"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/iceberg-go/catalog/rest"
	"github.com/apache/iceberg-go/table"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/icebergrest"
	"github.com/floe/floe/internal/dbschema"
	"github.com/floe/floe/internal/s3test"
	"github.com/floe/floe/persist/persisttest"
	"github.com/floe/floe/warehouse"
)

// newS3Env is newEnv with the warehouse in a real S3 store of the test's
// own (SeaweedFS on loopback); floe's Iceberg REST hands iceberg-go the
// store's config with static keys. The returned WarehouseFiles has the
// operator's settings, as `floe worker iceberg --s3-*` would.
func newS3Env(t *testing.T) (*testEnv, *WarehouseFiles, *warehouse.S3) {
	t.Helper()
	for _, k := range []string{"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_ENDPOINT_URL", "AWS_PROFILE"} {
		t.Setenv(k, "")
	}
	t.Setenv("AWS_CONFIG_FILE", filepath.Join(t.TempDir(), "none"))
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", filepath.Join(t.TempDir(), "none"))
	st := s3test.New(t)
	ctx := context.Background()
	root, err := warehouse.Parse("s3://" + st.Bucket(t) + "/wh")
	if err != nil {
		t.Fatal(err)
	}
	cfg := warehouse.S3Config{Endpoint: st.Endpoint, Region: s3test.Region, PathStyle: true, AccessKey: st.AccessKey, SecretKey: st.SecretKey}
	b, err := warehouse.OpenS3(ctx, root, cfg)
	if err != nil {
		t.Fatal(err)
	}
	db := persisttest.OpenAt(t, filepath.Join(t.TempDir(), "catalog.db"), dbschema.All()...)
	store, err := catalog.New(db, catalog.Options{Warehouse: root.String(), Backend: b})
	if err != nil {
		t.Fatalf("open catalog: %v", err)
	}
	t.Cleanup(func() { store.Close() })
	srv := icebergrest.New(icebergrest.Config{Store: store, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Storage: warehouse.ClientAccess{S3: b, Mode: warehouse.VendStatic}})
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(hs.Close)
	if _, err := store.CreateBucket(ctx, catalog.CreateBucketInput{Name: "lake", Format: catalog.FormatIceberg}); err != nil {
		t.Fatal(err)
	}
	_, key, err := store.CreateAPIKey(ctx, "test", catalog.RoleReadWrite, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	cat, err := rest.NewCatalog(ctx, "floe", hs.URL, rest.WithWarehouseLocation("lake"), rest.WithOAuthToken(key))
	if err != nil {
		t.Fatal(err)
	}
	if err := cat.CreateNamespace(ctx, table.Identifier{"ns"}, nil); err != nil {
		t.Fatal(err)
	}
	ice, err := NewCatalog(hs.URL, key)
	if err != nil {
		t.Fatal(err)
	}
	return &testEnv{db: db, store: store, url: hs.URL, key: key, cat: cat, ice: ice}, &WarehouseFiles{S3: cfg}, b
}

// objects lists the table's objects in the store.
func objects(t *testing.T, b *warehouse.S3, loc string) map[string]bool {
	t.Helper()
	l, err := warehouse.Parse(loc)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	if err := b.List(context.Background(), l, func(e warehouse.Entry) error { out[e.Loc.String()] = true; return nil }); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestExpireOnS3: appends and a compaction on an S3 table, then expiry:
// the files only old snapshots needed are gone from the store, every file
// of the remaining snapshot is there, and the rows read the same.
func TestExpireOnS3(t *testing.T) {
	e, files, b := newS3Env(t)
	tbl := e.createTable(t, "events", true, nil)
	for i := range int64(4) {
		tbl = appendRows(t, tbl, i*10, i*10+10)
	}
	if loc := tbl.Location(); !strings.HasPrefix(loc, "s3://") {
		t.Fatalf("table location %q is not on the store", loc)
	}
	compact := e.job(t, JobCompact, "events", map[string]string{"min_input_files": "2"})
	compact.Files = files
	mustRun(t, compact)
	tbl = e.load(t, "events")
	wantRows := scanRows(t, tbl, 0)

	stay := map[string]bool{}
	for _, f := range snapshotFiles(t, tbl, tbl.CurrentSnapshot()) {
		stay[f] = true
	}
	gone := map[string]bool{}
	for _, s := range tbl.Metadata().Snapshots() {
		for _, f := range snapshotFiles(t, tbl, &s) {
			if !stay[f] {
				gone[f] = true
			}
		}
	}
	if len(gone) == 0 {
		t.Fatal("test setup: no data file is reachable only from expiring snapshots")
	}
	before := objects(t, b, tbl.Location())
	for f := range gone {
		if !before[f] {
			t.Fatalf("test setup: %s is not in the store", f)
		}
	}

	j := e.job(t, JobExpire, "events", map[string]string{"max_snapshot_age_hours": "0", "retain_last": "1"})
	j.Files = files
	out := mustRun(t, j)
	t.Log(out.Summary)

	tbl = e.load(t, "events")
	if n := len(tbl.Metadata().Snapshots()); n != 1 {
		t.Fatalf("snapshots after expiry = %d, want 1", n)
	}
	after := objects(t, b, tbl.Location())
	for f := range gone {
		if after[f] {
			t.Errorf("expired data file %s is still in the store", f)
		}
	}
	for f := range stay {
		if !after[f] {
			t.Errorf("data file %s of the current snapshot was deleted", f)
		}
	}
	if len(after) >= len(before) {
		t.Errorf("objects before %d, after %d: expiry removed nothing", len(before), len(after))
	}
	if got := scanRows(t, tbl, 0); !slices.Equal(got, wantRows) {
		t.Fatalf("rows changed: %d → %d", len(wantRows), len(got))
	}
}
