package catalog

// Soft delete where one drop reaches other tables: Lance overwrite, namespace
// and bucket cascades, and what search shows meanwhile.

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/floe/floe/fault"
)

// TestOverwriteRepro is the report that opened issue 24: CreateNamespace
// overwrite on a namespace holding a 100-row table deleted the dataset and
// the directory of a table renamed in from elsewhere.
func TestOverwriteRepro(t *testing.T) {
	ctx := context.Background()
	// With a hold of 0 an overwrite still never deletes data at once.
	s := newTestStore(t)
	mustBucket(t, s, "vec", FormatLance)
	mustNamespace(t, s, "vec", "docs")
	mustNamespace(t, s, "vec", "other")
	own := mustTable(t, s, TableRef{Bucket: "vec", Namespace: []string{"docs"}, Name: "rows100"}, FormatLance)
	writeData(t, own.Location)
	moved := mustTable(t, s, TableRef{Bucket: "vec", Namespace: []string{"other"}, Name: "moved"}, FormatLance)
	writeData(t, moved.Location)
	if _, err := s.RenameTable(ctx, TableRef{Bucket: "vec", Namespace: []string{"other"}, Name: "moved"}, []string{"docs"}, "moved"); err != nil {
		t.Fatal(err)
	}
	ownFiles, movedFiles := treeOf(t, own.Location), treeOf(t, moved.Location)

	ns, kept, err := s.OverwriteNamespace(ctx, "vec", []string{"docs"}, map[string]string{"k": "v"}, CascadeOptions{By: "apikey:k"})
	if err != nil {
		t.Fatal(err)
	}
	if ns.Properties["k"] != "v" || len(kept) != 1 || kept[0].ID != moved.ID {
		t.Fatalf("overwrite = %+v, kept %v", ns, names(kept))
	}
	list, _, _ := s.ListTables(ctx, "vec", []string{"docs"}, ListTablesOptions{IncludeDeclared: true})
	if names(list) != "moved" {
		t.Fatalf("after overwrite the namespace lists %v; want only the table renamed in", names(list))
	}
	if got := treeOf(t, moved.Location); fmt.Sprint(got) != fmt.Sprint(movedFiles) {
		t.Fatalf("the renamed-in table's data changed: %v", got)
	}
	if got := treeOf(t, own.Location); fmt.Sprint(got) != fmt.Sprint(ownFiles) {
		t.Fatalf("the overwritten table's data changed: %v", got)
	}
	d, err := s.FindDeletedTable(ctx, TableRef{Bucket: "vec", Namespace: []string{"docs"}, Name: "rows100"})
	if err != nil || d.Reason != ReasonOverwrite || !d.PurgeAt.After(d.DeletedAt) {
		t.Fatalf("the overwritten table is not recently deleted: %+v %v", d, err)
	}
	if _, err := s.UndropTable(ctx, d.ID, TableRef{}); err != nil {
		t.Fatalf("undrop after overwrite: %v", err)
	}
}

// TestCascadeKeepsForeignData: a cascade takes the entry of a table renamed
// in from another namespace but never its data, even once the hold ends.
func TestCascadeKeepsForeignData(t *testing.T) {
	ctx := context.Background()
	s, clock := heldFixture(t)
	mustNamespace(t, s, "lance-b", "other")
	moved := mustTable(t, s, ref("lance-b", "moved"), FormatLance)
	writeData(t, moved.Location)
	if _, err := s.RenameTable(ctx, ref("lance-b", "moved"), []string{"other"}, "moved"); err != nil {
		t.Fatal(err)
	}
	own := mustTable(t, s, TableRef{Bucket: "lance-b", Namespace: []string{"other"}, Name: "own"}, FormatLance)
	writeData(t, own.Location)
	if err := s.DropNamespace(ctx, "lance-b", []string{"other"}, true); err != nil {
		t.Fatal(err)
	}
	clock.Advance(testHold + time.Second)
	if _, err := s.PurgeExpired(ctx, 10); err != nil {
		t.Fatal(err)
	}
	if len(treeOf(t, moved.Location)) == 0 {
		t.Fatal("the cascade of namespace other deleted data under namespace ns")
	}
	if len(treeOf(t, own.Location)) != 0 {
		t.Fatal("the cascade's own table outlived its hold")
	}
}

func TestBucketCascadeUndrop(t *testing.T) {
	ctx := context.Background()
	s, _ := heldFixture(t)
	if _, err := s.UpdateNamespaceProperties(ctx, "lance-b", []string{"ns"}, nil, map[string]string{"owner": "team-a"}); err != nil {
		t.Fatal(err)
	}
	a := mustTable(t, s, ref("lance-b", "a"), FormatLance)
	writeData(t, a.Location)
	if _, err := s.UpdateTableTags(ctx, a.ID, map[string]string{"env": "prod"}, nil); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteBucket(ctx, "lance-b", true); err != nil {
		t.Fatal(err)
	}
	if _, err := s.GetBucket(ctx, "lance-b"); !errors.Is(err, fault.NotFound) {
		t.Fatalf("deleted bucket still found: %v", err)
	}
	bs, _, _ := s.ListBuckets(ctx, ListOptions{})
	for _, b := range bs {
		if b.Name == "lance-b" {
			t.Fatal("deleted bucket listed")
		}
	}
	_, err := s.CreateBucket(ctx, CreateBucketInput{Name: "lance-b", Format: FormatLance})
	if ce := wantKind(t, err, fault.AlreadyExists); !strings.Contains(ce.Message, "undrop") {
		t.Fatalf("create over a recently deleted bucket: %q", ce.Message)
	}
	if _, err := s.UndropTable(ctx, a.ID, TableRef{}); err == nil || !strings.Contains(err.Error(), "undrop the bucket first") {
		t.Fatalf("undrop of a table of a deleted bucket: %v", err)
	}
	if n, err := s.CountDeletedTables(ctx, "lance-b"); err != nil || n != 1 {
		t.Fatalf("CountDeletedTables = %d, %v; want 1", n, err)
	}
	if counts, err := s.CountDeletedTablesOfDeletedBuckets(ctx); err != nil || len(counts) != 1 || counts["lance-b"] != 1 {
		t.Fatalf("CountDeletedTablesOfDeletedBuckets = %v, %v; want lance-b: 1 (live buckets' drops are not counted)", counts, err)
	}
	b, back, err := s.UndropBucket(ctx, "lance-b")
	if err != nil || len(back) != 1 || b.Format != FormatLance {
		t.Fatalf("UndropBucket = %+v, %v, %v", b, names(back), err)
	}
	ns, err := s.GetNamespace(ctx, "lance-b", []string{"ns"})
	if err != nil || ns.Properties["owner"] != "team-a" {
		t.Fatalf("namespace after undrop: %+v %v; want its properties back", ns, err)
	}
	if got, err := s.GetTable(ctx, ref("lance-b", "a")); err != nil || got.ID != a.ID {
		t.Fatalf("table after undrop: %+v %v", got, err)
	}
	defer func() {
		// Deleted again, then purged: the data and the bucket are gone.
		if err := s.DeleteBucket(ctx, "lance-b", true); err != nil {
			t.Fatal(err)
		}
		done, err := s.PurgeDeletedBucket(ctx, "lance-b", false)
		if err != nil || len(done) != 1 {
			t.Fatalf("PurgeDeletedBucket = %d, %v", len(done), err)
		}
		if len(treeOf(t, a.Location)) != 0 {
			t.Fatal("purged bucket's table data left")
		}
		if _, err := s.CreateBucket(ctx, CreateBucketInput{Name: "lance-b", Format: FormatLance}); err != nil {
			t.Fatalf("the name of a purged bucket is not free: %v", err)
		}
	}()
	if tags, err := s.TableTags(ctx, a.ID); err != nil || tags["env"] != "prod" {
		t.Fatalf("tags after undrop: %v %v", tags, err)
	}
}

// A bucket deleted while it holds recently deleted tables keeps its row,
// but search no longer finds it or anything in it; undrop brings both back.
func TestSearchSkipsDeletedBuckets(t *testing.T) {
	ctx := context.Background()
	s, _ := heldFixture(t)
	a := mustTable(t, s, ref("lance-b", "a"), FormatLance)
	writeData(t, a.Location)
	found := func(q string) int {
		t.Helper()
		hits, _, err := s.Search(ctx, q, SearchOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return len(hits)
	}
	if found("lance-b") == 0 {
		t.Fatal("the live bucket is not found")
	}
	if err := s.DeleteBucket(ctx, "lance-b", true); err != nil {
		t.Fatal(err)
	}
	if n := found("lance-b"); n != 0 {
		t.Errorf("the deleted bucket is still found (%d hits)", n)
	}
}
