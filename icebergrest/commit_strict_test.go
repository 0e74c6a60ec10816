package icebergrest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/apache/iceberg-go/table"
	"github.com/floe/floe/catalog"
	"github.com/floe/floe/iceberg"
)

// strictEnv is a bucket with namespace ns and table t (one column).
func strictEnv(t *testing.T) *testEnv {
	t.Helper()
	e := newEnv(t, true)
	e.bucket(t, "lake", catalog.FormatIceberg)
	if code, body := e.call(t, "POST", "/v1/lake/namespaces", "", `{"namespace":["ns"]}`); code != 200 {
		t.Fatalf("create namespace %d %v", code, body)
	}
	for _, name := range []string{"t", "u"} {
		create := `{"name":"` + name + `","schema":{"type":"struct","schema-id":0,"fields":[{"id":1,"name":"id","type":"long","required":true}]}}`
		if code, body := e.call(t, "POST", "/v1/lake/namespaces/ns/tables", "", create); code != 200 {
			t.Fatalf("create table %d %v", code, body)
		}
	}
	return e
}

func (e *testEnv) metadataLocation(t *testing.T, name string) string {
	t.Helper()
	tb, err := e.store.GetTable(context.Background(), catalog.TableRef{Bucket: "lake", Namespace: []string{"ns"}, Name: name})
	if err != nil {
		t.Fatal(err)
	}
	return tb.MetadataLocation
}

// TestIssue26StrictCommitShape: a commit body that is not the spec's
// CommitTableRequest answered 200 and changed nothing (iceberg-js 0.8.1's
// updateTable(id, {properties}) among them), so the caller believed its
// change was made. Each is a 400 now, and no metadata version is written.
func TestIssue26StrictCommitShape(t *testing.T) {
	e := strictEnv(t)
	big := map[string]string{}
	for i := range 200_000 {
		big[fmt.Sprintf("k%d", i)] = ""
	}
	many, _ := json.Marshal(map[string]any{"requirements": []any{}, "updates": []any{map[string]any{"action": "set-properties", "updates": big}}})
	longKey, _ := json.Marshal(map[string]any{"requirements": []any{}, "updates": []any{map[string]any{"action": "set-properties", "updates": map[string]string{strings.Repeat("k", 100_000): "v"}}}})
	cases := []struct{ name, path, body, want string }{
		{"empty object", "/v1/lake/namespaces/ns/tables/t", `{}`, `needs "updates"`},
		{"null", "/v1/lake/namespaces/ns/tables/t", `null`, "not null"},
		{"iceberg-js 0.8.1 updateTable(id, {properties})", "/v1/lake/namespaces/ns/tables/t", `{"properties":{"owner":"js"}}`, `no field "properties"`},
		{"unknown top-level field", "/v1/lake/namespaces/ns/tables/t", `{"requirements":[],"updates":[],"force":true}`, `no field "force"`},
		{"updates null", "/v1/lake/namespaces/ns/tables/t", `{"requirements":[],"updates":null}`, `needs "updates"`},
		{"identifier of another table", "/v1/lake/namespaces/ns/tables/t", `{"identifier":{"namespace":["ns"],"name":"u"},"requirements":[],"updates":[{"action":"set-properties","updates":{"a":"b"}}]}`, "not the table it was sent to"},
		{"200,000 property keys", "/v1/lake/namespaces/ns/tables/t", string(many), "at most 1000 properties"},
		{"a 100,000-byte property key", "/v1/lake/namespaces/ns/tables/t", string(longKey), "keys are at most 1024"},
		{"empty property key", "/v1/lake/namespaces/ns/tables/t", `{"requirements":[],"updates":[{"action":"set-properties","updates":{"":"v"}}]}`, "must not be empty"},
		{"invalid UTF-8", "/v1/lake/namespaces/ns/tables/t", "{\"requirements\":[],\"updates\":[{\"action\":\"set-properties\",\"updates\":{\"a\":\"\xff\"}}]}", "not valid UTF-8"},
		{"transaction entry empty", "/v1/lake/transactions/commit", `{"table-changes":[{}]}`, `table change 0: a commit needs "updates"`},
		{"transaction entry null", "/v1/lake/transactions/commit", `{"table-changes":[null]}`, "table change 0: a commit is a JSON object"},
		{"transaction entry with only an identifier", "/v1/lake/transactions/commit", `{"table-changes":[{"identifier":{"namespace":["ns"],"name":"t"}}]}`, `needs "updates"`},
		{"transaction second entry empty", "/v1/lake/transactions/commit", `{"table-changes":[{"identifier":{"namespace":["ns"],"name":"t"},"requirements":[],"updates":[{"action":"set-properties","updates":{"a":"b"}}]},{}]}`, "table change 1"},
		{"transaction unknown field", "/v1/lake/transactions/commit", `{"table-changes":[{"identifier":{"namespace":["ns"],"name":"t"},"requirements":[],"updates":[]}],"atomic":false}`, "nothing else"},
		{"transaction null", "/v1/lake/transactions/commit", `null`, "table-changes"},
	}
	before := e.metadataLocation(t, "t")
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, body := e.call(t, "POST", c.path, "", c.body)
			msg := errMessage(body)
			if code != http.StatusBadRequest || errType(body) != typeBadRequest || !strings.Contains(msg, c.want) {
				t.Fatalf("%d %v; want 400 BadRequestException saying %q", code, body, c.want)
			}
			if got := e.metadataLocation(t, "t"); got != before {
				t.Fatalf("a refused commit moved the table to %s", got)
			}
		})
	}
	// The shape that is right still works, requirements left out included.
	code, body := e.call(t, "POST", "/v1/lake/namespaces/ns/tables/t", "", `{"updates":[{"action":"set-properties","updates":{"owner":"ops"}}]}`)
	md, _ := body["metadata"].(map[string]any)
	props, _ := md["properties"].(map[string]any)
	if code != 200 || props["owner"] != "ops" {
		t.Fatalf("a commit without requirements: %d %v", code, body)
	}
}

// TestIssue26SnapshotRefRetention: iceberg-go's set-snapshot-ref sends -1
// for "unset"; floe stored it, after which every iceberg-go LoadTable of
// the table failed ("min snapshots to keep must be greater than 0") and
// the commit that wrote it was reported failed although applied. Every
// call of that kind round-trips now and the table stays loadable; values
// no reader accepts are refused with a sentence and change nothing.
func TestIssue26SnapshotRefRetention(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t, true)
	e.bucket(t, "lake", catalog.FormatIceberg)
	cat := newClient(t, e.http.URL, "lake", "")
	if err := cat.CreateNamespace(ctx, table.Identifier{"ns"}, nil); err != nil {
		t.Fatal(err)
	}
	ident := table.Identifier{"ns", "events"}
	tbl := createEventsTable(t, ctx, cat, ident)
	tbl, err := tbl.AppendTable(ctx, batch(0, 10), 1024, nil)
	if err != nil {
		t.Fatal(err)
	}
	snap := tbl.CurrentSnapshot().SnapshotID
	ok := []struct {
		name                 string
		ref                  string
		typ                  table.RefType
		maxRef, maxSnap      int64
		minSnaps             int
		wantMaxRef, wantMinS bool
	}{
		{"branch, all unset (-1)", "b1", table.BranchRef, -1, -1, -1, false, false},
		{"branch, all set", "b2", table.BranchRef, 86_400_000, 3_600_000, 5, true, true},
		{"tag, unset (-1)", "t1", table.TagRef, -1, -1, -1, false, false},
		{"tag, max-ref-age set", "t2", table.TagRef, 86_400_000, -1, -1, true, false},
		{"main, unset (-1)", "main", table.BranchRef, -1, -1, -1, false, false},
	}
	for _, c := range ok {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := cat.CommitTable(ctx, ident, nil, []table.Update{table.NewSetSnapshotRefUpdate(c.ref, snap, c.typ, c.maxRef, c.maxSnap, c.minSnaps)})
			if err != nil {
				t.Fatalf("commit: %v", err)
			}
			loaded, err := cat.LoadTable(ctx, ident)
			if err != nil {
				t.Fatalf("iceberg-go cannot load the table after set-snapshot-ref: %v", err)
			}
			found := false
			var ref table.SnapshotRef
			for name, v := range loaded.Metadata().Refs() {
				if name == c.ref {
					ref, found = v, true
				}
			}
			if !found || ref.SnapshotID != snap || ref.SnapshotRefType != c.typ {
				t.Fatalf("ref %s = %+v", c.ref, ref)
			}
			if (ref.MaxRefAgeMs != nil) != c.wantMaxRef || (ref.MinSnapshotsToKeep != nil) != c.wantMinS {
				t.Fatalf("ref %s retention = %+v", c.ref, ref)
			}
		})
	}
	refused := []struct{ name, update, want string }{
		{"tag with min-snapshots-to-keep", `{"action":"set-snapshot-ref","ref-name":"t3","type":"tag","snapshot-id":%d,"min-snapshots-to-keep":2}`, "for branches only"},
		{"tag with max-snapshot-age-ms", `{"action":"set-snapshot-ref","ref-name":"t3","type":"tag","snapshot-id":%d,"max-snapshot-age-ms":1000}`, "for branches only"},
		{"zero min-snapshots-to-keep", `{"action":"set-snapshot-ref","ref-name":"b3","type":"branch","snapshot-id":%d,"min-snapshots-to-keep":0}`, "must be positive"},
		{"negative max-ref-age-ms", `{"action":"set-snapshot-ref","ref-name":"b3","type":"branch","snapshot-id":%d,"max-ref-age-ms":-5}`, "must be positive"},
	}
	for _, c := range refused {
		t.Run(c.name, func(t *testing.T) {
			body := fmt.Sprintf(`{"requirements":[],"updates":[`+c.update+`]}`, snap)
			code, out := e.call(t, "POST", "/v1/lake/namespaces/ns/tables/events", "", body)
			msg := errMessage(out)
			if code != 400 || !strings.Contains(msg, c.want) {
				t.Fatalf("%d %v; want 400 saying %q", code, out, c.want)
			}
		})
	}
	if _, err := cat.LoadTable(ctx, ident); err != nil {
		t.Fatalf("iceberg-go cannot load the table at the end: %v", err)
	}
}

// breakRefs plays an older floe: it writes the table's current metadata
// again with retention values iceberg-go refuses and points the catalog at
// it, as that floe did when it stored what clients sent.
func breakRefs(t *testing.T, e *testEnv, name string, snap int64) {
	t.Helper()
	ctx := context.Background()
	ref := catalog.TableRef{Bucket: "lake", Namespace: []string{"ns"}, Name: name}
	tb, err := e.store.GetTable(ctx, ref)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(strings.TrimPrefix(tb.MetadataLocation, "file://"))
	if err != nil {
		t.Fatal(err)
	}
	var md map[string]any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber() // snapshot ids do not fit a float64
	if err := dec.Decode(&md); err != nil {
		t.Fatal(err)
	}
	md["refs"] = map[string]any{
		"main": map[string]any{"snapshot-id": snap, "type": "branch", "min-snapshots-to-keep": -1, "max-snapshot-age-ms": -1, "max-ref-age-ms": -1},
		"v1":   map[string]any{"snapshot-id": snap, "type": "tag", "min-snapshots-to-keep": 3},
	}
	out, _ := json.Marshal(md)
	// Named unlike floe's own files, so checkReadable leaves it to this test.
	loc := tb.MetadataLocation[:strings.LastIndex(tb.MetadataLocation, "/")] + "/00002-older-floe.metadata.json"
	if err := os.WriteFile(strings.TrimPrefix(loc, "file://"), out, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := e.store.CommitTable(ctx, tb.ID, tb.VersionToken, loc, tb.Properties); err != nil {
		t.Fatal(err)
	}
}

// TestIssue26RepairUnreadableTable: a table an older floe left with refs
// iceberg-go refuses stayed unreadable for good. The library's repair (what
// floe table repair runs) and the table's next commit both make it
// loadable again, keeping its snapshot and refs.
func TestIssue26RepairUnreadableTable(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t, true)
	e.bucket(t, "lake", catalog.FormatIceberg)
	cat := newClient(t, e.http.URL, "lake", "")
	if err := cat.CreateNamespace(ctx, table.Identifier{"ns"}, nil); err != nil {
		t.Fatal(err)
	}
	for _, how := range []string{"repair", "next commit"} {
		t.Run(how, func(t *testing.T) {
			name := strings.ReplaceAll(how, " ", "_")
			ident := table.Identifier{"ns", name}
			tbl := createEventsTable(t, ctx, cat, ident)
			tbl, err := tbl.AppendTable(ctx, batch(0, 10), 1024, nil)
			if err != nil {
				t.Fatal(err)
			}
			snap := tbl.CurrentSnapshot().SnapshotID
			breakRefs(t, e, name, snap)
			e.srv.tables = newTables(e) // a fresh process: nothing cached
			if _, err := cat.LoadTable(ctx, ident); err == nil || !strings.Contains(err.Error(), "must be greater than 0") {
				t.Fatalf("the broken table loaded (%v): the test does not reproduce an older floe's table", err)
			}
			ref := catalog.TableRef{Bucket: "lake", Namespace: []string{"ns"}, Name: name}
			if how == "repair" {
				rep, err := e.srv.tables.RepairTable(ctx, ref)
				if err != nil || len(rep.Fixed) != 4 {
					t.Fatalf("repair = %+v, %v; want 4 fixes", rep, err)
				}
				again, err := e.srv.tables.RepairTable(ctx, ref)
				if err != nil || len(again.Fixed) != 0 || again.MetadataLocation != "" {
					t.Fatalf("second repair = %+v, %v; want nothing to do", again, err)
				}
			} else {
				code, body := e.call(t, "POST", "/v1/lake/namespaces/ns/tables/"+name, "", `{"requirements":[],"updates":[{"action":"set-properties","updates":{"owner":"ops"}}]}`)
				if code != 200 {
					t.Fatalf("commit to the broken table: %d %v", code, body)
				}
			}
			loaded, err := cat.LoadTable(ctx, ident)
			if err != nil {
				t.Fatalf("iceberg-go still cannot load the table after the %s: %v", how, err)
			}
			refs := map[string]table.SnapshotRef{}
			for name, r := range loaded.Metadata().Refs() {
				refs[name] = r
			}
			if loaded.CurrentSnapshot().SnapshotID != snap || refs["main"].SnapshotID != snap || refs["v1"].SnapshotRefType != table.TagRef {
				t.Fatalf("the %s lost the snapshot or the refs: %+v", how, refs)
			}
			if got := scanIDs(t, ctx, loaded); len(got) != 10 {
				t.Fatalf("rows after the %s: %v", how, got)
			}
		})
	}
}

// newTables is the Iceberg library as a freshly started floe has it.
func newTables(e *testEnv) *iceberg.Tables {
	return iceberg.New(iceberg.Config{Store: e.store})
}
