package iceworker

import (
	"slices"
	"testing"

	"github.com/floe/floe/plugin/pluginpb"
)

// TestTargeted: a targeted observe keeps only the named tables; namespace
// levels count (a.b/t is not a/t), and no names means every table.
func TestTargeted(t *testing.T) {
	refs := []TableRef{
		{ID: "1", Bucket: "b", Namespace: []string{"a"}, Name: "t"},
		{ID: "2", Bucket: "b", Namespace: []string{"a", "b"}, Name: "t"},
		{ID: "3", Bucket: "c", Namespace: []string{"a"}, Name: "t"},
	}
	cases := []struct {
		name    string
		objects []*pluginpb.ObjectRef
		want    []string
	}{
		{"none named: all", nil, []string{"1", "2", "3"}},
		{"one", []*pluginpb.ObjectRef{{Bucket: "b", Namespace: []string{"a"}, Name: "t"}}, []string{"1"}},
		{"nested namespace", []*pluginpb.ObjectRef{{Bucket: "b", Namespace: []string{"a", "b"}, Name: "t"}}, []string{"2"}},
		{"unknown", []*pluginpb.ObjectRef{{Bucket: "x", Namespace: []string{"a"}, Name: "t"}}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var ids []string
			for _, r := range targeted(slices.Clone(refs), c.objects) {
				ids = append(ids, r.ID)
			}
			if !slices.Equal(ids, c.want) {
				t.Fatalf("targeted = %v, want %v", ids, c.want)
			}
		})
	}
}
