package lancerest

import (
	"testing"

	"github.com/floe/floe/catalog"
)

func TestNamespaceOperations(t *testing.T) {
	e := newTestEnv(t, false)
	e.seed()
	e.run(t, []step{
		// CreateNamespace
		{name: "create bucket", path: "/v1/namespace/newb/create", body: `{"id":["newb"],"mode":"Create"}`, status: 200, code: -1, want: []string{`"properties":{}`}},
		{name: "bucket is LANCE", method: "GET", path: "/v1/namespace/%24/list", status: 200, code: -1, want: []string{`"newb"`}},
		{name: "create bucket again", path: "/v1/namespace/newb/create", body: `null`, status: 409, code: 2},
		{name: "create bucket exist_ok", path: "/v1/namespace/newb/create", body: `{"mode":"exist_ok"}`, status: 200, code: -1},
		{name: "create bucket EXISTOK", path: "/v1/namespace/newb/create", body: `{"mode":"EXISTOK"}`, status: 200, code: -1},
		{name: "create bucket named like an iceberg bucket", path: "/v1/namespace/icb/create", body: `{"mode":"ExistOk"}`, status: 409, code: 2, want: []string{"Iceberg"}},
		{name: "create bucket bad mode", path: "/v1/namespace/newc/create", body: `{"mode":"sometimes"}`, status: 400, code: 13},
		{name: "create bucket bad name", path: "/v1/namespace/NO/create", status: 400, code: 13},
		{name: "create bucket readonly", path: "/v1/namespace/newc/create", key: "ro", status: 403, code: 15},
		{name: "create bucket scoped", path: "/v1/namespace/newc/create", key: "scoped", status: 403, code: 15},
		{name: "create child", path: "/v1/namespace/newb$a/create", body: `{"properties":{"team":"x"}}`, status: 200, code: -1, want: []string{`"team":"x"`}},
		{name: "create grandchild", path: "/v1/namespace/newb$a$b/create", status: 200, code: -1},
		{name: "create child again", path: "/v1/namespace/newb$a/create", status: 409, code: 2},
		{name: "create child exist_ok keeps properties", path: "/v1/namespace/newb$a/create", body: `{"mode":"ExistOk"}`, status: 200, code: -1, want: []string{`"team":"x"`}},
		{name: "create without parent", path: "/v1/namespace/newb$zz$b/create", status: 404, code: 1},
		{name: "create in missing bucket", path: "/v1/namespace/nobucket$a/create", status: 404, code: 1},
		{name: "create in iceberg bucket", path: "/v1/namespace/icb$a/create", status: 404, code: 1, want: []string{"Iceberg"}},
		{name: "create root", path: "/v1/namespace/%24/create", status: 409, code: 2},
		{name: "create root exist_ok", path: "/v1/namespace/%24/create", body: `{"mode":"exist_ok"}`, status: 200, code: -1},
		{name: "create with custom delimiter", path: "/v1/namespace/newb.c/create?delimiter=.", status: 200, code: -1},
		{name: "overwrite child empties it", path: "/v1/namespace/newb$a/create", body: `{"mode":"Overwrite"}`, status: 200, code: -1, notWant: []string{"team"}},
		{name: "grandchild gone after overwrite", path: "/v1/namespace/newb$a$b/exists", status: 404, code: 1},

		// DescribeNamespace / NamespaceExists
		{name: "describe root", path: "/v1/namespace/%24/describe", status: 200, code: -1, want: []string{`"properties":{}`}},
		{name: "describe bucket", path: "/v1/namespace/lnc/describe", status: 200, code: -1},
		{name: "describe namespace", path: "/v1/namespace/lnc$ns$sub/describe", body: `{"id":["lnc","ns","sub"]}`, status: 200, code: -1, want: []string{`"owner":"ann"`}},
		{name: "describe id mismatch", path: "/v1/namespace/lnc$ns$sub/describe", body: `{"id":["lnc","ns"]}`, status: 400, code: 13},
		{name: "describe missing", path: "/v1/namespace/lnc$nope/describe", status: 404, code: 1},
		{name: "describe iceberg bucket", path: "/v1/namespace/icb/describe", status: 404, code: 1},
		{name: "exists", path: "/v1/namespace/lnc$ns/exists", body: `null`, status: 200, code: -2},
		{name: "exists missing", path: "/v1/namespace/lnc$nope/exists", status: 404, code: 1},
		{name: "exists bad name", path: "/v1/namespace/lnc$a.b/exists", status: 400, code: 13},

		// ListNamespaces
		{name: "list root hides iceberg buckets", method: "GET", path: "/v1/namespace/%24/list?delimiter=%24", status: 200, code: -1, want: []string{`"lnc"`, `"mix"`}, notWant: []string{`"icb"`}},
		{name: "list bucket", method: "GET", path: "/v1/namespace/lnc/list", status: 200, code: -1, want: []string{`{"namespaces":["ns"]}`}},
		{name: "list namespace", method: "GET", path: "/v1/namespace/lnc$ns/list", status: 200, code: -1, want: []string{`{"namespaces":["sub"]}`}},
		{name: "list leaf is empty array", method: "GET", path: "/v1/namespace/lnc$ns$sub/list", status: 200, code: -1, want: []string{`{"namespaces":[]}`}},
		{name: "list missing", method: "GET", path: "/v1/namespace/lnc$nope/list", status: 404, code: 1},
		{name: "list by POST", path: "/v1/namespace/lnc/list", body: `{"limit":5}`, status: 200, code: -1, want: []string{`"ns"`}},
		{name: "list bad limit", method: "GET", path: "/v1/namespace/lnc/list?limit=abc", status: 400, code: 13},
		{name: "list negative limit", method: "GET", path: "/v1/namespace/lnc/list?limit=-1", status: 400, code: 13},

		// DropNamespace
		{name: "drop not empty", path: "/v1/namespace/lnc$ns/drop", status: 409, code: 3},
		{name: "drop restrict explicit", path: "/v1/namespace/lnc$ns/drop", body: `{"behavior":"RESTRICT"}`, status: 409, code: 3},
		{name: "drop missing fails", path: "/v1/namespace/lnc$nope/drop", status: 404, code: 1},
		{name: "drop missing skip", path: "/v1/namespace/lnc$nope/drop", body: `{"mode":"Skip"}`, status: 200, code: -1},
		{name: "drop bad behavior", path: "/v1/namespace/lnc$ns/drop", body: `{"behavior":"gently"}`, status: 400, code: 13},
		{name: "drop root", path: "/v1/namespace/%24/drop", status: 400, code: 13},
		{name: "drop readonly", path: "/v1/namespace/lnc$ns$sub/drop", key: "ro", status: 403, code: 15},
		{name: "drop leaf", path: "/v1/namespace/lnc$ns$sub/drop", status: 200, code: -1},
		{name: "drop cascade", path: "/v1/namespace/newb$a/drop", body: `{"behavior":"cascade"}`, status: 200, code: -1},
		{name: "cascade refuses iceberg tables", path: "/v1/namespace/mix$ns/drop", body: `{"behavior":"Cascade"}`, status: 409, code: 3, want: []string{"Iceberg"}},
		{name: "bucket drop by scoped key", path: "/v1/namespace/lnc/drop", key: "scoped", status: 403, code: 15},
		{name: "drop bucket restrict", path: "/v1/namespace/newb/drop", status: 409, code: 3},
		{name: "drop bucket cascade", path: "/v1/namespace/newb/drop", body: `{"mode":"fail","behavior":"cascade"}`, status: 200, code: -1},
		{name: "bucket gone", path: "/v1/namespace/newb/exists", status: 404, code: 1},
		{name: "iceberg bucket drop is not found", path: "/v1/namespace/icb/drop", body: `{"behavior":"cascade"}`, status: 404, code: 1},
		{name: "iceberg bucket still there", method: "GET", path: "/v1/namespace/icb/list", status: 404, code: 1},
	})
	if _, err := e.store.GetBucket(t.Context(), "icb"); err != nil {
		t.Fatalf("iceberg bucket was touched: %v", err)
	}
}

func TestListNamespacesPagination(t *testing.T) {
	e := newTestEnv(t, false)
	e.must("POST", "/v1/namespace/pag/create", "")
	names := []string{"a1", "a2", "a3", "a4", "a5"}
	for _, n := range names {
		e.must("POST", "/v1/namespace/pag$"+n+"/create", "")
	}
	var got []string
	token := ""
	for pages := 0; pages < 10; pages++ {
		path := "/v1/namespace/pag/list?limit=2"
		if token != "" {
			path += "&page_token=" + token
		}
		m := e.must("GET", path, "").json(t)
		for _, n := range m["namespaces"].([]any) {
			got = append(got, n.(string))
		}
		next, _ := m["page_token"].(string)
		if next == "" {
			break
		}
		if after, err := catalog.ParsePageToken(next); err != nil || after != got[len(got)-1] {
			t.Errorf("page_token %q stands for %q (%v), not the last name %q", next, after, err, got[len(got)-1])
		}
		token = next
	}
	if len(got) != len(names) {
		t.Fatalf("paged names = %v, want %v", got, names)
	}
	for i := range names {
		if got[i] != names[i] {
			t.Fatalf("paged names = %v, want %v", got, names)
		}
	}
}
