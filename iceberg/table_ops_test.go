package iceberg

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/fault"
)

// TestCreateTableErrors: the library refuses with a kind and the field to
// blame, so the REST surface and the console each map it once; a good create
// writes the first metadata file the console then reads.
func TestCreateTableErrors(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	st, err := catalog.Open(ctx, catalog.Options{Path: filepath.Join(dir, "catalog.db"), Warehouse: filepath.Join(dir, "wh")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	b, err := st.CreateBucket(ctx, catalog.CreateBucketInput{Name: "lake", Format: catalog.FormatIceberg})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.CreateNamespace(ctx, "lake", []string{"ns"}, nil); err != nil {
		t.Fatal(err)
	}
	tables := New(Config{Store: st})
	schema := &Schema{Fields: []Field{{ID: 1, Name: "id", Required: true, Type: Type{Primitive: "long"}}}}
	loaded, err := tables.CreateTable(ctx, b, []string{"ns"}, CreateTableInput{Name: "t", Schema: schema})
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	if _, err := os.Stat(strings.TrimPrefix(loaded.MetadataLocation, "file://")); err != nil {
		t.Fatalf("first metadata file: %v", err)
	}
	tbl, err := tables.Table(ctx, catalog.TableRef{Bucket: "lake", Namespace: []string{"ns"}, Name: "t"})
	if err != nil {
		t.Fatal(err)
	}
	md, err := LoadTableMetadata(ctx, st.Storage(), tbl)
	if err != nil || len(md.Columns) != 1 || md.Columns[0].Name != "id" {
		t.Fatalf("metadata = %+v, %v", md, err)
	}

	cases := []struct {
		name  string
		ns    []string
		in    CreateTableInput
		kind  error
		field string
	}{
		{"taken name", []string{"ns"}, CreateTableInput{Name: "t", Schema: schema}, fault.AlreadyExists, "name"},
		{"bad name", []string{"ns"}, CreateTableInput{Name: "a/b", Schema: schema}, fault.Invalid, "name"},
		{"no schema", []string{"ns"}, CreateTableInput{Name: "u"}, fault.Invalid, "schema"},
		{"no namespace", []string{"nope"}, CreateTableInput{Name: "u", Schema: schema}, fault.NotFound, "namespace"},
		{"location outside bucket", []string{"ns"}, CreateTableInput{Name: "u", Schema: schema, Location: filepath.Join(dir, "elsewhere")}, fault.Invalid, "location"},
		{"bad format version", []string{"ns"}, CreateTableInput{Name: "u", Schema: schema, Properties: map[string]string{"format-version": "9"}}, fault.Invalid, "properties"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := tables.CreateTable(ctx, b, c.ns, c.in)
			var ie *fault.Error
			if !errors.As(err, &ie) || !errors.Is(err, c.kind) || ie.Field != c.field || ie.Message == "" {
				t.Fatalf("err = %#v, want kind %v field %q", err, c.kind, c.field)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(dir, "elsewhere")); !os.IsNotExist(err) {
		t.Fatalf("a refused create wrote outside the bucket: %v", err)
	}
}
