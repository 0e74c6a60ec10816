package static

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// The vendored htmx must stay on 2.x: htmx 4 renames config keys and events the
// console relies on. This test fails when someone re-vendors another version.
func TestVendoredHTMXVersion(t *testing.T) {
	b, err := FS.ReadFile("vendor/htmx.min.js")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `version:"2.0.11"`) {
		t.Fatalf("static/vendor/htmx.min.js is not htmx 2.0.11; re-vendor from node_modules/htmx.org (pinned in package.json)")
	}
	ws, err := FS.ReadFile("vendor/ws.min.js")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(ws), `defineExtension("ws"`) {
		t.Fatal("static/vendor/ws.min.js is not the htmx ws extension")
	}
}

func TestHandlerCaching(t *testing.T) {
	srv := httptest.NewServer(Handler())
	t.Cleanup(srv.Close)
	tests := []struct {
		name      string
		url       string
		status    int
		cache     string
		wantBytes string
	}{
		{"hashed url is immutable", URL("css/app.css"), 200, "public, max-age=31536000, immutable", "--"},
		{"wrong hash revalidates", "/static/css/app.css?v=nope", 200, "no-cache", "--"},
		{"js served", URL("js/app.js"), 200, "public, max-age=31536000, immutable", "copy"},
		{"favicon served", URL("favicon.svg"), 200, "public, max-age=31536000, immutable", "<svg"},
		{"missing file", "/static/css/none.css", 404, "", ""},
		{"no directory listing", "/static/css/", 404, "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			resp, err := http.Get(srv.URL + tc.url)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != tc.status {
				t.Fatalf("status %d, want %d", resp.StatusCode, tc.status)
			}
			if tc.cache != "" && resp.Header.Get("Cache-Control") != tc.cache {
				t.Fatalf("Cache-Control %q, want %q", resp.Header.Get("Cache-Control"), tc.cache)
			}
			if !strings.Contains(string(b), tc.wantBytes) {
				t.Fatalf("body lacks %q", tc.wantBytes)
			}
		})
	}
	if URL("css/app.css") == "/static/css/app.css" {
		t.Fatal("URL did not add a content hash")
	}
}
