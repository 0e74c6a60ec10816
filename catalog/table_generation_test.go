package catalog

import (
	"context"
	"testing"
)

// TestBucketTableGenerations checks each bucket's number moves with every
// change to its tables, from this Store or another process on the file,
// and only with its own.
func TestBucketTableGenerations(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	a := openAt(t, dir)
	b := openAt(t, dir)
	mustBucket(t, a, "one", FormatLance)
	mustBucket(t, a, "two", FormatLance)
	mustNamespace(t, a, "one", "ns")
	mustNamespace(t, a, "two", "ns")
	gens := func() map[string]int64 {
		t.Helper()
		g, err := a.BucketTableGenerations(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	ref := func(bucket, name string) TableRef {
		return TableRef{Bucket: bucket, Namespace: []string{"ns"}, Name: name}
	}
	step := func(what string, change func(), moved string) {
		t.Helper()
		before := gens()
		change()
		after := gens()
		for _, bk := range []string{"one", "two"} {
			if got := after[bk] != before[bk]; got != (bk == moved) {
				t.Errorf("%s: bucket %s's number moved %v (%d → %d), want %v", what, bk, got, before[bk], after[bk], bk == moved)
			}
		}
	}
	step("create in one", func() { mustTable(t, a, ref("one", "t"), FormatLance) }, "one")
	step("create in two from another process", func() { mustTable(t, b, ref("two", "t"), FormatLance) }, "two")
	step("rename in one", func() {
		if _, err := b.RenameTable(ctx, ref("one", "t"), nil, "u"); err != nil {
			t.Fatal(err)
		}
	}, "one")
	step("drop in two", func() {
		if _, err := a.DropTable(ctx, ref("two", "t")); err != nil {
			t.Fatal(err)
		}
	}, "two")
}
