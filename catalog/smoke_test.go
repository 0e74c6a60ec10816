package catalog

import (
	"context"
	"testing"
)

func TestSmoke(t *testing.T) {
	ctx := context.Background()
	s := newTestStore(t)
	mustBucket(t, s, "lake", FormatLance)
	mustNamespace(t, s, "lake", "sales")
	mustNamespace(t, s, "lake", "sales", "eu")
	ref := TableRef{Bucket: "lake", Namespace: []string{"sales", "eu"}, Name: "orders"}
	tb := mustTable(t, s, ref, FormatLance)
	if tb.State != StateDeclared {
		t.Fatalf("state %s", tb.State)
	}
	b, err := s.GetBucket(ctx, "lake")
	if err != nil || b.TableCount != 1 {
		t.Fatalf("%+v %v", b, err)
	}
	items, _, err := s.ListTables(ctx, "lake", []string{"sales", "eu"}, ListTablesOptions{IncludeDeclared: true})
	if err != nil || len(items) != 1 {
		t.Fatalf("%v %v", items, err)
	}
	all, _, err := s.ListAllTables(ctx, FormatLance, nil, "", 10)
	if err != nil || len(all) != 1 {
		t.Fatalf("%v %v", all, err)
	}
	if _, err := s.DropTable(ctx, ref); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteBucket(ctx, "lake", true); err != nil {
		t.Fatal(err)
	}
}
