package web

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/floe/floe/catalog"
)

// TestCompressHTML: pages are gzipped for clients that ask (with Vary),
// left alone for those that do not, static files are never touched, and the
// /live websocket still upgrades when the browser offers gzip.
func TestCompressHTML(t *testing.T) {
	e := newLiveEnv(t)
	names := make([]string, 200)
	for i := range names {
		names[i] = fmt.Sprintf("table_%03d", i)
	}
	e.seed("vec", catalog.FormatLance, "prod", names...)
	c := e.admin()
	const tablesPage = "/buckets/vec/namespaces/prod"
	fetch := func(path, enc string) (*http.Response, []byte) {
		t.Helper()
		req, err := http.NewRequest("GET", e.srv.URL+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		// Set by hand, the header stops the transport from decompressing.
		req.Header.Set("Accept-Encoding", enc)
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return resp, b
	}
	cases := []struct {
		name, path, enc string
		gzipped         bool
	}{
		{"page, gzip accepted", tablesPage, "gzip, deflate, br", true},
		{"page, identity only", tablesPage, "identity", false},
		{"htmx fragment", "/fragments/endpoint-hint", "gzip", true},
		{"static CSS", "/static/css/app.css", "gzip", false},
		{"static SVG", "/static/favicon.svg", "gzip", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			resp, body := fetch(tc.path, tc.enc)
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("status %d", resp.StatusCode)
			}
			got := resp.Header.Get("Content-Encoding") == "gzip"
			if got != tc.gzipped {
				t.Fatalf("Content-Encoding %q, want gzipped=%v", resp.Header.Get("Content-Encoding"), tc.gzipped)
			}
			if !tc.gzipped {
				return
			}
			if !strings.Contains(strings.Join(resp.Header.Values("Vary"), ","), "Accept-Encoding") {
				t.Errorf("Vary = %q, want Accept-Encoding", resp.Header.Values("Vary"))
			}
			zr, err := gzip.NewReader(bytes.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			plain, err := io.ReadAll(zr)
			if err != nil {
				t.Fatalf("body does not gunzip: %v", err)
			}
			if tc.path == tablesPage {
				_, identity := fetch(tablesPage, "identity")
				if !bytes.Contains(plain, []byte("table_000")) || len(plain) != len(identity) {
					t.Fatalf("gunzipped page is %d bytes, the identity one %d; want the same page", len(plain), len(identity))
				}
				// The figure for the README: the tables page of 200 tables.
				t.Logf("tables page (first page of 200 tables): %d bytes, %d gzipped (%.1f×)", len(plain), len(body), float64(len(plain))/float64(len(body)))
			}
		})
	}
	t.Run("live websocket with gzip offered", func(t *testing.T) {
		h := e.browser(catalog.RoleAdmin)
		h.Set("Accept-Encoding", "gzip")
		ws, resp, err := e.dial("jobs=x", h)
		if err != nil {
			t.Fatalf("upgrade: %v (%v)", err, resp)
		}
		ws.Close()
	})
}

func TestAcceptsGzip(t *testing.T) {
	for _, tc := range []struct {
		header []string
		want   bool
	}{
		{nil, false},
		{[]string{"gzip"}, true},
		{[]string{"deflate, GZIP;q=0.5"}, true},
		{[]string{"br", "gzip"}, true},
		{[]string{"*"}, true},
		{[]string{"gzip;q=0"}, false},
		{[]string{"gzip; q=0.000"}, false},
		{[]string{"identity"}, false},
		{[]string{"x-gzip-like"}, false},
		{[]string{"gzip;q=0, *"}, false},
		{[]string{"*;q=0"}, false},
	} {
		if got := acceptsGzip(tc.header); got != tc.want {
			t.Errorf("acceptsGzip(%q) = %v, want %v", tc.header, got, tc.want)
		}
	}
}
