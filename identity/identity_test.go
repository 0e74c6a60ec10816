package identity

import "testing"

func TestImplies(t *testing.T) {
	for _, c := range []struct {
		p, q Privilege
		want bool
	}{
		{Manage, Read, true}, {Manage, Write, true}, {Manage, Maintain, true}, {Manage, Manage, true},
		{Write, Read, true}, {Write, Write, true}, {Write, Maintain, false}, {Write, Manage, false},
		{Maintain, Read, true}, {Maintain, Write, false}, {Read, Write, false}, {Read, Read, true},
		{"", Read, false},
	} {
		if got := c.p.Implies(c.q); got != c.want {
			t.Errorf("%s implies %s = %v", c.p, c.q, got)
		}
	}
}

func TestResourceContains(t *testing.T) {
	all := Resource{}
	b := Resource{Bucket: "b"}
	ns := Resource{Bucket: "b", Namespace: []string{"sales"}}
	sub := Resource{Bucket: "b", Namespace: []string{"sales", "eu"}}
	tbl := Resource{Bucket: "b", Namespace: []string{"sales"}, Table: "t"}
	other := Resource{Bucket: "c", Namespace: []string{"sales"}, Table: "t"}
	for _, c := range []struct {
		r, o Resource
		want bool
	}{
		{all, other, true}, {b, tbl, true}, {b, other, false}, {ns, tbl, true}, {ns, sub, true},
		{sub, ns, false}, {tbl, tbl, true}, {tbl, ns, false}, {tbl, Resource{Bucket: "b", Namespace: []string{"sales", "eu"}, Table: "t"}, false},
		{Resource{Bucket: "b", Namespace: []string{"sal"}}, tbl, false},
	} {
		if got := c.r.Contains(c.o); got != c.want {
			t.Errorf("%s contains %s = %v", c.r, c.o, got)
		}
	}
	if all.String() != "*" || sub.String() != "b/sales.eu" || tbl.String() != "b/sales/t" {
		t.Errorf("strings: %s %s %s", all, sub, tbl)
	}
}
