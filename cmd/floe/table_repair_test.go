package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/iceberg-go/table"
	"github.com/floe/floe/catalog"
	"github.com/floe/floe/iceberg"
)

// TestIssue26TableRepairCommand: floe table repair rewrites the metadata an
// older floe left unreadable (a ref with min-snapshots-to-keep -1, a tag
// with branch retention) so iceberg-go's own parser reads it again; a
// second run has nothing to do, and a table that does not exist is a
// user's mistake (exit 2).
func TestIssue26TableRepairCommand(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	st, err := catalog.Open(ctx, catalog.Options{Path: filepath.Join(dir, "catalog.db"), Warehouse: filepath.Join(dir, "warehouse")})
	if err != nil {
		t.Fatal(err)
	}
	b, err := st.CreateBucket(ctx, catalog.CreateBucketInput{Name: "lake", Format: catalog.FormatIceberg})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.CreateNamespace(ctx, "lake", []string{"ns"}, nil); err != nil {
		t.Fatal(err)
	}
	tables := iceberg.New(iceberg.Config{Store: st})
	schema := iceberg.Schema{Fields: []iceberg.Field{{ID: 1, Name: "id", Type: iceberg.Type{Primitive: "long"}, Required: true}}}
	res, err := tables.CreateTable(ctx, b, []string{"ns"}, iceberg.CreateTableInput{Name: "t", Schema: &schema})
	if err != nil {
		t.Fatal(err)
	}
	// An older floe's metadata: a snapshot, and refs it stored as sent.
	var md map[string]any
	if err := json.Unmarshal(res.Metadata, &md); err != nil {
		t.Fatal(err)
	}
	md["snapshots"] = []any{map[string]any{"snapshot-id": 7, "sequence-number": 1, "timestamp-ms": md["last-updated-ms"],
		"manifest-list": md["location"].(string) + "/metadata/snap-7.avro", "summary": map[string]any{"operation": "append"}, "schema-id": 0}}
	md["current-snapshot-id"] = 7
	md["last-sequence-number"] = 1
	md["refs"] = map[string]any{
		"main": map[string]any{"snapshot-id": 7, "type": "branch", "min-snapshots-to-keep": -1},
		"v1":   map[string]any{"snapshot-id": 7, "type": "tag", "max-snapshot-age-ms": 1000},
	}
	raw, _ := json.Marshal(md)
	if _, err := table.ParseMetadataBytes(raw); err == nil {
		t.Fatal("iceberg-go reads the broken metadata: the test does not reproduce an older floe's table")
	}
	broken := strings.TrimPrefix(md["location"].(string), "file://") + "/metadata/00001-older.metadata.json"
	if err := os.WriteFile(broken, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	tb, err := st.GetTable(ctx, catalog.TableRef{Bucket: "lake", Namespace: []string{"ns"}, Name: "t"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.CommitTable(ctx, tb.ID, tb.VersionToken, "file://"+broken, nil); err != nil {
		t.Fatal(err)
	}
	st.Close()

	data := "--data=" + dir
	out, code := run(t, "table", "repair", "lake", "ns", "t", data)
	if code != 0 || !strings.Contains(out, `ref "main": dropped min-snapshots-to-keep -1`) || !strings.Contains(out, `ref "v1": dropped max-snapshot-age-ms`) {
		t.Fatalf("repair: code %d\n%s", code, out)
	}
	loc := strings.TrimSpace(out[strings.LastIndex(out, "new metadata: ")+len("new metadata: "):])
	fixed, err := os.ReadFile(strings.TrimPrefix(loc, "file://"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := table.ParseMetadataBytes(fixed); err != nil {
		t.Fatalf("iceberg-go cannot read the repaired metadata: %v\n%s", err, fixed)
	}
	if out, code := run(t, "table", "repair", "lake", "ns", "t", data); code != 0 || !strings.Contains(out, "needs no repair") {
		t.Fatalf("second repair: code %d\n%s", code, out)
	}
	if out, code := run(t, "table", "repair", "lake", "ns", "nope", data); code != 2 || !strings.Contains(out, "does not exist") {
		t.Fatalf("repair of a missing table: code %d\n%s", code, out)
	}
}
