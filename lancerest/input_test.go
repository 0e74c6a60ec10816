package lancerest

import (
	"bytes"
	"net/http"
	"strings"
	"testing"
)

// TestHostileInput: client mistakes get the spec's code and status, never a 500.
func TestHostileInput(t *testing.T) {
	e := newTestEnv(t, false)
	e.seed()
	e.must("POST", "/v1/table/lnc$ns$t1/declare", "")
	long := strings.Repeat("a", 300)
	e.run(t, []step{
		{name: "malformed JSON", path: "/v1/table/lnc$ns$t1/describe", body: `{"id": [`, status: 400, code: 13},
		{name: "JSON array body", path: "/v1/table/lnc$ns$t1/describe", body: `["lnc"]`, status: 400, code: 13},
		{name: "JSON string body", path: "/v1/namespace/lnc/create", body: `"x"`, status: 400, code: 13},
		{name: "trailing garbage", path: "/v1/table/lnc$ns$t1/describe", body: `{} {}`, status: 400, code: 13},
		{name: "id wrong type", path: "/v1/table/lnc$ns$t1/describe", body: `{"id":"lnc$ns$t1"}`, status: 400, code: 13, want: []string{"id"}},
		{name: "id items wrong type", path: "/v1/table/lnc$ns$t1/describe", body: `{"id":[1,2,3]}`, status: 400, code: 13},
		{name: "mode wrong type", path: "/v1/namespace/lnc$x/create", body: `{"mode":1}`, status: 400, code: 13},
		{name: "properties wrong type", path: "/v1/namespace/lnc$x/create", body: `{"properties":{"a":1}}`, status: 400, code: 13},
		{name: "version not integer", path: "/v1/table/lnc$ns$t1/describe", body: `{"version":1.5}`, status: 400, code: 13},
		{name: "version huge", path: "/v1/table/lnc$ns$t1/describe", body: `{"version":1e40}`, status: 400, code: 13},
		{name: "empty body", path: "/v1/table/lnc$ns$t1/describe", status: 200, code: -1},
		{name: "empty object", path: "/v1/table/lnc$ns$t1/describe", body: `{}`, status: 200, code: -1},
		{name: "null body", path: "/v1/table/lnc$ns$t1/describe", body: `null`, status: 200, code: -1},
		{name: "unknown fields are ignored", path: "/v1/table/lnc$ns$t1/describe", body: `{"identity":{"api_key":"x"},"context":{"a":"b"},"future":true}`, status: 200, code: -1},
		{name: "empty name", path: "/v1/table/lnc$$t1/describe", status: 400, code: 13},
		{name: "trailing delimiter", path: "/v1/table/lnc$ns$/describe", status: 400, code: 13},
		{name: "leading delimiter", path: "/v1/namespace/$lnc/describe", status: 400, code: 13},
		{name: "dotdot name", path: "/v1/table/lnc$..$t1/describe", status: 400, code: 13},
		{name: "dotdot segment", path: "/v1/table/../describe", status: 400, code: 13},
		{name: "encoded slash in name", path: "/v1/table/lnc$ns$a%2Fb/describe", status: 400, code: 13},
		{name: "NUL", path: "/v1/table/lnc$ns$t%001/describe", status: 400, code: 13},
		{name: "NUL in body id", path: "/v1/namespace/lnc/describe", body: "{\"id\":[\"ln\\u0000c\"]}", status: 400, code: 13},
		{name: "unicode name is a name", path: "/v1/table/lnc$ns$t%C3%A9/describe", status: 404, code: 4},
		{name: "control character in a name", path: "/v1/table/lnc$ns$t%01/describe", status: 400, code: 13},
		{name: "invalid utf-8", path: "/v1/table/lnc$ns$t%FF/describe", status: 400, code: 13},
		{name: "upper case", path: "/v1/namespace/LNC/describe", status: 400, code: 13},
		{name: "over-long name", path: "/v1/table/lnc$ns$" + long + "/describe", status: 400, code: 13},
		{name: "over-long identifier", path: "/v1/namespace/" + strings.Repeat("a$", 3000) + "a/describe", status: 400, code: 13},
		{name: "too many levels", path: "/v1/namespace/" + strings.Repeat("a$", 70) + "a/describe", status: 400, code: 13},
		{name: "empty delimiter means default", path: "/v1/table/lnc$ns$t1/exists?delimiter=", status: 200, code: -2},
		{name: "delimiter with NUL", path: "/v1/table/lnc$ns$t1/exists?delimiter=%00", status: 400, code: 13},
		{name: "plus delimiter (a space in a query)", path: "/v1/table/lnc+ns+t1/exists?delimiter=+", status: 400, code: 13},
		{name: "encoded plus delimiter", path: "/v1/table/lnc%2Bns%2Bt1/exists?delimiter=%2B", status: 400, code: 13},
		{name: "space delimiter", path: "/v1/table/lnc%20ns%20t1/exists?delimiter=%20", status: 400, code: 13},
		{name: "multi-byte delimiter", path: "/v1/table/lnc::ns::t1/exists?delimiter=::", status: 200, code: -2},
		{name: "bad limit type in body", path: "/v1/namespace/lnc/list", body: `{"limit":"ten"}`, status: 400, code: 13},
		{name: "bad page token type", path: "/v1/namespace/lnc/list", body: `{"page_token":5}`, status: 400, code: 13},
		{name: "unknown route", method: "GET", path: "/v1/nothing", status: 404, code: 13},
		{name: "unknown namespace op", path: "/v1/namespace/lnc/frobnicate", status: 404, code: 13},
		{name: "unknown table op", path: "/v1/table/lnc$ns$t1/frobnicate", status: 404, code: 13},
		{name: "no id", path: "/v1/table//describe", status: 404, code: 13},
		{name: "not v1", method: "GET", path: "/v2/table", status: 404, code: 13},
		{name: "root path", method: "GET", path: "/", status: 404, code: 13},
		{name: "wrong method", method: "GET", path: "/v1/table/lnc$ns$t1/describe", status: 405, code: 13},
		{name: "wrong method on list all", method: "DELETE", path: "/v1/table", status: 405, code: 13},
		{name: "unknown route without a key", method: "GET", path: "/v1/nothing", key: "none", status: 404, code: 13},
	})

	unsupported := []string{
		"/v1/table/lnc$ns$t1/create", "/v1/table/lnc$ns$t1/insert", "/v1/table/lnc$ns$t1/merge_insert",
		"/v1/table/lnc$ns$t1/update", "/v1/table/lnc$ns$t1/delete", "/v1/table/lnc$ns$t1/query",
		"/v1/table/lnc$ns$t1/explain_plan", "/v1/table/lnc$ns$t1/analyze_plan",
		"/v1/table/lnc$ns$t1/add_columns", "/v1/table/lnc$ns$t1/alter_columns", "/v1/table/lnc$ns$t1/drop_columns",
		// Without a plugin channel and a task service (as here) index
		// builds and drops are unsupported too.
		"/v1/table/lnc$ns$t1/create_index", "/v1/table/lnc$ns$t1/create_scalar_index", "/v1/table/lnc$ns$t1/index/idx/drop",
		"/v1/table/lnc$ns$t1/branches/list",
		"/v1/table/lnc$ns$t1/restore",
		"/v1/table/batch-commit", "/v1/transaction/abc/describe", "/v1/transaction/abc/alter",
	}
	var steps []step
	for _, p := range unsupported {
		steps = append(steps, step{name: "unsupported " + p, path: p, body: `{}`, status: 406, code: 0, want: []string{"metadata only", "SDK"}})
	}
	e.run(t, steps)

	t.Run("10 MB body", func(t *testing.T) {
		big := bytes.Repeat([]byte(" "), 10<<20)
		copy(big, `{"id":["lnc","ns","t1"]}`)
		r := e.do(http.MethodPost, "/v1/table/lnc$ns$t1/describe", e.rw, big)
		if r.status != http.StatusRequestEntityTooLarge {
			t.Fatalf("status = %d, want 413; %s", r.status, r.body)
		}
		if m := r.json(t); m["code"] != float64(13) || !strings.Contains(m["detail"].(string), "bytes") {
			t.Errorf("body = %s", r.body)
		}
	})
	t.Run("10 MB chunked body", func(t *testing.T) {
		req, _ := http.NewRequest(http.MethodPost, e.srv.URL+"/v1/table/lnc$ns$t1/describe", struct{ *bytes.Reader }{bytes.NewReader(bytes.Repeat([]byte(" "), 10<<20))})
		req.Header.Set("x-api-key", e.rw)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusRequestEntityTooLarge {
			t.Fatalf("status = %d, want 413", res.StatusCode)
		}
	})
}
