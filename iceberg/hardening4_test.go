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

// Hardening item 4, the library's half (internal/replicas has the kill -9
// and database-outage half): CreateTable writes the entry and its first
// metadata location in one catalog transaction, so an entry never exists
// without its metadata; a failed first write leaves neither an entry nor a
// file; and an Iceberg entry that has no metadata file (declared through S3
// Tables, or left by an older floe interrupted mid-create) can be dropped,
// after which the name can be created again.
func TestHardening4CreateCommitsEntryAndMetadataTogether(t *testing.T) {
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
	ref := func(name string) catalog.TableRef {
		return catalog.TableRef{Bucket: "lake", Namespace: []string{"ns"}, Name: name}
	}

	t.Run("the entry is born with its metadata location", func(t *testing.T) {
		// The catalog inserts the row with the location the callback
		// returned, inside the same transaction: no observer can see the
		// row without it (the old create committed it empty first).
		var seenInside catalog.Table
		var getErr error
		in := catalog.CreateTableInput{TableRef: ref("born"), Format: catalog.FormatIceberg,
			FirstMetadata: func(ctx context.Context, loc string) (string, error) {
				seenInside, getErr = st.GetTable(ctx, ref("born"))
				return loc + "/metadata/00000-x.metadata.json", nil
			}}
		tb, created, err := st.CreateTable(ctx, in)
		if err != nil || !created || tb.MetadataLocation != tb.Location+"/metadata/00000-x.metadata.json" {
			t.Fatalf("CreateTable = %+v %v %v", tb, created, err)
		}
		if !errors.Is(getErr, fault.NotFound) {
			t.Fatalf("the row was visible (%+v, %v) before its metadata was written", seenInside, getErr)
		}
		got, err := st.GetTable(ctx, ref("born"))
		if err != nil || got.MetadataLocation != tb.MetadataLocation {
			t.Fatalf("stored = %+v, %v", got, err)
		}
	})

	t.Run("a failed first write leaves nothing", func(t *testing.T) {
		boom := errors.New("storage went away")
		_, _, err := st.CreateTable(ctx, catalog.CreateTableInput{TableRef: ref("never"), Format: catalog.FormatIceberg,
			FirstMetadata: func(context.Context, string) (string, error) { return "", boom }})
		if !errors.Is(err, boom) {
			t.Fatalf("err = %v, want the write's error", err)
		}
		if _, err := st.GetTable(ctx, ref("never")); !errors.Is(err, fault.NotFound) {
			t.Fatalf("a create whose metadata write failed left an entry: %v", err)
		}
		if _, err := tables.CreateTable(ctx, b, []string{"ns"}, CreateTableInput{Name: "never", Schema: schema}); err != nil {
			t.Fatalf("create after the failure: %v", err)
		}
	})

	t.Run("a second create of a taken name leaves the table one metadata file", func(t *testing.T) {
		if _, err := tables.CreateTable(ctx, b, []string{"ns"}, CreateTableInput{Name: "twice", Schema: schema}); err != nil {
			t.Fatal(err)
		}
		_, err := tables.CreateTable(ctx, b, []string{"ns"}, CreateTableInput{Name: "twice", Schema: schema})
		if !errors.Is(err, fault.AlreadyExists) {
			t.Fatalf("second create = %v, want already exists", err)
		}
		tb, _ := st.GetTable(ctx, ref("twice"))
		files, _ := os.ReadDir(filepath.Join(strings.TrimPrefix(tb.Location, "file://"), "metadata"))
		if len(files) != 1 {
			t.Fatalf("metadata files %v: want the table's one", files)
		}
	})

	t.Run("an entry without metadata drops and its name comes back", func(t *testing.T) {
		if _, _, err := st.CreateTable(ctx, catalog.CreateTableInput{TableRef: ref("wedged"), Format: catalog.FormatIceberg}); err != nil {
			t.Fatal(err)
		}
		if _, err := tables.LoadTable(ctx, ref("wedged")); !errors.Is(err, fault.NotFound) {
			t.Fatalf("load of an entry without metadata = %v, want not found", err)
		}
		if err := tables.DropTable(ctx, ref("wedged"), true); err != nil {
			t.Fatalf("drop of an entry without metadata: %v", err)
		}
		if _, err := tables.CreateTable(ctx, b, []string{"ns"}, CreateTableInput{Name: "wedged", Schema: schema}); err != nil {
			t.Fatalf("create after the drop: %v", err)
		}
		if _, err := tables.LoadTable(ctx, ref("wedged")); err != nil {
			t.Fatalf("load after the create: %v", err)
		}
	})
}
