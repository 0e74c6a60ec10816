package icebergrest

import (
	"context"
	"testing"

	iceberggo "github.com/apache/iceberg-go"
	icecatalog "github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/table"
	"github.com/floe/floe/catalog"
)

// TestIssue26V1MetadataReadable: floe wrote format-version 1 metadata with
// v2's last-sequence-number, which iceberg-go refuses ("v2-only field");
// a v1 table created, appended to and loaded by iceberg-go now works, and
// newEnv's check parses each of its metadata files.
func TestIssue26V1MetadataReadable(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t, true)
	e.bucket(t, "lake", catalog.FormatIceberg)
	cat := newClient(t, e.http.URL, "lake", "")
	if err := cat.CreateNamespace(ctx, table.Identifier{"ns"}, nil); err != nil {
		t.Fatal(err)
	}
	schema := iceberggo.NewSchema(0, iceberggo.NestedField{ID: 1, Name: "id", Type: iceberggo.PrimitiveTypes.Int64, Required: true},
		iceberggo.NestedField{ID: 2, Name: "name", Type: iceberggo.PrimitiveTypes.String},
		iceberggo.NestedField{ID: 3, Name: "region", Type: iceberggo.PrimitiveTypes.String})
	tbl, err := cat.CreateTable(ctx, table.Identifier{"ns", "v1"}, schema, icecatalog.WithProperties(iceberggo.Properties{"format-version": "1"}))
	if err != nil {
		t.Fatal(err)
	}
	if _, err = tbl.AppendTable(ctx, batch(0, 10), 1024, nil); err != nil {
		t.Fatal(err)
	}
	loaded, err := cat.LoadTable(ctx, table.Identifier{"ns", "v1"})
	if err != nil {
		t.Fatal(err)
	}
	if loaded.Metadata().Version() != 1 || len(scanIDs(t, ctx, loaded)) != 10 {
		t.Fatalf("format version %d", loaded.Metadata().Version())
	}
}
