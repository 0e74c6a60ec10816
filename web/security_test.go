package web

// The security regression suite for the console (issue 15): one test per
// finding, each named after it.

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/icebergrest"
)

// TestSecurity_OpenRedirectAfterSignIn: next=/%09/evil.example used to pass
// the check, and browsers strip the TAB and land on //evil.example.
func TestSecurity_OpenRedirectAfterSignIn(t *testing.T) {
	e := newEnv(t, allSurfaces)
	for _, next := range []string{"/\t/evil.example", "/\n/evil.example", "/\\evil.example", "/ /evil.example", "/%09/evil.example"} {
		t.Run(next, func(t *testing.T) {
			r := e.get(e.anon(), "/login?next="+url.QueryEscape(next))
			if r.status != http.StatusOK {
				t.Fatalf("status %d", r.status)
			}
			got, _ := r.doc.Find(`input[name="next"]`).Attr("value")
			if next == "/%09/evil.example" { // escaped, stays a path on this site
				if got != next {
					t.Fatalf("a same-site path with an escape was dropped: %q", got)
				}
				return
			}
			if got != "" {
				t.Fatalf("next %q kept as %q", next, got)
			}
		})
	}
}

type testClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *testClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *testClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// TestSecurity_SignInThrottled: 140 wrong passwords used to be answered at
// full speed and the right one worked at once after. Now an account is
// locked for a growing time, the page says when to retry, and the right
// password waits for the lock too.
func TestSecurity_SignInThrottled(t *testing.T) {
	clock := &testClock{t: time.Unix(1_800_000_000, 0)}
	e := newEnv(t, allSurfaces, func(c *Config) { c.Now = clock.now })
	const pass = "victim-password-1"
	if _, err := e.store.CreateUser(context.Background(), "victim", pass, catalog.RoleAdmin); err != nil {
		t.Fatal(err)
	}
	try := func(p string) response {
		return e.post(e.anon(), "/login", url.Values{"username": {"victim"}, "password": {p}})
	}
	for i := range 5 {
		if r := try("wrong"); r.status != http.StatusUnauthorized || strings.Contains(r.body, "Try again") {
			t.Fatalf("free failure %d: status %d", i+1, r.status)
		}
	}
	if r := try("wrong"); r.status != http.StatusUnauthorized || !strings.Contains(r.body, "Try again in 2 seconds") {
		t.Fatalf("sixth failure: status %d, body lacks the retry sentence", r.status)
	}
	r := try(pass)
	if r.status != http.StatusTooManyRequests || r.header.Get("Retry-After") != "2" || !strings.Contains(r.body, "Try again in 2 seconds") {
		t.Fatalf("the right password during the lock: status %d Retry-After %q", r.status, r.header.Get("Retry-After"))
	}
	clock.advance(2 * time.Second)
	if r := try("wrong"); !strings.Contains(r.body, "Try again in 4 seconds") {
		t.Fatalf("the lock did not grow: status %d", r.status)
	}
	clock.advance(4 * time.Second)
	if r := try(pass); r.status != http.StatusSeeOther {
		t.Fatalf("the right password after the lock: status %d", r.status)
	}
}

// TestSecurity_SignInThrottledPerClient: spraying many accounts from one
// address locks the address, not only each account.
func TestSecurity_SignInThrottledPerClient(t *testing.T) {
	clock := &testClock{t: time.Unix(1_800_000_000, 0)}
	e := newEnv(t, allSurfaces, func(c *Config) { c.Now = clock.now })
	var last response
	for i := range 21 {
		last = e.post(e.anon(), "/login", url.Values{"username": {"user" + string(rune('a'+i))}, "password": {"guess"}})
	}
	if last.status != http.StatusUnauthorized || !strings.Contains(last.body, "Try again in") {
		t.Fatalf("the 21st failure from one client: status %d, no retry sentence", last.status)
	}
	if r := e.post(e.anon(), "/login", url.Values{"username": {"fresh"}, "password": {"guess"}}); r.status != http.StatusTooManyRequests {
		t.Fatalf("a fresh account from a locked client: status %d, want 429", r.status)
	}
}

// TestSecurity_MetricsOffTheConsole: /metrics was served to anyone on the
// console port.
func TestSecurity_MetricsOffTheConsole(t *testing.T) {
	e := newEnv(t, allSurfaces)
	if r := e.get(e.anon(), "/metrics"); r.status != http.StatusNotFound || strings.Contains(r.body, "go_goroutines") {
		t.Fatalf("/metrics on the console: %d", r.status)
	}
	if r := e.metrics(); r.status != http.StatusOK || !strings.Contains(r.body, `floe_http_requests_total{route="unmatched",status="404",surface="console"} 1`) {
		t.Fatalf("the metrics registry: %d\n%s", r.status, r.body)
	}
}

// TestSecurity_SecureCookieBehindTLSProxy: sessions were Secure only with
// --secure-cookies. A trusted proxy saying https, or TLS itself, now makes
// them Secure; an untrusted client saying https does not.
func TestSecurity_SecureCookieBehindTLSProxy(t *testing.T) {
	proxies, err := ParseTrustedProxies("127.0.0.1, 10.0.0.0/8")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name       string
		proxies    []netip.Prefix
		hdr        map[string]string
		wantSecure bool
	}{
		{"trusted proxy says https", proxies, map[string]string{"X-Forwarded-Proto": "https"}, true},
		{"trusted proxy says http", proxies, map[string]string{"X-Forwarded-Proto": "http"}, false},
		{"untrusted client says https", nil, map[string]string{"X-Forwarded-Proto": "https"}, false},
		{"plain http", nil, nil, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, allSurfaces, func(c *Config) { c.TrustedProxies = tc.proxies })
			r := e.do(e.anon(), "POST", "/login", url.Values{"username": {"admin"}, "password": {adminPass}}, tc.hdr)
			if r.status != http.StatusSeeOther {
				t.Fatalf("login: %d", r.status)
			}
			cookie := r.header.Get("Set-Cookie")
			if !strings.HasPrefix(cookie, sessionCookieName+"=") {
				t.Fatalf("no session cookie: %q", cookie)
			}
			if got := strings.Contains(cookie, "; Secure"); got != tc.wantSecure {
				t.Fatalf("Secure = %v, want %v: %q", got, tc.wantSecure, cookie)
			}
		})
	}
}

// TestSecurity_SecurityHeaders: every console response carries
// Referrer-Policy, X-Content-Type-Options and CSP frame-ancestors 'none'.
func TestSecurity_SecurityHeaders(t *testing.T) {
	e := newEnv(t, allSurfaces)
	for _, path := range []string{"/login", "/nope", "/static/css/app.css", "/healthz"} {
		r := e.get(e.anon(), path)
		h := r.header
		if h.Get("Referrer-Policy") == "" || h.Get("X-Content-Type-Options") != "nosniff" || !strings.Contains(h.Get("Content-Security-Policy"), "frame-ancestors 'none'") {
			t.Errorf("%s: headers %v", path, h)
		}
	}
}

// TestSecurity_HugeSchemaPanelBounded: a table page rendered every field of
// its schema (86 MB of HTML for a hostile one). A legal but huge schema now
// shows the first rows with a note.
func TestSecurity_HugeSchemaPanelBounded(t *testing.T) {
	e := newEnv(t, allSurfaces)
	e.seed("lake", catalog.FormatIceberg, "raw")
	rs := icebergrest.New(icebergrest.Config{Store: e.store, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Anonymous: true})
	const n = 1200
	var b strings.Builder
	b.WriteString(`{"name":"wide","schema":{"type":"struct","fields":[`)
	for i := 1; i <= n; i++ {
		if i > 1 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"id":%d,"name":"c%d","required":false,"type":"long"}`, i, i)
	}
	b.WriteString(`]}}`)
	rec := httptest.NewRecorder()
	rs.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/v1/lake/namespaces/raw/tables", strings.NewReader(b.String())))
	if rec.Code != 200 {
		t.Fatalf("REST create: %d %s", rec.Code, rec.Body)
	}
	page := e.get(e.admin(), "/buckets/lake/namespaces/raw/tables/wide")
	if page.status != 200 {
		t.Fatalf("table page %d", page.status)
	}
	rows := page.doc.Find(`[data-testid="iceberg-column"]`).Length()
	if rows == 0 || rows >= n {
		t.Fatalf("%d schema rows rendered for a %d-field schema", rows, n)
	}
	note := page.text("iceberg-schema-truncated")
	if !strings.Contains(note, fmt.Sprintf("of %d fields", n)) {
		t.Fatalf("no truncation note: %q", note)
	}
}
