package lancerest

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/internal/s3test"
	"github.com/floe/floe/warehouse"
)

// managedS3 is floe's Lance REST on a catalog whose warehouse is in a real
// SeaweedFS store, for LanceDB runs against managed buckets.
type managedS3 struct {
	st   *catalog.Store
	wh   *warehouse.S3
	root warehouse.Location
	url  string
	key  string
}

func newManagedS3(t testing.TB) managedS3 {
	t.Helper()
	store := s3test.Require(t)
	return newManagedS3On(t, store, warehouse.S3Config{Endpoint: store.Endpoint})
}

// newManagedS3On is newManagedS3 reaching store as cfg says (its Endpoint,
// NoConditionalPut); floe and the clients it vends keys to use that
// endpoint alike.
func newManagedS3On(t testing.TB, store *s3test.Store, cfg warehouse.S3Config) managedS3 {
	t.Helper()
	ctx := context.Background()
	root, err := warehouse.Parse("s3://" + store.Bucket(t) + "/wh")
	if err != nil {
		t.Fatal(err)
	}
	cfg.Region, cfg.PathStyle, cfg.AccessKey, cfg.SecretKey = s3test.Region, true, store.AccessKey, store.SecretKey
	b, err := warehouse.OpenS3(ctx, root, cfg)
	if err != nil {
		t.Fatal(err)
	}
	st, err := catalog.Open(ctx, catalog.Options{Path: filepath.Join(t.TempDir(), "catalog.db"), Warehouse: root.String(), Backend: b})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	_, key, err := st.CreateAPIKey(ctx, "lancedb-managed", catalog.RoleReadWrite, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(New(Config{Store: st, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Storage: warehouse.ClientAccess{S3: b, Mode: warehouse.VendStatic}}).Handler())
	t.Cleanup(srv.Close)
	return managedS3{st: st, wh: b, root: root, url: srv.URL, key: key}
}

// nodeWithLanceDB finds node and the repository's LanceDB, or skips (fails
// in CI) saying how to get them.
func nodeWithLanceDB(t testing.TB) (root, node string) {
	t.Helper()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	node, err = exec.LookPath("node")
	if err == nil {
		_, err = os.Stat(filepath.Join(root, "node_modules", "@lancedb", "lancedb", "package.json"))
	}
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("needs node and node_modules/@lancedb/lancedb (run npm ci): %v", err)
		}
		t.Skipf("skipping: node or node_modules/@lancedb/lancedb missing (%v); run npm ci", err)
	}
	return root, node
}

// TestLanceDBManagedOnS3 runs test/lancedb-managed (LanceDB 0.39 on a
// bucket with managed versioning: eight writers appending through floe, a
// tag, compaction), then checks what the store and the catalog say: the
// catalog's version list is exactly the table's _versions/ manifests, and
// a commit of a version that exists gets the spec's conflict.
func TestLanceDBManagedOnS3(t *testing.T) {
	root, node := nodeWithLanceDB(t)
	runManagedJourney(t, root, node, newManagedS3(t))
}

// runManagedJourney runs test/lancedb-managed against f and checks the
// catalog's record against the store and a late writer's conflict.
func runManagedJourney(t *testing.T, root, node string, f managedS3) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), realClientTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "--test", "--test-reporter=spec", "test/lancedb-managed/")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "FLOE_LANCE_URL="+f.url, "FLOE_API_KEY="+f.key,
		"AWS_ACCESS_KEY_ID=", "AWS_SECRET_ACCESS_KEY=", "AWS_ENDPOINT_URL=")
	out, err := cmd.CombinedOutput()
	if err != nil || testing.Verbose() {
		t.Logf("node --test test/lancedb-managed/:\n%s", out)
	}
	if err != nil {
		t.Fatalf("LanceDB's managed journey failed: %v", err)
	}

	tb, err := f.st.GetTable(ctx, catalog.TableRef{Bucket: "mvs3", Namespace: []string{"ns"}, Name: "log"})
	if err != nil {
		t.Fatal(err)
	}
	recorded, err := f.st.LanceVersions(ctx, tb.ID, catalog.LanceVersionQuery{Limit: catalog.MaxPageSize})
	if err != nil {
		t.Fatal(err)
	}
	loc, _ := warehouse.Parse(tb.Location)
	dir := loc.MustJoin("_versions")
	var stored []string
	if err := f.wh.List(ctx, dir, func(e warehouse.Entry) error {
		if strings.HasSuffix(e.Loc.Base(), ".manifest") {
			stored = append(stored, e.Loc.String())
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	var inCatalog []string
	for _, v := range recorded {
		inCatalog = append(inCatalog, v.ManifestPath)
		if v.Principal != "lancedb-managed" || v.KeyID == "" {
			t.Errorf("version %d recorded as committed by %q (%q)", v.Version, v.Principal, v.KeyID)
		}
	}
	slices.Sort(stored)
	slices.Sort(inCatalog)
	if len(stored) < 42 || !slices.Equal(stored, inCatalog) {
		t.Fatalf("the catalog records %d versions, _versions/ holds %d manifests:\ncatalog %v\nstorage %v", len(inCatalog), len(stored), inCatalog, stored)
	}

	// A writer committing a version that exists gets the conflict (409,
	// code 14), and nothing changes.
	latest := recorded[len(recorded)-1]
	final, _ := warehouse.Parse(latest.ManifestPath)
	data, err := f.st.Storage().ReadFile(ctx, final)
	if err != nil {
		t.Fatal(err)
	}
	staged := dir.MustJoin(catalog.ManifestName(latest.Version, true) + "-late-writer")
	if err := f.st.Storage().WriteFile(ctx, staged, data); err != nil {
		t.Fatal(err)
	}
	body, _ := json.Marshal(map[string]any{"version": latest.Version, "manifest_path": staged.ObjectPath()})
	e := &testEnv{t: t, store: f.st, rw: f.key, srv: &httptest.Server{URL: f.url}}
	r := e.do("POST", "/v1/table/mvs3$ns$log/version/create", f.key, body)
	if r.status != 409 || !strings.Contains(string(r.body), `"code":14`) {
		t.Fatalf("committing version %d again = %d %s; want 409 code 14", latest.Version, r.status, r.body)
	}
	again, err := f.st.LanceVersions(ctx, tb.ID, catalog.LanceVersionQuery{Limit: catalog.MaxPageSize})
	if err != nil || len(again) != len(recorded) {
		t.Fatalf("after the refused commit the catalog has %d versions (was %d), %v", len(again), len(recorded), err)
	}
}

// BenchmarkManagedAppendS3: p50 of an append through managed versioning
// against the same append on an unmanaged bucket, alternating on one floe
// on SeaweedFS (test/lancedb-managed/bench.mjs); reports managed/unmanaged
// (target ≤ 1.5). One measurement per call, whatever b.N: run it with
// -benchtime=1x. FLOE_BENCH_APPENDS sets the appends per kind (40).
func BenchmarkManagedAppendS3(b *testing.B) {
	root, node := nodeWithLanceDB(b)
	f := newManagedS3(b)
	appends := os.Getenv("FLOE_BENCH_APPENDS")
	if appends == "" {
		appends = "40"
	}
	cmd := exec.CommandContext(b.Context(), node, "test/lancedb-managed/bench.mjs")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "FLOE_LANCE_URL="+f.url, "FLOE_API_KEY="+f.key, "FLOE_BENCH_APPENDS="+appends,
		"AWS_ACCESS_KEY_ID=", "AWS_SECRET_ACCESS_KEY=", "AWS_ENDPOINT_URL=")
	out, err := cmd.Output()
	if err != nil {
		b.Fatalf("bench.mjs: %v\n%s", err, out)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	var res struct {
		Ratio     float64 `json:"ratio_p50"`
		Managed   float64 `json:"managed_p50_ms"`
		Unmanaged float64 `json:"unmanaged_p50_ms"`
	}
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &res); err != nil {
		b.Fatalf("bench.mjs printed %q: %v", out, err)
	}
	b.ReportMetric(res.Ratio, "managed/unmanaged-p50")
	b.ReportMetric(res.Managed, "managed-p50-ms")
	b.ReportMetric(res.Unmanaged, "unmanaged-p50-ms")
	b.Logf("%s", lines[len(lines)-1])
}
