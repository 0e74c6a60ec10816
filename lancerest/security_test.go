package lancerest

// The security regression suite for the Lance Namespace REST (issue 15).

import (
	"net/http"
	"strings"
	"testing"
)

// TestSecurity_DuplicateJSONKeyRefused: a body naming a key twice silently
// took the last value.
func TestSecurity_DuplicateJSONKeyRefused(t *testing.T) {
	e := newTestEnv(t, false)
	e.seed()
	tests := []struct{ name, path, body string }{
		{"create namespace", "/v1/namespace/lnc$dup/create", `{"id":["lnc","dup"],"id":["lnc","other"]}`},
		{"nested properties", "/v1/namespace/lnc$dup/create", `{"properties":{"owner":"a","owner":"b"}}`},
		{"list", "/v1/namespace/lnc/list", `{"limit":1,"limit":2}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := e.do("POST", tc.path, e.rw, []byte(tc.body))
			if r.status != http.StatusBadRequest || !strings.Contains(string(r.body), "appears twice") {
				t.Fatalf("%d %s", r.status, r.body)
			}
		})
	}
}

// TestSecurity_JunkPageTokenRefused: a base64 token that decodes to nothing
// we issued ("e30" is {}) silently restarted the listing.
func TestSecurity_JunkPageTokenRefused(t *testing.T) {
	e := newTestEnv(t, false)
	e.seed()
	for _, tok := range []string{"e30", "eyJ4IjoxfQ", "!!!", "eyJiIjoibG5jIn0"} {
		r := e.do("GET", "/v1/table?page_token="+tok, e.rw, nil)
		if r.status != http.StatusBadRequest {
			t.Errorf("page_token %q: %d %s", tok, r.status, r.body)
		}
	}
}
