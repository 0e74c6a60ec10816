package lancerest

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/floe/floe/catalog"
)

// TestNamesAsTheFormatsAllow: mixed-case and spaced names round-trip the
// way LanceDB 0.39 sends them (a space as + in the path, a + as %2B), names
// differing only in case are two tables in two directories, and the
// directories hold no upper case.
func TestNamesAsTheFormatsAllow(t *testing.T) {
	e := newTestEnv(t, false)
	e.seed()
	e.must("POST", "/v1/namespace/lnc$Sales+EU/create", `{"id":["lnc","Sales EU"]}`)
	e.run(t, []step{
		{name: "declare with a space as +", path: "/v1/table/lnc$Sales+EU$My+Table/declare", body: `{"id":["lnc","Sales EU","My Table"]}`, status: 200, code: -1},
		{name: "declare the same name in lower case", path: "/v1/table/lnc$Sales+EU$my+table/declare", status: 200, code: -1},
		{name: "declare with a +", path: "/v1/table/lnc$Sales+EU$a%2Bb/declare", body: `{"id":["lnc","Sales EU","a+b"]}`, status: 200, code: -1},
		{name: "describe with a space as %20", path: "/v1/table/lnc$Sales%20EU$My%20Table/describe", status: 200, code: -1},
		{name: "a literal + is a space", path: "/v1/table/lnc$Sales+EU$a+b/describe", body: `{"id":["lnc","Sales EU","a+b"]}`, status: 400, code: 13,
			want: []string{`the body names [\"lnc\",\"Sales EU\",\"a+b\"], the path [\"lnc\",\"Sales EU\",\"a b\"]`, "%2B"}},
		{name: "case is kept", path: "/v1/table/lnc$Sales+EU$MY+TABLE/describe", status: 404, code: 4},
		{name: "list", method: "GET", path: "/v1/namespace/lnc$Sales+EU/table/list", status: 200, code: -1, want: []string{`"My Table"`, `"a+b"`, `"my table"`}},
		{name: "list namespaces", method: "GET", path: "/v1/namespace/lnc/list", status: 200, code: -1, want: []string{`"Sales EU"`}},
		{name: "rename", path: "/v1/table/lnc$Sales+EU$My+Table/rename", body: `{"new_table_name":"Your Table"}`, status: 200, code: -1},
		{name: "renamed", path: "/v1/table/lnc$Sales+EU$Your+Table/exists", status: 200, code: -2},
		{name: "a dot level is two levels", path: "/v1/namespace/lnc$a.b/create", status: 400, code: 13},
		{name: "a $ in a name", path: "/v1/table/lnc$Sales+EU$x%24y/declare", body: `{"id":["lnc","Sales EU","x$y"]}`, status: 400, code: 13},
	})
	ctx := context.Background()
	a, err := e.store.GetTable(ctx, catalog.TableRef{Bucket: "lnc", Namespace: []string{"Sales EU"}, Name: "Your Table"})
	if err != nil {
		t.Fatal(err)
	}
	b, err := e.store.GetTable(ctx, catalog.TableRef{Bucket: "lnc", Namespace: []string{"Sales EU"}, Name: "my table"})
	if err != nil {
		t.Fatal(err)
	}
	// The renamed table keeps its location (rename moves no data).
	wantA := "file://" + filepath.Join(e.warehouse, "lnc", "__sales_032_e_u", "__my_032_table.lance")
	wantB := "file://" + filepath.Join(e.warehouse, "lnc", "__sales_032_e_u", "_my_032table.lance")
	if a.Location != wantA || b.Location != wantB {
		t.Fatalf("locations %s and %s, want %s and %s", a.Location, b.Location, wantA, wantB)
	}
	if strings.EqualFold(a.Location, b.Location) {
		t.Fatalf("two tables share a directory on a case-insensitive store: %s", a.Location)
	}
	r := e.must("POST", "/v1/table/lnc$Sales+EU$Your+Table/describe", "")
	var d struct{ Location string }
	if err := json.Unmarshal(r.body, &d); err != nil || d.Location != wantA {
		t.Fatalf("describe answers location %q (%v)", d.Location, err)
	}
	e.run(t, []step{
		{name: "drop", path: "/v1/table/lnc$Sales+EU$Your+Table/drop", status: 200, code: -1},
		{name: "dropped", path: "/v1/table/lnc$Sales+EU$Your+Table/exists", status: 404, code: 4},
		{name: "the other case is still there", path: "/v1/table/lnc$Sales+EU$my+table/exists", status: 200, code: -2},
	})
}
