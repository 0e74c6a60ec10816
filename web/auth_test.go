package web

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

func TestLogin(t *testing.T) {
	e := newEnv(t, allSurfaces)

	t.Run("anonymous page redirects to login and back", func(t *testing.T) {
		r := e.get(e.anon(), "/connect?bucket=x")
		if r.status != http.StatusSeeOther || r.header.Get("Location") != "/login?next=%2Fconnect%3Fbucket%3Dx" {
			t.Fatalf("status %d location %q", r.status, r.header.Get("Location"))
		}
		login := e.get(e.anon(), r.header.Get("Location"))
		if v := login.doc.Find(`input[name="next"]`).AttrOr("value", ""); v != "/connect?bucket=x" {
			t.Fatalf("login form next %q", v)
		}
		c := e.anon()
		done := e.post(c, "/login", url.Values{"username": {"reader"}, "password": {readonlyPass}, "next": {"/connect?bucket=x"}})
		if done.status != http.StatusSeeOther || done.header.Get("Location") != "/connect?bucket=x" {
			t.Fatalf("after login: %d %q", done.status, done.header.Get("Location"))
		}
		if r := e.get(c, "/connect"); r.text("current-role") != "readonly" {
			t.Fatalf("readonly login shows role %q", r.text("current-role"))
		}
	})
	t.Run("anonymous htmx request gets HX-Redirect", func(t *testing.T) {
		r := e.do(e.anon(), "GET", "/fragments/endpoint-hint?name=abc", nil, map[string]string{"HX-Request": "true"})
		if r.status != http.StatusUnauthorized || !strings.HasPrefix(r.header.Get("HX-Redirect"), "/login") {
			t.Fatalf("status %d HX-Redirect %q", r.status, r.header.Get("HX-Redirect"))
		}
	})
	t.Run("login page renders the form", func(t *testing.T) {
		r := e.get(e.anon(), "/login")
		if r.status != 200 || !r.has("login-form") || r.doc.Find(`input[name="username"]`).Length() != 1 || r.doc.Find(`input[name="password"]`).Length() != 1 {
			t.Fatalf("status %d, login form missing", r.status)
		}
	})
	t.Run("wrong password", func(t *testing.T) {
		for _, f := range []url.Values{
			{"username": {"admin"}, "password": {"nope-nope-nope"}},
			{"username": {"ghost"}, "password": {adminPass}},
			{"username": {""}, "password": {""}},
		} {
			r := e.post(e.anon(), "/login", f)
			if r.status != http.StatusUnauthorized || !strings.Contains(r.text("login-error"), "Wrong username or password") {
				t.Fatalf("%v: status %d error %q", f, r.status, r.text("login-error"))
			}
			if strings.Contains(r.header.Get("Set-Cookie"), "floe_session=") && !strings.Contains(r.header.Get("Set-Cookie"), "Max-Age=0") {
				// scs only writes a cookie for a modified session; a refusal must not start one.
				t.Fatalf("refused login set a session cookie: %s", r.header.Get("Set-Cookie"))
			}
		}
	})
	t.Run("success sets a hardened cookie and renews the token", func(t *testing.T) {
		c := e.anon()
		pre := e.get(c, "/login") // may or may not create a session
		_ = pre
		// An off-site next is ignored: sign-in never bounces users elsewhere.
		r := e.post(c, "/login", url.Values{"username": {"admin"}, "password": {adminPass}, "next": {"//evil.example/x"}})
		if r.status != http.StatusSeeOther || r.header.Get("Location") != "/buckets" {
			t.Fatalf("status %d location %q", r.status, r.header.Get("Location"))
		}
		ck := r.header.Get("Set-Cookie")
		for _, want := range []string{"floe_session=", "HttpOnly", "SameSite=Lax"} {
			if !strings.Contains(ck, want) {
				t.Errorf("cookie %q lacks %s", ck, want)
			}
		}
		if strings.Contains(ck, "Secure") {
			t.Errorf("cookie is Secure although SecureCookies is false: %q", ck)
		}
		page := e.get(c, "/buckets")
		if page.status != 200 || page.text("current-user") != "admin" || page.text("current-role") != "admin" {
			t.Fatalf("after login: status %d user %q", page.status, page.text("current-user"))
		}
		if r := e.post(c, "/logout", url.Values{}); r.status != http.StatusSeeOther || r.header.Get("Location") != "/login" {
			t.Fatalf("logout: %d %q", r.status, r.header.Get("Location"))
		}
		if r := e.get(c, "/buckets"); r.status != http.StatusSeeOther {
			t.Fatalf("after logout /buckets gave %d, want a redirect to login", r.status)
		}
	})
}

func TestReadonlyUser(t *testing.T) {
	e := newEnv(t, allSurfaces)
	e.seed("shelf", "LANCE", "ns", "t1")
	c := e.reader()

	pages := []struct {
		path     string
		absentID []string
	}{
		{"/buckets", []string{"open-create-bucket", "create-bucket-form"}},
		{"/buckets/shelf", []string{"create-namespace-form", "delete-bucket-form"}},
		{"/buckets/shelf/namespaces/ns", []string{"declare-table-form", "delete-namespace-form"}},
		{"/buckets/shelf/namespaces/ns/tables/t1", []string{"drop-table-form", "deregister-table-form"}},
		{"/api-keys", []string{"create-key-form", "revoke-key-form"}},
	}
	for _, p := range pages {
		t.Run("no write controls on "+p.path, func(t *testing.T) {
			r := e.get(c, p.path)
			if r.status != 200 {
				t.Fatalf("status %d", r.status)
			}
			if r.text("current-role") != "readonly" {
				t.Fatalf("role shown %q", r.text("current-role"))
			}
			for _, id := range p.absentID {
				if r.has(id) {
					t.Errorf("readonly user sees %s", id)
				}
			}
		})
	}
	forged := []struct {
		path string
		form url.Values
	}{
		{"/buckets", url.Values{"name": {"forged"}, "format": {"LANCE"}}},
		{"/buckets/shelf/delete", url.Values{"cascade": {"true"}}},
		{"/buckets/shelf/namespaces", url.Values{"namespace": {"x"}}},
		{"/buckets/shelf/namespaces/ns/delete", url.Values{"cascade": {"true"}}},
		{"/buckets/shelf/namespaces/ns/tables", url.Values{"name": {"t2"}}},
		{"/buckets/shelf/namespaces/ns/tables/t1/drop", url.Values{"confirm": {"t1"}}},
		{"/buckets/shelf/namespaces/ns/tables/t1/deregister", url.Values{}},
		{"/api-keys", url.Values{"name": {"k"}, "role": {"readwrite"}}},
		{"/api-keys/k_x/revoke", url.Values{}},
	}
	for _, f := range forged {
		t.Run("forged POST "+f.path, func(t *testing.T) {
			r := e.post(c, f.path, f.form)
			if r.status != http.StatusForbidden || !strings.Contains(r.body, "read-only") {
				t.Fatalf("status %d, want 403 with a read-only message", r.status)
			}
		})
	}
	if _, err := e.table("shelf", "ns", "t1"); err != nil {
		t.Fatalf("table gone after refused writes: %v", err)
	}
	if r := e.post(c, "/logout", url.Values{}); r.status != http.StatusSeeOther {
		t.Fatalf("readonly logout: %d", r.status)
	}
}

func TestCrossOriginRefused(t *testing.T) {
	e := newEnv(t, allSurfaces)
	c := e.admin()
	form := url.Values{"name": {"evil-bucket"}, "format": {"LANCE"}}
	cases := []struct {
		name   string
		hdr    map[string]string
		status int
	}{
		{"sec-fetch-site cross-site", map[string]string{"Sec-Fetch-Site": "cross-site"}, http.StatusForbidden},
		{"origin mismatch", map[string]string{"Origin": "http://evil.example"}, http.StatusForbidden},
		{"same origin passes", map[string]string{"Sec-Fetch-Site": "same-origin", "Origin": e.srv.URL}, http.StatusSeeOther},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := e.do(c, "POST", "/buckets", form, tc.hdr)
			if r.status != tc.status {
				t.Fatalf("status %d, want %d: %s", r.status, tc.status, r.body)
			}
			if tc.status == http.StatusForbidden && !r.has("error-page") {
				t.Fatal("refusal is not the console's error page")
			}
		})
	}
	// The login form is protected too: a cross-site login could plant a session.
	r := e.do(e.anon(), "POST", "/login", url.Values{"username": {"admin"}, "password": {adminPass}}, map[string]string{"Sec-Fetch-Site": "cross-site"})
	if r.status != http.StatusForbidden {
		t.Fatalf("cross-site login: %d", r.status)
	}
}

func TestSecurityHeadersAndProbes(t *testing.T) {
	e := newEnv(t, allSurfaces)
	c := e.admin()
	for _, p := range []string{"/login", "/buckets", "/healthz", "/static/css/app.css", "/nope"} {
		t.Run(p, func(t *testing.T) {
			r := e.get(c, p)
			want := map[string]string{
				"Content-Security-Policy": contentSecurityPolicy,
				"X-Content-Type-Options":  "nosniff",
				"Referrer-Policy":         "same-origin",
				"X-Frame-Options":         "DENY",
			}
			for k, v := range want {
				if got := r.header.Get(k); got != v {
					t.Errorf("%s = %q, want %q", k, got, v)
				}
			}
			if r.header.Get("X-Request-Id") == "" {
				t.Error("no X-Request-Id")
			}
		})
	}
	if !strings.Contains(contentSecurityPolicy, "script-src 'self';") || strings.Contains(contentSecurityPolicy, "unsafe") {
		t.Fatal("CSP is not strict")
	}
	if r := e.get(c, "/healthz"); r.status != 200 {
		t.Fatalf("healthz %d", r.status)
	}
	if r := e.get(c, "/readyz"); r.status != 200 {
		t.Fatalf("readyz %d", r.status)
	}
	if r := e.get(c, "/metrics"); r.status != http.StatusNotFound {
		t.Fatalf("/metrics on the console address: %d, want 404 (it has its own listener)", r.status)
	}
	m := e.metrics()
	if m.status != 200 || !strings.Contains(m.body, `floe_http_requests_total{route="GET /buckets",status="200",surface="console"}`) ||
		!strings.Contains(m.body, `floe_http_request_duration_seconds_bucket{route="GET /buckets",surface="console",`) {
		t.Fatalf("metrics lack the request series:\n%s", m.body[:min(len(m.body), 2000)])
	}
	if r := e.get(c, "/buckets/x/delete"); r.status != http.StatusMethodNotAllowed || !r.has("error-page") {
		t.Fatalf("GET on a form action: %d", r.status)
	}
	if r := e.get(c, "/nope"); r.status != 404 || !r.has("error-page") {
		t.Fatalf("unknown path: %d", r.status)
	}
	big := url.Values{"name": {strings.Repeat("a", maxBodyBytes+1)}, "format": {"LANCE"}}
	if r := e.post(c, "/buckets", big); r.status != http.StatusRequestEntityTooLarge {
		t.Fatalf("oversized body: %d", r.status)
	}
}
