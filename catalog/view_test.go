package catalog

import (
	"context"
	"testing"

	"github.com/floe/floe/fault"
)

// TestViews: a view and a table never share a name (create and rename, both
// directions), commits are compare-and-swap, and drops of the namespace or
// bucket around a view behave like those around a table.
func TestViews(t *testing.T) {
	ctx := context.Background()
	s := newTestStore(t)
	mustBucket(t, s, "lake", FormatIceberg)
	mustBucket(t, s, "vecs", FormatLance)
	mustNamespace(t, s, "lake", "a")
	mustNamespace(t, s, "lake", "b")
	mustNamespace(t, s, "vecs", "a")
	mustTable(t, s, TableRef{Bucket: "lake", Namespace: []string{"a"}, Name: "t"}, FormatIceberg)
	newView := func(bucket, ns, name string) (View, error) {
		ref := TableRef{Bucket: bucket, Namespace: []string{ns}, Name: name}
		loc, err := s.DefaultViewLocation(ctx, ref)
		if err != nil {
			return View{}, err
		}
		return s.CreateView(ctx, CreateViewInput{TableRef: ref, Location: loc, MetadataLocation: loc + "/metadata/00000-x.metadata.json"})
	}
	v, err := newView("lake", "a", "v")
	if err != nil {
		t.Fatalf("create view: %v", err)
	}

	cases := []struct {
		name string
		err  func() error
		kind error
	}{
		{"view over a table", func() error { _, err := newView("lake", "a", "t"); return err }, fault.AlreadyExists},
		{"view twice", func() error { _, err := newView("lake", "a", "v"); return err }, fault.AlreadyExists},
		{"view in a Lance bucket", func() error { _, err := newView("vecs", "a", "v"); return err }, fault.Conflict},
		{"view in a missing namespace", func() error { _, err := newView("lake", "zz", "v"); return err }, fault.NotFound},
		{"table over a view", func() error {
			_, _, err := s.CreateTable(ctx, CreateTableInput{TableRef: TableRef{Bucket: "lake", Namespace: []string{"a"}, Name: "v"}, Format: FormatIceberg})
			return err
		}, fault.AlreadyExists},
		{"table renamed onto a view", func() error {
			_, err := s.RenameTable(ctx, TableRef{Bucket: "lake", Namespace: []string{"a"}, Name: "t"}, []string{"a"}, "v")
			return err
		}, fault.AlreadyExists},
		{"view renamed onto a table", func() error {
			_, err := s.RenameView(ctx, TableRef{Bucket: "lake", Namespace: []string{"a"}, Name: "v"}, []string{"a"}, "t")
			return err
		}, fault.AlreadyExists},
		{"commit with a stale token", func() error { _, err := s.CommitView(ctx, v.ID, "stale", v.MetadataLocation); return err }, fault.Conflict},
		{"metadata outside the view's location", func() error {
			ref := TableRef{Bucket: "lake", Namespace: []string{"a"}, Name: "w"}
			_, err := s.CreateView(ctx, CreateViewInput{TableRef: ref, Location: s.DefaultLocation(ref, FormatIceberg), MetadataLocation: "/etc/passwd"})
			return err
		}, fault.Invalid},
		{"drop a namespace holding a view", func() error { return s.DropNamespace(ctx, "lake", []string{"a"}, false) }, fault.NotEmpty},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { wantKind(t, tc.err(), tc.kind) })
	}

	if v, err = s.CommitView(ctx, v.ID, v.VersionToken, v.Location+"/metadata/00001-y.metadata.json"); err != nil {
		t.Fatalf("commit: %v", err)
	}
	moved, err := s.RenameView(ctx, TableRef{Bucket: "lake", Namespace: []string{"a"}, Name: "v"}, []string{"b"}, "v2")
	if err != nil || moved.ID != v.ID || moved.MetadataLocation != v.MetadataLocation {
		t.Fatalf("rename across namespaces: %+v, %v", moved, err)
	}
	if _, err := s.GetView(ctx, TableRef{Bucket: "lake", Namespace: []string{"a"}, Name: "v"}); err == nil {
		t.Fatal("old name still resolves")
	}
	// The old name is free again, for a table too.
	mustTable(t, s, TableRef{Bucket: "lake", Namespace: []string{"a"}, Name: "v"}, FormatIceberg)
	list, _, err := s.ListViews(ctx, "lake", []string{"b"}, ListOptions{})
	if err != nil || len(list) != 1 || list[0].Name != "v2" {
		t.Fatalf("list = %+v, %v", list, err)
	}
	if _, err := s.DropView(ctx, TableRef{Bucket: "lake", Namespace: []string{"b"}, Name: "v2"}); err != nil {
		t.Fatalf("drop: %v", err)
	}
	_, err = s.DropView(ctx, TableRef{Bucket: "lake", Namespace: []string{"b"}, Name: "v2"})
	wantKind(t, err, fault.NotFound)

	// Cascades forget views with their namespace and bucket.
	if _, err := newView("lake", "b", "x"); err != nil {
		t.Fatal(err)
	}
	if err := s.DropNamespace(ctx, "lake", []string{"b"}, true); err != nil {
		t.Fatalf("cascade namespace: %v", err)
	}
	if _, err := newView("lake", "a", "y"); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteBucket(ctx, "lake", true); err != nil {
		t.Fatalf("cascade bucket: %v", err)
	}
}
