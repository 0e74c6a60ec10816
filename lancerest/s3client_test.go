package lancerest

import (
	"context"
	"io"
	"log/slog"
	"maps"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/internal/s3test"
	"github.com/floe/floe/warehouse"
)

func TestMain(m *testing.M) { s3test.Main(m) }

// TestLanceDBOnS3 runs test/lancedb-s3 (LanceDB 0.39 through floe's Lance
// REST) on a warehouse in a real SeaweedFS store, then reads the store:
// drop left no object of its table, deregister kept every one. It runs
// once with floe's own keys vended and once with STS keys scoped to each
// table's prefix (SeaweedFS's STS, see s3test.NewWithSTS), which LanceDB
// must then do all its reads and writes with.
func TestLanceDBOnS3(t *testing.T) {
	for _, mode := range []warehouse.VendMode{warehouse.VendStatic, warehouse.VendSTS} {
		t.Run(string(mode), func(t *testing.T) { lanceDBOnS3(t, mode) })
	}
}

func lanceDBOnS3(t *testing.T, mode warehouse.VendMode) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	node, err := exec.LookPath("node")
	if err == nil {
		_, err = os.Stat(filepath.Join(root, "node_modules", "@lancedb", "lancedb", "package.json"))
	}
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("needs node and node_modules/@lancedb/lancedb (run npm ci): %v", err)
		}
		t.Skipf("skipping: node or node_modules/@lancedb/lancedb missing (%v); run npm ci", err)
	}
	var store *s3test.Store
	if mode == warehouse.VendSTS {
		store = s3test.NewWithSTS(t)
	} else {
		store = s3test.Require(t)
	}
	ctx := t.Context()
	whRoot, err := warehouse.Parse("s3://" + store.Bucket(t) + "/wh")
	if err != nil {
		t.Fatal(err)
	}
	b, err := warehouse.OpenS3(ctx, whRoot, warehouse.S3Config{Endpoint: store.Endpoint, Region: s3test.Region, PathStyle: true,
		AccessKey: store.AccessKey, SecretKey: store.SecretKey, STSRoleARN: store.RoleARN})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	st, err := catalog.Open(ctx, catalog.Options{Path: filepath.Join(dir, "catalog.db"), Warehouse: whRoot.String(), Backend: b})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	_, key, err := st.CreateAPIKey(ctx, "lancedb-s3", catalog.RoleReadWrite, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(New(Config{Store: st, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Storage: warehouse.ClientAccess{S3: b, Mode: mode}}).Handler())
	defer srv.Close()

	cctx, cancel := context.WithTimeout(ctx, realClientTimeout)
	defer cancel()
	cmd := exec.CommandContext(cctx, node, "--test", "--test-reporter=spec", "test/lancedb-s3/")
	cmd.Dir = root
	// No AWS_* variables: LanceDB must reach the store with what floe hands out.
	cmd.Env = append(os.Environ(), "FLOE_LANCE_URL="+srv.URL, "FLOE_API_KEY="+key, "FLOE_VEND="+string(mode),
		"AWS_ACCESS_KEY_ID=", "AWS_SECRET_ACCESS_KEY=", "AWS_ENDPOINT_URL=")
	out, err := cmd.CombinedOutput()
	if err != nil || testing.Verbose() {
		t.Logf("node --test test/lancedb-s3/:\n%s", out)
	}
	if err != nil {
		t.Fatalf("LanceDB journey on S3 failed: %v", err)
	}

	count := func(table string) (n int, names []string) {
		prefix := whRoot.MustJoin("s3b", "ns", table)
		if err := b.List(ctx, prefix, func(e warehouse.Entry) error {
			n++
			names = append(names, e.Loc.Base())
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		return n, names
	}
	if n, names := count("gone.lance"); n != 0 {
		t.Errorf("drop left %d objects in the store: %v", n, names)
	}
	n, names := count("kept.lance")
	if n == 0 || strings.Contains(strings.Join(names, " "), ".lance-deregistered") {
		t.Errorf("deregister kept %d objects %v; want the data and no marker", n, names)
	}
	if n, _ := count("items.lance"); n == 0 {
		t.Errorf("items.lance has no objects in the store")
	}

	// MyTable, mytable and My Table in namespace "Sales EU": the store holds
	// one namespace prefix and three table prefixes of its own, of lower
	// case only, so a case-insensitive listing cannot merge them.
	tables := map[string]bool{}
	nsDir := whRoot.MustJoin("s3b", catalog.NamespaceDirName([]string{"Sales EU"}))
	if err := b.List(ctx, nsDir, func(e warehouse.Entry) error {
		rel := strings.TrimPrefix(e.Loc.String(), nsDir.String()+"/")
		dir, _, _ := strings.Cut(rel, "/")
		tables[dir] = true
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{}
	for _, n := range []string{"MyTable", "mytable", "My Table"} {
		want[catalog.DirName(n)+".lance"] = true
	}
	folded := map[string]bool{}
	for d := range tables {
		folded[strings.ToLower(d)] = true
		if d != strings.ToLower(d) {
			t.Errorf("table prefix %q holds upper case", d)
		}
	}
	if len(tables) != 3 || len(folded) != 3 || !maps.Equal(tables, want) {
		t.Errorf("table prefixes under %s: %v, want %v", nsDir, tables, want)
	}
}
