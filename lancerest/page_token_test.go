package lancerest

import (
	"net/http"
	"strings"
	"testing"
)

// TestIssue23Item7PageTokensNotIssuedRefused: ListTables and
// ListNamespaces took page_token as the name to start after, so zzzz, %00
// and 100 KB of A answered 200 (a listing started somewhere, or over).
// Every listing refuses a token it did not issue with a 400 (code 13), in
// the query and in a POST body alike.
func TestIssue23Item7PageTokensNotIssuedRefused(t *testing.T) {
	e := newTestEnv(t, false)
	e.seed()
	junk := []string{"zzzz", "%00", strings.Repeat("A", 100_000), "p1.%21%21", "p1.YQE" /* "a\x01": no name of ours */, "p1."}
	for _, path := range []string{"/v1/namespace/lnc$ns/table/list", "/v1/namespace/lnc/list", "/v1/namespace/%24/list"} {
		for _, tok := range junk {
			r := e.do("GET", path+"?page_token="+tok, e.rw, nil)
			if r.status != http.StatusBadRequest || !strings.Contains(string(r.body), `"code":13`) {
				t.Errorf("GET %s page_token %.20q: %d %.200s", path, tok, r.status, r.body)
			}
		}
	}
	r := e.do("POST", "/v1/namespace/lnc$ns/table/list", e.rw, []byte(`{"page_token":"zzzz"}`))
	if r.status != http.StatusBadRequest {
		t.Errorf("POST body page_token zzzz: %d %s", r.status, r.body)
	}
}
