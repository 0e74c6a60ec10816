package lancerest

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/internal/lancetest"
)

// managedEnv is a test env with a LANCE bucket "mvb" whose versions floe
// manages, holding namespace "ns".
func managedEnv(t *testing.T) *testEnv {
	t.Helper()
	e := newTestEnv(t, false)
	e.seed()
	ctx := context.Background()
	if _, err := e.store.CreateBucket(ctx, catalog.CreateBucketInput{Name: "mvb", Format: catalog.FormatLance, ManagedVersioning: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.store.CreateNamespace(ctx, "mvb", []string{"ns"}, nil); err != nil {
		t.Fatal(err)
	}
	return e
}

// stage writes a manifest for version under the table's _versions/ with a
// staging name, as a Lance client does, and returns its object-store path.
func stage(t *testing.T, tableDir string, version uint64, suffix string) string {
	t.Helper()
	name := catalog.ManifestName(version, true) + "-" + suffix
	p := filepath.Join(tableDir, "_versions", name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, lancetest.Manifest(version, 10*version), 0o644); err != nil {
		t.Fatal(err)
	}
	return strings.TrimPrefix(p, "/")
}

func createBody(version uint64, path string) string {
	b, _ := json.Marshal(map[string]any{"version": version, "manifest_path": path, "naming_scheme": "V2"})
	return string(b)
}

// TestCreateTableVersion: the commit path of managed versioning: the staged
// manifest moves to its final name, the catalog records the version, a
// taken number is the spec's conflict, and every bad manifest path is a
// 400 naming the rule.
func TestCreateTableVersion(t *testing.T) {
	e := managedEnv(t)
	dir := filepath.Join(e.warehouse, "mvb", "ns", "t.lance")
	other := filepath.Join(e.warehouse, "mvb", "ns", "u.lance")
	e.run(t, []step{
		{name: "declare answers managed", path: "/v1/table/mvb$ns$t/declare", status: 200, code: -1, want: []string{`"managed_versioning":true`}},
		{name: "declare another", path: "/v1/table/mvb$ns$u/declare", status: 200, code: -1},
		{name: "describe answers managed, no version yet", path: "/v1/table/mvb$ns$t/describe", status: 200, code: -1,
			want: []string{`"managed_versioning":true`}, notWant: []string{`"version"`}},
		{name: "unmanaged bucket declares unmanaged", path: "/v1/table/lnc$ns$t/declare", status: 200, code: -1, want: []string{`"managed_versioning":false`}},
		{name: "latest of nothing", path: "/v1/table/mvb$ns$t/version/list?limit=1&descending=true", status: 200, code: -1, want: []string{`{"versions":[]}`}},
	})
	s1 := stage(t, dir, 1, "aaaa")
	e.run(t, []step{
		{name: "create version 1", path: "/v1/table/mvb$ns$t/version/create", body: createBody(1, s1), status: 200, code: -1,
			want: []string{`"version":1,`, `"manifest_path":"` + strings.TrimPrefix(filepath.Join(dir, "_versions", catalog.ManifestName(1, true)), "/") + `"`, `"timestamp_millis":`}},
	})
	if _, err := os.Stat(filepath.Join(dir, "_versions", catalog.ManifestName(1, true))); err != nil {
		t.Fatalf("the final manifest is not there: %v", err)
	}
	// The staging file goes once the answer is out (the client does not
	// wait for that delete).
	gone := false
	for deadline := time.Now().Add(10 * time.Second); !gone && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		_, err := os.Stat("/" + s1)
		gone = os.IsNotExist(err)
	}
	if !gone {
		t.Errorf("the staging manifest %s was not removed", s1)
	}
	again := stage(t, dir, 1, "bbbb")
	s2 := stage(t, dir, 2, "cccc")
	wrong := stage(t, dir, 3, "dddd")
	if err := os.WriteFile("/"+wrong, lancetest.Manifest(9, 1), 0o644); err != nil { // named 3, records 9
		t.Fatal(err)
	}
	junk := filepath.Join(dir, "_versions", catalog.ManifestName(3, true)+"-junk")
	if err := os.WriteFile(junk, []byte("not a manifest at all"), 0o644); err != nil {
		t.Fatal(err)
	}
	elsewhere := stage(t, other, 2, "eeee")
	e.run(t, []step{
		{name: "a taken number is the spec's conflict", path: "/v1/table/mvb$ns$t/version/create", body: createBody(1, again), status: 409, code: 14},
		{name: "a gap is refused", path: "/v1/table/mvb$ns$t/version/create", body: createBody(3, wrong), status: 400, code: 13},
		{name: "another table's manifest", path: "/v1/table/mvb$ns$t/version/create", body: createBody(2, elsewhere), status: 400, code: 13, want: []string{"_versions"}},
		{name: "climbing out", path: "/v1/table/mvb$ns$t/version/create", body: createBody(2, strings.TrimPrefix(dir, "/")+"/_versions/../../u.lance/_versions/x.manifest"), status: 400, code: 13},
		{name: "outside the warehouse", path: "/v1/table/mvb$ns$t/version/create", body: createBody(2, "/etc/passwd"), status: 400, code: 13},
		{name: "named for another version", path: "/v1/table/mvb$ns$t/version/create", body: createBody(2, again), status: 400, code: 13},
		{name: "no manifest there", path: "/v1/table/mvb$ns$t/version/create", body: createBody(2, strings.TrimPrefix(dir, "/")+"/_versions/"+catalog.ManifestName(2, true)+"-none"), status: 400, code: 13, want: []string{"write the manifest first"}},
		{name: "not a manifest", path: "/v1/table/mvb$ns$t/version/create", body: createBody(3, strings.TrimPrefix(junk, "/")), status: 400, code: 13},
		{name: "no version", path: "/v1/table/mvb$ns$t/version/create", body: `{"manifest_path":"x"}`, status: 400, code: 13},
		{name: "no path", path: "/v1/table/mvb$ns$t/version/create", body: `{"version":2}`, status: 400, code: 13},
		{name: "bad naming scheme", path: "/v1/table/mvb$ns$t/version/create", body: `{"version":2,"manifest_path":"` + s2 + `","naming_scheme":"V9"}`, status: 400, code: 13},
		{name: "other branch", path: "/v1/table/mvb$ns$t/version/create", body: `{"version":2,"manifest_path":"` + s2 + `","branch":"dev"}`, status: 406, code: 0},
		{name: "readonly key", path: "/v1/table/mvb$ns$t/version/create", key: "ro", body: createBody(2, s2), status: 403, code: 15},
		{name: "unmanaged bucket", path: "/v1/table/lnc$ns$t/version/create", body: createBody(1, s2), status: 406, code: 0},
		{name: "missing table", path: "/v1/table/mvb$ns$nope/version/create", body: createBody(1, s2), status: 404, code: 4},
		{name: "create version 2", path: "/v1/table/mvb$ns$t/version/create", body: createBody(2, s2), status: 200, code: -1, want: []string{`"version":2,`}},
		{name: "latest only", path: "/v1/table/mvb$ns$t/version/list?limit=1&descending=true", status: 200, code: -1,
			want: []string{`{"versions":[{"version":2,`, `"page_token":"2"`}, notWant: []string{`"version":1,`}},
		{name: "describe answers the catalog's latest", path: "/v1/table/mvb$ns$t/describe", status: 200, code: -1,
			want: []string{`"version":2`, `"managed_versioning":true`}},
		{name: "describe a version", path: "/v1/table/mvb$ns$t/describe", body: `{"version":1}`, status: 200, code: -1, want: []string{`"version":1`}},
		{name: "describe a missing version", path: "/v1/table/mvb$ns$t/describe", body: `{"version":7}`, status: 404, code: 11},
		{name: "describe version", path: "/v1/table/mvb$ns$t/version/describe", body: `{"version":1}`, status: 200, code: -1,
			want: []string{`"version":1,`, catalog.ManifestName(1, true)}},
	})
	// The record is who committed: the test's read-write key.
	tb, err := e.store.GetTable(context.Background(), catalog.TableRef{Bucket: "mvb", Namespace: []string{"ns"}, Name: "t"})
	if err != nil {
		t.Fatal(err)
	}
	rec, ok, err := e.store.LanceVersionAt(context.Background(), tb.ID, 2)
	if err != nil || !ok || rec.KeyID == "" || rec.Principal != "test-readwrite" || rec.ManifestSize == 0 {
		t.Fatalf("record of version 2 = %+v, %v, %v", rec, ok, err)
	}
}

// TestBatchVersionsAllOrNone: BatchCreateTableVersions commits versions
// of several tables together, or none of them.
func TestBatchVersionsAllOrNone(t *testing.T) {
	e := managedEnv(t)
	dirT := filepath.Join(e.warehouse, "mvb", "ns", "t.lance")
	dirU := filepath.Join(e.warehouse, "mvb", "ns", "u.lance")
	e.run(t, []step{
		{name: "declare t", path: "/v1/table/mvb$ns$t/declare", status: 200, code: -1},
		{name: "declare u", path: "/v1/table/mvb$ns$u/declare", status: 200, code: -1},
		{name: "t at 1", path: "/v1/table/mvb$ns$t/version/create", body: createBody(1, stage(t, dirT, 1, "a")), status: 200, code: -1},
	})
	entry := func(table string, v uint64, path string) string {
		return fmt.Sprintf(`{"id":["mvb","ns",%q],"version":%d,"manifest_path":%q}`, table, v, path)
	}
	u1 := stage(t, dirU, 1, "b")
	t1 := stage(t, dirT, 1, "c")
	e.run(t, []step{
		{name: "one conflicting entry fails all", path: "/v1/table/version/batch-create",
			body: `{"entries":[` + entry("u", 1, u1) + `,` + entry("t", 1, t1) + `]}`, status: 409, code: 14},
		{name: "and the refused manifests are gone", path: "/v1/table/version/batch-create",
			body: `{"entries":[` + entry("u", 1, u1) + `]}`, status: 400, code: 13, want: []string{"no manifest at"}},
		{name: "u has nothing", path: "/v1/table/mvb$ns$u/version/list", status: 200, code: -1, want: []string{`{"versions":[]}`}},
		{name: "no entries", path: "/v1/table/version/batch-create", body: `{"entries":[]}`, status: 400, code: 13},
		{name: "entry without id", path: "/v1/table/version/batch-create", body: `{"entries":[{"version":1,"manifest_path":"x"}]}`, status: 400, code: 13},
		{name: "both", path: "/v1/table/version/batch-create",
			body: `{"entries":[` + entry("u", 1, stage(t, dirU, 1, "e")) + `,` + entry("t", 2, stage(t, dirT, 2, "d")) + `]}`, status: 200, code: -1,
			want: []string{`{"versions":[{"version":1,`, `{"version":2,`}},
		{name: "t at 2", path: "/v1/table/mvb$ns$t/version/list?descending=true", status: 200, code: -1, want: []string{`{"versions":[{"version":2,`}},
	})
	if _, err := os.Stat(filepath.Join(dirU, "_versions", catalog.ManifestName(1, true))); err != nil {
		t.Fatalf("u's final manifest is missing: %v", err)
	}
}

// TestManagedTableHistory: a table written before its bucket was managed
// keeps its history (imported on the first commit through floe); a version
// a writer put into _versions/ behind floe's back is adopted and the
// commit that collided with it gets the conflict; BatchDeleteTableVersions
// forgets records.
func TestManagedTableHistory(t *testing.T) {
	e := managedEnv(t)
	ctx := context.Background()
	dir := filepath.Join(e.warehouse, "lnc", "ns", "old.lance")
	e.run(t, []step{{name: "declare", path: "/v1/table/lnc$ns$old/declare", status: 200, code: -1}})
	for v := uint64(1); v <= 2; v++ { // written straight to storage, unmanaged
		if err := os.MkdirAll(filepath.Join(dir, "_versions"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "_versions", catalog.ManifestName(v, true)), lancetest.Manifest(v, v), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.store.SetManagedVersioning(ctx, "lnc", true); err != nil {
		t.Fatal(err)
	}
	e.run(t, []step{
		{name: "before any commit, _versions/ answers", path: "/v1/table/lnc$ns$old/version/list", status: 200, code: -1, want: []string{`"version":1,`, `"version":2,`}},
		{name: "describe: managed, latest 2", path: "/v1/table/lnc$ns$old/describe", status: 200, code: -1, want: []string{`"version":2`, `"managed_versioning":true`}},
		{name: "version 2 exists", path: "/v1/table/lnc$ns$old/version/create", body: createBody(2, stage(t, dir, 2, "x")), status: 409, code: 14},
		{name: "version 3", path: "/v1/table/lnc$ns$old/version/create", body: createBody(3, stage(t, dir, 3, "y")), status: 200, code: -1},
		{name: "the record holds all three", path: "/v1/table/lnc$ns$old/version/list", status: 200, code: -1, want: []string{`"version":1,`, `"version":2,`, `"version":3,`}},
	})
	// A writer that bypassed floe puts version 4 in place itself.
	if err := os.WriteFile(filepath.Join(dir, "_versions", catalog.ManifestName(4, true)), lancetest.Manifest(4, 99), 0o644); err != nil {
		t.Fatal(err)
	}
	e.run(t, []step{
		{name: "colliding with it is the conflict", path: "/v1/table/lnc$ns$old/version/create", body: createBody(4, stage(t, dir, 4, "z")), status: 409, code: 14, want: []string{"not through floe"}},
		{name: "and floe recorded it", path: "/v1/table/lnc$ns$old/version/list?descending=true&limit=1", status: 200, code: -1, want: []string{`{"versions":[{"version":4,`}},
		{name: "the next commit goes on top", path: "/v1/table/lnc$ns$old/version/create", body: createBody(5, stage(t, dir, 5, "w")), status: 200, code: -1},
		{name: "forget 1 and 2", path: "/v1/table/lnc$ns$old/version/delete", body: `{"ranges":[{"start_version":1,"end_version":3}]}`, status: 200, code: -1, want: []string{`"deleted_count":2`}},
		{name: "not the latest", path: "/v1/table/lnc$ns$old/version/delete", body: `{"ranges":[{"start_version":4,"end_version":-1}]}`, status: 400, code: 13},
		{name: "a bad range", path: "/v1/table/lnc$ns$old/version/delete", body: `{"ranges":[{"start_version":3,"end_version":2}]}`, status: 400, code: 13},
		{name: "no ranges", path: "/v1/table/lnc$ns$old/version/delete", body: `{}`, status: 400, code: 13},
		{name: "what is left", path: "/v1/table/lnc$ns$old/version/list", status: 200, code: -1, want: []string{`"version":3,`, `"version":5,`}, notWant: []string{`"version":1,`, `"version":2,`}},
		{name: "an Iceberg table", path: "/v1/table/mix$ns$ice/version/delete", body: `{"ranges":[{"start_version":1,"end_version":2}]}`, status: 404, code: 4},
	})
}

// TestStaleReservationSettles: a version reserved by a writer that died
// before finishing blocks its number only until it is stale; the next
// commit that collides with it settles it, and the retry succeeds.
func TestStaleReservationSettles(t *testing.T) {
	e := managedEnv(t)
	ctx := context.Background()
	dir := filepath.Join(e.warehouse, "mvb", "ns", "t.lance")
	e.run(t, []step{{name: "declare", path: "/v1/table/mvb$ns$t/declare", status: 200, code: -1}})
	tb, err := e.store.GetTable(ctx, catalog.TableRef{Bucket: "mvb", Namespace: []string{"ns"}, Name: "t"})
	if err != nil {
		t.Fatal(err)
	}
	e.clock.Store(int64(-2 * time.Minute)) // the dead writer reserved it two minutes ago
	if err := e.store.ReserveLanceVersions(ctx, []catalog.LanceReservation{{Version: catalog.LanceVersion{
		TableID: tb.ID, Version: 1, ManifestPath: "file://" + filepath.Join(dir, "_versions", catalog.ManifestName(1, true)), ManifestSize: 1}}}); err != nil {
		t.Fatal(err)
	}
	e.clock.Store(0)
	e.run(t, []step{
		{name: "collides, and settles it", path: "/v1/table/mvb$ns$t/version/create", body: createBody(1, stage(t, dir, 1, "a")), status: 409, code: 14},
		{name: "retry", path: "/v1/table/mvb$ns$t/version/create", body: createBody(1, stage(t, dir, 1, "b")), status: 200, code: -1},
	})
}

// TestDescribeTableAtTag: a tag names a version; an unknown tag or a
// branch floe does not serve is refused, never answered with the latest.
func TestDescribeTableAtTag(t *testing.T) {
	e := newTestEnv(t, false)
	e.seed()
	e.run(t, []step{{name: "declare", path: "/v1/table/lnc$ns$t1/declare", status: 200, code: -1}})
	writeVersions(t, filepath.Join(e.warehouse, "lnc", "ns", "t1.lance"), v2(1), v2(2), v2(3))
	e.run(t, []step{
		{name: "tag 2", path: "/v1/table/lnc$ns$t1/tags/create", body: `{"tag":"prod","version":2}`, status: 200, code: -1},
		{name: "describe at the tag", path: "/v1/table/lnc$ns$t1/describe", body: `{"tag":"prod"}`, status: 200, code: -1, want: []string{`"version":2`}},
		{name: "unknown tag", path: "/v1/table/lnc$ns$t1/describe", body: `{"tag":"nope"}`, status: 404, code: 8},
		{name: "bad tag name", path: "/v1/table/lnc$ns$t1/describe", body: `{"tag":"../x"}`, status: 400, code: 13},
		{name: "tag and version", path: "/v1/table/lnc$ns$t1/describe", body: `{"tag":"prod","version":1}`, status: 400, code: 13},
		{name: "another branch", path: "/v1/table/lnc$ns$t1/describe", body: `{"branch":"dev"}`, status: 406, code: 0},
		{name: "main branch", path: "/v1/table/lnc$ns$t1/describe", body: `{"branch":"main","version":3}`, status: 200, code: -1, want: []string{`"version":3`}},
	})
}

// TestManagedVersioningProperty: a bucket made through the Lance API opts
// in with the floe.managed_versioning property, which DescribeNamespace
// shows and the bucket's tags do not keep.
func TestManagedVersioningProperty(t *testing.T) {
	e := newTestEnv(t, false)
	e.run(t, []step{
		{name: "bad value", path: "/v1/namespace/mvp/create", body: `{"properties":{"floe.managed_versioning":"yes"}}`, status: 400, code: 13},
		{name: "create managed", path: "/v1/namespace/mvp/create", body: `{"properties":{"floe.managed_versioning":"true","team":"ml"}}`, status: 200, code: -1,
			want: []string{`"floe.managed_versioning":"true"`, `"team":"ml"`}},
		{name: "describe", path: "/v1/namespace/mvp/describe", status: 200, code: -1, want: []string{`"floe.managed_versioning":"true"`}},
		{name: "create unmanaged", path: "/v1/namespace/plain/create", body: `{"properties":{"floe.managed_versioning":"false"}}`, status: 200, code: -1, notWant: []string{"managed"}},
	})
	b, err := e.store.GetBucket(context.Background(), "mvp")
	if err != nil || !b.ManagedVersioning || b.Tags["team"] != "ml" || b.Tags[ManagedVersioningProperty] != "" {
		t.Fatalf("bucket = %+v, %v", b, err)
	}
}
