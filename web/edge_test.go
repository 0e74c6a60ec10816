package web

import (
	"bytes"
	"compress/gzip"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/handlers"
	"github.com/floe/floe/static"
)

// The console behind the edge (issue 21): the client's request id, the
// console's own pages for the edge's refusals, and a panic that costs one
// request, not the process.

func TestEdgeRequestIDEchoedAndLogged(t *testing.T) {
	var out syncBuffer
	e := newEnv(t, allSurfaces, func(c *Config) {
		c.Logger = slog.New(slog.NewTextHandler(&out, nil))
	})
	for _, tc := range []struct {
		name string
		c    *http.Client
		path string
	}{
		{"signed-in page", e.admin(), "/buckets"},
		{"sign-in page", e.anon(), "/login"},
		{"redirect to sign-in", e.anon(), "/buckets"},
		{"unknown page", e.admin(), "/nope"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			id := "trace-" + strings.ReplaceAll(tc.name, " ", "-")
			r := e.do(tc.c, "GET", tc.path, nil, map[string]string{"X-Request-Id": id})
			if got := r.header.Get("X-Request-Id"); got != id {
				t.Fatalf("X-Request-Id = %q, want the client's %q", got, id)
			}
			if !strings.Contains(out.String(), "request_id="+id) {
				t.Fatalf("the access log lacks request_id=%s:\n%s", id, out.String())
			}
		})
	}
	if !strings.Contains(out.String(), `route="GET /buckets" path=/buckets status=200`) || !strings.Contains(out.String(), "principal=user:admin") {
		t.Fatalf("the access log lacks the route pattern or the signed-in principal:\n%s", out.String())
	}
}

func TestEdgeUnknownPageIsTheConsoles404(t *testing.T) {
	e := newEnv(t, allSurfaces)
	for _, tc := range []struct {
		name     string
		c        *http.Client
		path     string
		wantUser string
	}{
		{"signed in", e.admin(), "/no/such/page", "admin"},
		{"anonymous", e.anon(), "/no/such/page", ""},
		{"under a bucket", e.admin(), "/buckets/x/nothing-here", "admin"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := e.get(tc.c, tc.path)
			if r.status != http.StatusNotFound || !r.has("error-page") || !strings.Contains(r.text("error-message"), "no console page") {
				t.Fatalf("status %d, body %.300s", r.status, r.body)
			}
			if got := r.text("current-user"); got != tc.wantUser {
				t.Fatalf("layout shows user %q, want %q", got, tc.wantUser)
			}
		})
	}
	r := e.do(e.admin(), "GET", "/no/such/fragment", nil, map[string]string{"HX-Request": "true"})
	if r.status != http.StatusNotFound || r.has("error-page") || !strings.Contains(r.body, "no console page") {
		t.Fatalf("htmx 404: status %d, want the fragment: %.300s", r.status, r.body)
	}
}

func TestEdgeWrongMethodIs405WithAllow(t *testing.T) {
	e := newEnv(t, allSurfaces)
	for _, tc := range []struct{ method, path, allow string }{
		{"GET", "/buckets/x/delete", "POST"},
		{"DELETE", "/buckets", "GET, HEAD, POST"},
		{"PUT", "/login", "GET, HEAD, POST"},
	} {
		t.Run(tc.method+" "+tc.path, func(t *testing.T) {
			r := e.do(e.admin(), tc.method, tc.path, nil, nil)
			if r.status != http.StatusMethodNotAllowed || !r.has("error-page") {
				t.Fatalf("status %d: %.300s", r.status, r.body)
			}
			if got := r.header.Get("Allow"); got != tc.allow {
				t.Fatalf("Allow = %q, want %q", got, tc.allow)
			}
		})
	}
}

func TestEdgeOversizedFormIs413Page(t *testing.T) {
	e := newEnv(t, allSurfaces)
	e.seed("lake", catalog.FormatIceberg, "raw")
	big := url.Values{"name": {strings.Repeat("a", maxBodyBytes+1)}, "format": {"LANCE"}}.Encode()
	t.Run("declared length", func(t *testing.T) {
		r := e.post(e.admin(), "/buckets", url.Values{"name": {strings.Repeat("a", maxBodyBytes+1)}})
		if r.status != http.StatusRequestEntityTooLarge || !r.has("error-page") || !strings.Contains(r.text("error-message"), "64 KiB") {
			t.Fatalf("status %d: %.300s", r.status, r.body)
		}
		if r.header.Get("Content-Security-Policy") != contentSecurityPolicy {
			t.Fatal("the edge's own page lacks the security headers")
		}
	})
	t.Run("chunked, found while reading", func(t *testing.T) {
		req, err := http.NewRequest("POST", e.srv.URL+"/buckets/lake/namespaces/raw/create-table", io.MultiReader(strings.NewReader(big)))
		if err != nil {
			t.Fatal(err)
		}
		req.ContentLength = -1
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		resp, err := e.admin().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		doc, err := goquery.NewDocumentFromReader(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode != http.StatusRequestEntityTooLarge || doc.Find(`[data-testid="error-page"]`).Length() != 1 {
			t.Fatalf("status %d", resp.StatusCode)
		}
	})
	if tables, _, err := e.store.ListTables(t.Context(), "lake", []string{"raw"}, catalog.ListTablesOptions{}); err != nil || len(tables) != 0 {
		t.Fatalf("an oversized form created tables: %v %v", tables, err)
	}
}

func TestEdgePanicIs500PageAndTheNextRequestIsServed(t *testing.T) {
	var out syncBuffer
	e := newEnv(t, allSurfaces, func(c *Config) {
		c.Logger = slog.New(slog.NewTextHandler(&out, nil))
	})
	e.server.surface.HandleFunc("GET /test/panic", func(http.ResponseWriter, *http.Request) { panic("secret internal detail") })
	c := e.admin()
	r := e.do(c, "GET", "/test/panic", nil, map[string]string{"X-Request-Id": "panic-42"})
	if r.status != http.StatusInternalServerError || !r.has("error-page") {
		t.Fatalf("status %d: %.300s", r.status, r.body)
	}
	if msg := r.text("error-message"); !strings.Contains(msg, "panic-42") || !strings.HasSuffix(msg, ".") {
		t.Fatalf("the 500 page does not say a sentence with the request id: %q", msg)
	}
	if strings.Contains(r.body, "secret internal detail") {
		t.Fatal("the panic's value reached the browser")
	}
	if !strings.Contains(out.String(), "handler panicked") || !strings.Contains(out.String(), "request_id=panic-42") {
		t.Fatalf("the panic is not in the log with its request id:\n%s", out.String())
	}
	if r := e.get(c, "/buckets"); r.status != http.StatusOK || r.text("current-user") != "admin" {
		t.Fatalf("the request after the panic: %d", r.status)
	}
}

func TestEdgeSessionIsThePrincipal(t *testing.T) {
	e := newEnv(t, allSurfaces)
	ran := 0
	e.server.surface.HandleFunc("GET /test/whoami", func(w http.ResponseWriter, r *http.Request) {
		ran++
		u, _ := handlers.UserFrom(r.Context())
		io.WriteString(w, u.Name+" "+string(u.Role))
	})
	if r := e.get(e.anon(), "/test/whoami"); r.status != http.StatusSeeOther || r.header.Get("Location") != "/login?next=%2Ftest%2Fwhoami" {
		t.Fatalf("anonymous: %d %q", r.status, r.header.Get("Location"))
	}
	if ran != 0 {
		t.Fatal("the handler ran for an anonymous request")
	}
	if r := e.get(e.reader(), "/test/whoami"); r.status != http.StatusOK || r.body != "reader readonly" {
		t.Fatalf("signed in: %d %q", r.status, r.body)
	}
	r := e.post(e.reader(), "/buckets", url.Values{"name": {"nope"}})
	if h := strings.TrimSpace(r.doc.Find(`[data-testid="error-page"] h1`).Text()); r.status != http.StatusForbidden || h != "Read-only access" {
		t.Fatalf("read-only write: %d %q", r.status, h)
	}
}

// TestEdgeFaviconServed: GET /favicon.ico answered 404 with an HTML body.
func TestEdgeFaviconServed(t *testing.T) {
	e := newEnv(t, allSurfaces)
	r := e.get(e.anon(), "/favicon.ico")
	want, _ := static.FS.ReadFile("favicon.svg")
	if r.status != http.StatusOK || r.header.Get("Content-Type") != "image/svg+xml" || r.body != string(want) {
		t.Fatalf("status %d type %q body %.80q", r.status, r.header.Get("Content-Type"), r.body)
	}
	if r.header.Get("Set-Cookie") != "" {
		t.Fatal("the icon started a session")
	}
}

// The edge's own pages go through compression like any page: it sits
// outside the edge.
func TestEdgePagesCompressed(t *testing.T) {
	e := newEnv(t, allSurfaces)
	req, err := http.NewRequest("GET", e.srv.URL+"/nope", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept-Encoding", "gzip")
	resp, err := e.admin().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound || resp.Header.Get("Content-Encoding") != "gzip" {
		t.Fatalf("404 page: %d, Content-Encoding %q", resp.StatusCode, resp.Header.Get("Content-Encoding"))
	}
	zr, err := gzip.NewReader(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	plain, err := io.ReadAll(zr)
	if err != nil || !bytes.Contains(plain, []byte(`data-testid="error-page"`)) {
		t.Fatalf("the gzipped 404 is not the console's page: %v %.200s", err, plain)
	}
}

// TestEdgeSessionStoreDownIs503Page: a session the store cannot load was
// answered with a plain-text 503; now it is the console's page, with the
// cause in the log only.
func TestEdgeSessionStoreDownIs503Page(t *testing.T) {
	var out syncBuffer
	e := newEnv(t, allSurfaces, func(c *Config) {
		c.Logger = slog.New(slog.NewTextHandler(&out, nil))
	})
	c := e.admin()
	if err := e.db.Close(); err != nil {
		t.Fatal(err)
	}
	r := e.do(c, "GET", "/buckets", nil, map[string]string{"X-Request-Id": "store-down-1"})
	if r.status != http.StatusServiceUnavailable || !r.has("error-page") || !strings.Contains(r.text("error-message"), "catalog database cannot be reached") {
		t.Fatalf("status %d: %.400s", r.status, r.body)
	}
	if strings.Contains(r.body, "sql:") || strings.Contains(r.body, "closed") {
		t.Fatalf("the page names the internal cause: %s", r.text("error-message"))
	}
	if !strings.Contains(out.String(), "database is closed") || !strings.Contains(out.String(), "request_id=store-down-1") {
		t.Fatalf("the cause is not logged with the request id:\n%s", out.String())
	}
}
