package catalog

import (
	"context"
	"strings"
	"testing"
)

func TestTableKeys(t *testing.T) {
	ctx := context.Background()
	s := lakeFixture(t)
	mustNamespace(t, s, "any-b", "ns", "child")
	mustTable(t, s, TableRef{Bucket: "any-b", Namespace: []string{"ns", "child"}, Name: "nested"}, FormatIceberg)
	for _, n := range []string{"b", "a", "c"} {
		mustTable(t, s, ref("any-b", n), FormatIceberg)
	}
	mustTable(t, s, ref("lance-b", "v"), FormatLance)
	mustTable(t, s, ref("lance-b", "gone"), FormatLance)
	if _, err := s.DeregisterTable(ctx, ref("lance-b", "gone")); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		bucket string
		ns     []string
		want   string
	}{
		{"", nil, "any-b/ns/a any-b/ns/b any-b/ns/c any-b/ns.child/nested lance-b/ns/v"},
		{"any-b", nil, "any-b/ns/a any-b/ns/b any-b/ns/c any-b/ns.child/nested"},
		{"any-b", []string{"ns"}, "any-b/ns/a any-b/ns/b any-b/ns/c"},
		{"lance-b", []string{"ns"}, "lance-b/ns/v"}, // deregistered tables are left out
		{"ice-b", []string{"ns"}, ""},
	}
	for _, c := range cases {
		keys, err := s.TableKeys(ctx, c.bucket, c.ns)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, k := range keys {
			got = append(got, k.Bucket+"/"+k.Namespace+"/"+k.Name)
			if k.ID == "" || k.Format == FormatUnset || k.CreatedAt.IsZero() || k.ModifiedAt.IsZero() {
				t.Errorf("%+v lacks a field", k)
			}
		}
		if strings.Join(got, " ") != c.want {
			t.Errorf("TableKeys(%q, %v) = %v, want %s", c.bucket, c.ns, got, c.want)
		}
	}
	v, _ := s.TableKeys(ctx, "lance-b", []string{"ns"})
	if len(v) != 1 || v[0].State != StateDeclared || v[0].Format != FormatLance {
		t.Errorf("lance key %+v", v)
	}
}
