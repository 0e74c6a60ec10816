package lancerest

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestTableVersions: ListTableVersions and DescribeTableVersion read the
// dataset's _versions/ (V1 and V2 manifest names alike), page, order, and
// answer the spec's errors.
func TestTableVersions(t *testing.T) {
	e := newTestEnv(t, false)
	e.seed()
	e.run(t, []step{{name: "declare", path: "/v1/table/lnc$ns$t1/declare", status: 200, code: -1}})
	loc := filepath.Join(e.warehouse, "lnc", "ns", "t1.lance")
	e.run(t, []step{
		{name: "no versions yet", path: "/v1/table/lnc$ns$t1/version/list", status: 200, code: -1, want: []string{`{"versions":[]}`}},
		{name: "describe latest of a declared table", path: "/v1/table/lnc$ns$t1/version/describe", status: 404, code: 11},
	})
	writeVersions(t, loc, v2(1), v2(2), "3.manifest", v2(4), "not-a-manifest.txt")
	// manifest_path is the object-store path Lance clients read: the local
	// path without its leading slash.
	manifest := func(name string) string {
		b, _ := json.Marshal(strings.TrimPrefix(filepath.Join(loc, "_versions", name), "/"))
		return `"manifest_path":` + string(b)
	}
	e.run(t, []step{
		{name: "list ascending", path: "/v1/table/lnc$ns$t1/version/list", status: 200, code: -1,
			want: []string{`"version":1,` + manifest(v2(1)), `"version":3,` + manifest("3.manifest"), `"manifest_size":1`}, notWant: []string{"not-a-manifest", "page_token"}},
		{name: "list descending, paged", path: "/v1/table/lnc$ns$t1/version/list", body: `{"descending":true,"limit":2}`, status: 200, code: -1,
			want: []string{`{"versions":[{"version":4,`, `{"version":3,`, `"page_token":"3"`}, notWant: []string{`"version":2,`}},
		{name: "second page descending", path: "/v1/table/lnc$ns$t1/version/list", body: `{"descending":true,"limit":2,"page_token":"3"}`, status: 200, code: -1,
			want: []string{`{"versions":[{"version":2,`, `{"version":1,`}, notWant: []string{`"version":3,`, "page_token"}},
		{name: "second page ascending", path: "/v1/table/lnc$ns$t1/version/list", body: `{"limit":3,"page_token":"3"}`, status: 200, code: -1,
			want: []string{`{"versions":[{"version":4,`}, notWant: []string{`"version":3,`}},
		// The spec's REST binding passes these as query parameters, as
		// LanceDB 0.39 sends them; a body value wins over the query's.
		{name: "latest only, from the query", path: "/v1/table/lnc$ns$t1/version/list?limit=1&descending=true&delimiter=%24", status: 200, code: -1,
			want: []string{`{"versions":[{"version":4,`, `"page_token":"4"`}, notWant: []string{`"version":3,`, `"version":1,`}},
		{name: "query page token", path: "/v1/table/lnc$ns$t1/version/list?limit=2&page_token=2", status: 200, code: -1,
			want: []string{`{"versions":[{"version":3,`, `{"version":4,`}, notWant: []string{`"version":2,`, "page_token"}},
		{name: "body wins over query", path: "/v1/table/lnc$ns$t1/version/list?descending=true", body: `{"descending":false,"limit":1}`, status: 200, code: -1,
			want: []string{`{"versions":[{"version":1,`}},
		{name: "bad query limit", path: "/v1/table/lnc$ns$t1/version/list?limit=x", status: 400, code: 13},
		{name: "bad query descending", path: "/v1/table/lnc$ns$t1/version/list?descending=maybe", status: 400, code: 13},
		{name: "other branch in the query", path: "/v1/table/lnc$ns$t1/version/list?branch=dev", status: 406, code: 0},
		{name: "bad page token", path: "/v1/table/lnc$ns$t1/version/list", body: `{"page_token":"x"}`, status: 400, code: 13},
		{name: "negative limit", path: "/v1/table/lnc$ns$t1/version/list", body: `{"limit":-1}`, status: 400, code: 13},
		{name: "other branch", path: "/v1/table/lnc$ns$t1/version/list", body: `{"branch":"dev"}`, status: 406, code: 0},
		{name: "describe latest", path: "/v1/table/lnc$ns$t1/version/describe", status: 200, code: -1, want: []string{`{"version":{"version":4,` + manifest(v2(4))}},
		{name: "describe v1 name", path: "/v1/table/lnc$ns$t1/version/describe", body: `{"version":3}`, status: 200, code: -1, want: []string{manifest("3.manifest")}},
		{name: "describe missing version", path: "/v1/table/lnc$ns$t1/version/describe", body: `{"version":9}`, status: 404, code: 11},
		{name: "describe negative version", path: "/v1/table/lnc$ns$t1/version/describe", body: `{"version":-1}`, status: 400, code: 13},
		{name: "missing table", path: "/v1/table/lnc$ns$nope/version/list", status: 404, code: 4},
		{name: "id mismatch", path: "/v1/table/lnc$ns$t1/version/list", body: `{"id":["lnc","ns","t2"]}`, status: 400, code: 13},
		{name: "scoped elsewhere", path: "/v1/table/mix$ns$t1/version/list", key: "scoped", status: 403, code: 15},
		{name: "GET not allowed", method: "GET", path: "/v1/table/lnc$ns$t1/version/list", status: 405, code: 13},
	})
}

// TestTableTags: tag operations on Lance's tag files, and their refusals.
func TestTableTags(t *testing.T) {
	e := newTestEnv(t, false)
	e.seed()
	e.run(t, []step{
		{name: "declare", path: "/v1/table/lnc$ns$t1/declare", status: 200, code: -1},
		{name: "tag a declared table", path: "/v1/table/lnc$ns$t1/tags/create", body: `{"tag":"a","version":1}`, status: 404, code: 11},
	})
	writeVersions(t, filepath.Join(e.warehouse, "lnc", "ns", "t1.lance"), v2(1), v2(2))
	e.run(t, []step{
		{name: "no tags", path: "/v1/table/lnc$ns$t1/tags/list", status: 200, code: -1, want: []string{`{"tags":{}}`}},
		{name: "create", path: "/v1/table/lnc$ns$t1/tags/create", body: `{"tag":"prod","version":1}`, status: 200, code: -1},
		{name: "create again", path: "/v1/table/lnc$ns$t1/tags/create", body: `{"tag":"prod","version":2}`, status: 409, code: 9},
		{name: "version", path: "/v1/table/lnc$ns$t1/tags/version", body: `{"tag":"prod"}`, status: 200, code: -1, want: []string{`{"version":1}`}},
		{name: "update", path: "/v1/table/lnc$ns$t1/tags/update", body: `{"tag":"prod","version":2}`, status: 200, code: -1},
		{name: "list", path: "/v1/table/lnc$ns$t1/tags/list", status: 200, code: -1, want: []string{`"prod":{"version":2,"manifestSize":1}`}},
		{name: "update missing", path: "/v1/table/lnc$ns$t1/tags/update", body: `{"tag":"nope","version":1}`, status: 404, code: 8},
		{name: "missing version", path: "/v1/table/lnc$ns$t1/tags/create", body: `{"tag":"x","version":9}`, status: 404, code: 11},
		{name: "no version", path: "/v1/table/lnc$ns$t1/tags/create", body: `{"tag":"x"}`, status: 400, code: 13},
		{name: "traversal name", path: "/v1/table/lnc$ns$t1/tags/create", body: `{"tag":"../../x","version":1}`, status: 400, code: 13},
		{name: "hidden name", path: "/v1/table/lnc$ns$t1/tags/create", body: `{"tag":".x","version":1}`, status: 400, code: 13},
		{name: "readonly create", path: "/v1/table/lnc$ns$t1/tags/create", key: "ro", body: `{"tag":"r","version":1}`, status: 403, code: 15},
		{name: "readonly reads", path: "/v1/table/lnc$ns$t1/tags/version", key: "ro", body: `{"tag":"prod"}`, status: 200, code: -1},
		{name: "other branch", path: "/v1/table/lnc$ns$t1/tags/create", body: `{"tag":"b","version":1,"branch":"dev"}`, status: 406, code: 0},
		{name: "delete", path: "/v1/table/lnc$ns$t1/tags/delete", body: `{"tag":"prod"}`, status: 200, code: -1},
		{name: "delete again", path: "/v1/table/lnc$ns$t1/tags/delete", body: `{"tag":"prod"}`, status: 404, code: 8},
		{name: "tag a", path: "/v1/table/lnc$ns$t1/tags/create", body: `{"tag":"a","version":1}`, status: 200, code: -1},
		{name: "tag b", path: "/v1/table/lnc$ns$t1/tags/create", body: `{"tag":"b","version":2}`, status: 200, code: -1},
		{name: "tag c", path: "/v1/table/lnc$ns$t1/tags/create", body: `{"tag":"c","version":2}`, status: 200, code: -1},
		{name: "first page of tags", path: "/v1/table/lnc$ns$t1/tags/list", body: `{"limit":2}`, status: 200, code: -1,
			want: []string{`"a":{"version":1`, `"b":{"version":2`, `"page_token":"b"`}, notWant: []string{`"c":`}},
		{name: "next page of tags, from the query", path: "/v1/table/lnc$ns$t1/tags/list?limit=2&page_token=b", status: 200, code: -1,
			want: []string{`"c":{"version":2`}, notWant: []string{`"a":`, `"b":`, "page_token"}},
		{name: "bad tag page token", path: "/v1/table/lnc$ns$t1/tags/list", body: `{"page_token":"../x"}`, status: 400, code: 13},
		{name: "negative tag limit", path: "/v1/table/lnc$ns$t1/tags/list", body: `{"limit":-1}`, status: 400, code: 13},
	})
}
