package lancerest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"maps"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/fault"
	"github.com/floe/floe/internal/s3test"
	"github.com/floe/floe/warehouse"
)

// TestSoftDeleteOnS3: on a SeaweedFS warehouse, LanceDB 0.39 writes a
// table (three versions) and a neighbour through floe. DropTable on the
// Lance REST hides the table from every listing and leaves each of its
// objects as it was (hashed); Undrop on the Lance REST brings it back with
// every row and version; after a second drop, Purge now deletes exactly
// its objects and leaves the neighbour's byte for byte (issue 24).
func TestSoftDeleteOnS3(t *testing.T) {
	root, node := nodeWithLanceDB(t)
	store := s3test.Require(t)
	ctx, cancel := context.WithTimeout(t.Context(), realClientTimeout)
	defer cancel()
	whRoot, err := warehouse.Parse("s3://" + store.Bucket(t) + "/wh")
	if err != nil {
		t.Fatal(err)
	}
	wh, err := warehouse.OpenS3(ctx, whRoot, warehouse.S3Config{Endpoint: store.Endpoint, Region: s3test.Region, PathStyle: true,
		AccessKey: store.AccessKey, SecretKey: store.SecretKey})
	if err != nil {
		t.Fatal(err)
	}
	st, err := catalog.Open(ctx, catalog.Options{Path: filepath.Join(t.TempDir(), "catalog.db"), Warehouse: whRoot.String(), Backend: wh,
		SoftDeleteHold: 7 * 24 * time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	_, key, err := st.CreateAPIKey(ctx, "lancedb-softdelete", catalog.RoleReadWrite, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(New(Config{Store: st, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Storage: warehouse.ClientAccess{S3: wh, Mode: warehouse.VendStatic}}).Handler())
	t.Cleanup(srv.Close)
	e := &testEnv{t: t, store: st, rw: key, srv: srv}

	lancedb := func(args ...string) map[string]any {
		t.Helper()
		cmd := exec.CommandContext(ctx, node, append([]string{"test/lancedb-softdelete/softdelete.mjs"}, args...)...)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "FLOE_LANCE_URL="+srv.URL, "FLOE_API_KEY="+key,
			"AWS_ACCESS_KEY_ID=", "AWS_SECRET_ACCESS_KEY=", "AWS_ENDPOINT_URL=")
		out, err := cmd.Output()
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("softdelete.mjs %v: %v\n%s\n%s", args, err, out, ee.Stderr)
		} else if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		var m map[string]any
		if err := json.Unmarshal([]byte(lines[len(lines)-1]), &m); err != nil {
			t.Fatalf("softdelete.mjs %v printed %q: %v", args, out, err)
		}
		return m
	}
	objects := func(loc string) map[string]string {
		t.Helper()
		l, err := warehouse.Parse(loc)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]string{}
		if err := wh.List(ctx, l, func(en warehouse.Entry) error {
			b, err := wh.ReadFile(ctx, en.Loc)
			if err != nil {
				return err
			}
			h := sha256.Sum256(b)
			out[en.Loc.String()] = hex.EncodeToString(h[:])
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		return out
	}
	listed := func() []string {
		t.Helper()
		r := e.do("GET", "/v1/namespace/sd3$ns/table/list?delimiter=%24", key, nil)
		if r.status != 200 {
			t.Fatalf("list tables: %d %s", r.status, r.body)
		}
		var resp struct {
			Tables []string `json:"tables"`
		}
		if err := json.Unmarshal(r.body, &resp); err != nil {
			t.Fatal(err)
		}
		slices.Sort(resp.Tables)
		return resp.Tables
	}

	lancedb("seed")
	tb, err := st.GetTable(ctx, catalog.TableRef{Bucket: "sd3", Namespace: []string{"ns"}, Name: "t"})
	if err != nil {
		t.Fatal(err)
	}
	nb, err := st.GetTable(ctx, catalog.TableRef{Bucket: "sd3", Namespace: []string{"ns"}, Name: "n"})
	if err != nil {
		t.Fatal(err)
	}
	want := lancedb("count", "t")
	before, nBefore := objects(tb.Location), objects(nb.Location)
	if len(before) < 6 || len(nBefore) == 0 {
		t.Fatalf("seeded %d objects of t and %d of n: the test would prove nothing", len(before), len(nBefore))
	}

	if r := e.do("POST", "/v1/table/sd3$ns$t/drop?delimiter=%24", key, []byte(`{}`)); r.status != 200 {
		t.Fatalf("DropTable: %d %s", r.status, r.body)
	}
	if got := listed(); !slices.Equal(got, []string{"n"}) {
		t.Fatalf("Lance REST lists %v after the drop, want [n]", got)
	}
	if r := e.do("POST", "/v1/table/sd3$ns$t/describe?delimiter=%24", key, []byte(`{}`)); r.status != 404 {
		t.Fatalf("describe of a dropped table: %d %s", r.status, r.body)
	}
	if all, _, err := st.ListTables(ctx, "sd3", []string{"ns"}, catalog.ListTablesOptions{IncludeDeclared: true, IncludeDeregistered: true}); err != nil || len(all) != 1 {
		t.Fatalf("catalog lists %d tables after the drop (%v), want 1", len(all), err)
	}
	if got := objects(tb.Location); !maps.Equal(got, before) {
		t.Fatalf("a held drop changed the objects: %d now, %d before", len(got), len(before))
	}

	if r := e.do("POST", "/v1/table/sd3$ns$t/undrop?delimiter=%24", key, []byte(`{}`)); r.status != 200 {
		t.Fatalf("undrop: %d %s", r.status, r.body)
	}
	if got := lancedb("count", "t"); !maps.EqualFunc(got, want, func(a, b any) bool { return strings.EqualFold(jsonText(a), jsonText(b)) }) {
		t.Fatalf("after undrop LanceDB reads %v, before the drop %v", got, want)
	}
	if got := listed(); !slices.Equal(got, []string{"n", "t"}) {
		t.Fatalf("Lance REST lists %v after undrop", got)
	}

	if r := e.do("POST", "/v1/table/sd3$ns$t/drop?delimiter=%24", key, []byte(`{}`)); r.status != 200 {
		t.Fatalf("second DropTable: %d %s", r.status, r.body)
	}
	if _, err := st.PurgeDeletedTable(ctx, tb.ID, false); err != nil {
		t.Fatal(err)
	}
	if got := objects(tb.Location); len(got) != 0 {
		t.Fatalf("Purge now left %d objects of the table", len(got))
	}
	if got := objects(nb.Location); !maps.Equal(got, nBefore) {
		t.Fatalf("Purge now changed the neighbour's objects: %d now, %d before", len(got), len(nBefore))
	}
	if _, err := st.GetDeletedTable(ctx, tb.ID); !errors.Is(err, fault.NotFound) {
		t.Fatalf("a purged table is still recently deleted: %v", err)
	}
	if got := lancedb("count", "n"); jsonText(got["rows"]) != "20" {
		t.Fatalf("neighbour reads %v after the purge", got)
	}
}

func jsonText(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
