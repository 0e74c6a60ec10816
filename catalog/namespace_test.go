package catalog

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/floe/floe/fault"
)

func TestCreateNamespace(t *testing.T) {
	ctx := context.Background()
	s := newTestStore(t)
	mustBucket(t, s, "lake", FormatUnset)
	ns, err := s.CreateNamespace(ctx, "lake", []string{"sales"}, map[string]string{"owner": "ana"})
	if err != nil {
		t.Fatal(err)
	}
	if ns.Name() != "sales" || ns.Properties["owner"] != "ana" {
		t.Errorf("namespace %+v", ns)
	}
	if !exists(t, filepath.Join(s.Warehouse(), "lake", "sales")) {
		t.Error("namespace directory not made")
	}
	mustNamespace(t, s, "lake", "sales", "eu")
	if !exists(t, filepath.Join(s.Warehouse(), "lake", "sales.eu")) {
		t.Error("child directory is not <bucket>/<levels joined by .>")
	}

	cases := []struct {
		name   string
		bucket string
		levels []string
		kind   error
		msg    string
	}{
		{"exists", "lake", []string{"sales"}, fault.AlreadyExists, "already exists"},
		{"missing parent", "lake", []string{"hr", "eu"}, fault.NotFound, `parent namespace "hr" does not exist in bucket "lake"`},
		{"missing grandparent", "lake", []string{"sales", "us", "west"}, fault.NotFound, `parent namespace "sales.us"`},
		{"missing bucket", "nope", []string{"a"}, fault.NotFound, `bucket "nope" does not exist`},
		{"no levels", "lake", nil, fault.Invalid, "at least one level"},
		{"bad level", "lake", []string{"sales", "e.u"}, fault.Invalid, "namespace level"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := s.CreateNamespace(ctx, tc.bucket, tc.levels, nil)
			ce := wantKind(t, err, tc.kind)
			if !strings.Contains(ce.Message, tc.msg) {
				t.Errorf("message %q lacks %q", ce.Message, tc.msg)
			}
		})
	}
	t.Run("no side effect", func(t *testing.T) {
		if _, err := s.GetNamespace(ctx, "lake", []string{"hr"}); err == nil {
			t.Error("a failed child create made its parent")
		}
		if _, err := s.GetBucket(ctx, "nope"); err == nil {
			t.Error("a namespace create made its bucket")
		}
	})
}

func TestListAndUpdateNamespaces(t *testing.T) {
	ctx := context.Background()
	s := newTestStore(t)
	mustBucket(t, s, "lake", FormatUnset)
	for _, l := range [][]string{{"a"}, {"b"}, {"c"}, {"a", "x"}, {"a", "y"}, {"a", "x", "deep"}} {
		mustNamespace(t, s, "lake", l...)
	}
	cases := []struct {
		name   string
		parent []string
		opt    ListOptions
		want   string
		next   string
	}{
		{"top level", nil, ListOptions{}, "a,b,c", ""},
		{"top level paged", nil, ListOptions{Limit: 2}, "a,b", "b"},
		{"top level second page", nil, ListOptions{After: "b", Limit: 2}, "c", ""},
		{"children", []string{"a"}, ListOptions{}, "a.x,a.y", ""},
		{"children after a level", []string{"a"}, ListOptions{After: "x"}, "a.y", ""},
		{"grandchildren", []string{"a", "x"}, ListOptions{}, "a.x.deep", ""},
		{"leaf", []string{"c"}, ListOptions{}, "", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			items, next, err := s.ListNamespaces(ctx, "lake", tc.parent, tc.opt)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, n := range items {
				names = append(names, n.Name())
			}
			if got := strings.Join(names, ","); got != tc.want || next != tc.next {
				t.Errorf("got %q next %q, want %q next %q", got, next, tc.want, tc.next)
			}
		})
	}
	t.Run("missing parent", func(t *testing.T) {
		_, _, err := s.ListNamespaces(ctx, "lake", []string{"zz"}, ListOptions{})
		wantKind(t, err, fault.NotFound)
	})
	t.Run("all", func(t *testing.T) {
		all, err := s.ListAllNamespaces(ctx, "lake")
		if err != nil || len(all) != 6 || all[0].Name() != "a" || all[5].Name() != "c" {
			t.Errorf("ListAllNamespaces = %v, %v", all, err)
		}
	})
	t.Run("properties", func(t *testing.T) {
		if _, err := s.UpdateNamespaceProperties(ctx, "lake", []string{"b"}, nil, map[string]string{"k1": "v1", "k2": "v2"}); err != nil {
			t.Fatal(err)
		}
		ns, err := s.UpdateNamespaceProperties(ctx, "lake", []string{"b"}, []string{"k1"}, map[string]string{"k3": "v3"})
		if err != nil {
			t.Fatal(err)
		}
		got, _ := s.GetNamespace(ctx, "lake", []string{"b"})
		for _, p := range []map[string]string{ns.Properties, got.Properties} {
			if len(p) != 2 || p["k2"] != "v2" || p["k3"] != "v3" {
				t.Errorf("properties %v", p)
			}
		}
	})
}

func TestDropNamespace(t *testing.T) {
	ctx := context.Background()
	s := newTestStore(t)
	mustBucket(t, s, "lake", FormatUnset)
	mustNamespace(t, s, "lake", "a")
	mustNamespace(t, s, "lake", "a", "b")
	mustNamespace(t, s, "lake", "a_b") // sorts near "a.b" and must survive
	keep := mustTable(t, s, TableRef{Bucket: "lake", Namespace: []string{"a_b"}, Name: "t"}, FormatIceberg)
	keepData := writeData(t, keep.Location)
	child := mustTable(t, s, TableRef{Bucket: "lake", Namespace: []string{"a", "b"}, Name: "t"}, FormatLance)
	childData := writeData(t, child.Location)

	t.Run("with children refuses", func(t *testing.T) {
		wantKind(t, s.DropNamespace(ctx, "lake", []string{"a"}, false), fault.NotEmpty)
	})
	t.Run("with tables refuses", func(t *testing.T) {
		wantKind(t, s.DropNamespace(ctx, "lake", []string{"a", "b"}, false), fault.NotEmpty)
		if !exists(t, childData) {
			t.Error("refused drop deleted data")
		}
	})
	t.Run("cascade", func(t *testing.T) {
		if err := s.DropNamespace(ctx, "lake", []string{"a"}, true); err != nil {
			t.Fatal(err)
		}
		if exists(t, childData) || exists(t, filepath.Join(s.Warehouse(), "lake", "a.b")) || exists(t, filepath.Join(s.Warehouse(), "lake", "a")) {
			t.Error("cascade left data or directories")
		}
		for _, l := range [][]string{{"a"}, {"a", "b"}} {
			if _, err := s.GetNamespace(ctx, "lake", l); err == nil {
				t.Errorf("namespace %v survived", l)
			}
		}
		if _, err := s.GetTable(ctx, TableRef{Bucket: "lake", Namespace: []string{"a_b"}, Name: "t"}); err != nil || !exists(t, keepData) {
			t.Errorf("sibling namespace lost its table: %v", err)
		}
	})
	t.Run("empty", func(t *testing.T) {
		mustNamespace(t, s, "lake", "empty")
		if err := s.DropNamespace(ctx, "lake", []string{"empty"}, false); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("missing", func(t *testing.T) {
		wantKind(t, s.DropNamespace(ctx, "lake", []string{"nope"}, false), fault.NotFound)
	})
}
