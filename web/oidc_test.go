package web

import (
	"context"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/internal/idptest"
	"github.com/floe/floe/oidc"
)

// lateSSO lets a test build the provider once the console's address (its
// redirect URL) is known; it is set before the first request.
type lateSSO struct{ *oidc.Provider }

// oidcEnv is a console whose "Sign in with …" goes to a real provider.
type oidcEnv struct {
	*env
	idp *idptest.Provider
}

func newOIDCEnv(t *testing.T) *oidcEnv {
	t.Helper()
	idp := idptest.Start(t)
	sso := &lateSSO{}
	e := newEnv(t, allSurfaces, func(c *Config) { c.SSO = sso })
	redirect := e.srv.URL + "/login/oidc/callback"
	idp.WebClient(t, "floe-console", "console-secret-1", redirect)
	p, err := oidc.New(oidc.Config{Issuer: idp.Issuer, ClientID: "floe-console", ClientSecret: "console-secret-1", RedirectURL: redirect,
		Label: "Test IdP", Rights: oidc.Rights{AdminGroup: "platform", ReadonlyGroup: "analysts"}})
	if err != nil {
		t.Fatal(err)
	}
	sso.Provider = p
	idp.AddUser(idptest.User{Subject: "ada", Password: "ada-password", Email: "ada@example.test", Groups: []string{"analysts"}})
	idp.AddUser(idptest.User{Subject: "root", Password: "root-password", Groups: []string{"platform"}})
	idp.AddUser(idptest.User{Subject: "mallory", Password: "mallory-password", Groups: []string{"marketing"}})
	return &oidcEnv{env: e, idp: idp}
}

// browser follows redirects across the console and the provider like a
// browser does, keeping cookies; stop, when set, halts at a URL it
// matches and records it.
type browser struct {
	c       *http.Client
	stopped *url.URL
}

func newBrowser(stop func(*url.URL) bool) *browser {
	jar, _ := cookiejar.New(nil)
	b := &browser{}
	b.c = &http.Client{Jar: jar, Timeout: 30 * time.Second, CheckRedirect: func(r *http.Request, _ []*http.Request) error {
		if stop != nil && stop(r.URL) {
			b.stopped = r.URL
			return http.ErrUseLastResponse
		}
		return nil
	}}
	return b
}

func atCallback(u *url.URL) bool { return u.Path == "/login/oidc/callback" }

func (b *browser) get(t *testing.T, u string) response {
	t.Helper()
	resp, err := b.c.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	return readResponse(t, resp)
}

func readResponse(t *testing.T, resp *http.Response) response {
	t.Helper()
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(string(body)))
	if err != nil {
		t.Fatal(err)
	}
	doc.Url = resp.Request.URL // where the redirects ended
	return response{status: resp.StatusCode, header: resp.Header, body: string(body), doc: doc}
}

// signInAtIdP starts the console's sign-in, types user and password into
// the provider's form and follows what comes back; the last response.
func (e *oidcEnv) signInAtIdP(t *testing.T, b *browser, next, user, password string) response {
	t.Helper()
	start := e.srv.URL + "/login/oidc"
	if next != "" {
		start += "?next=" + url.QueryEscape(next)
	}
	form := b.get(t, start)
	if !form.has("idp-login") {
		t.Fatalf("the provider's sign-in form did not show: %d %s", form.status, form.body)
	}
	challenge, _ := form.doc.Find(`input[name="challenge"]`).Attr("value")
	action := form.doc.Url.ResolveReference(&url.URL{Path: "/login"})
	resp, err := b.c.PostForm(action.String(), url.Values{"challenge": {challenge}, "username": {user}, "password": {password}})
	if err != nil {
		t.Fatal(err)
	}
	return readResponse(t, resp)
}

func TestOIDCSignIn(t *testing.T) {
	e := newOIDCEnv(t)

	t.Run("the sign-in page offers the provider", func(t *testing.T) {
		r := e.get(e.anon(), "/login?next=/buckets/bkt1")
		href, _ := r.doc.Find(`[data-testid="login-sso"]`).Attr("href")
		if r.text("login-sso") != "Sign in with Test IdP" || href != "/login/oidc?next=%2Fbuckets%2Fbkt1" || !r.has("login-form") {
			t.Fatalf("login page: button %q to %q, password form %v", r.text("login-sso"), href, r.has("login-form"))
		}
	})
	t.Run("a reader appears with its groups and reaches where it was going", func(t *testing.T) {
		e.seed("bkt1", catalog.FormatLance, "")
		b := newBrowser(nil)
		r := e.signInAtIdP(t, b, "/buckets/bkt1", "ada", "ada-password")
		if r.status != http.StatusOK || r.doc.Url.Path != "/buckets/bkt1" || r.text("current-user") != "ada" || r.text("current-groups") != "analysts" || r.text("current-role") != "readonly" {
			t.Fatalf("after sign-in: %d at %s, user %q groups %q role %q\n%s", r.status, r.doc.Url, r.text("current-user"), r.text("current-groups"), r.text("current-role"), r.body)
		}
		u, err := e.store.GetUser(context.Background(), "ada")
		if err != nil || !u.FromIdP() || u.Issuer != e.idp.Issuer || u.Subject != "ada" || strings.Join(u.Groups, ",") != "analysts" || u.Role != catalog.RoleReadonly {
			t.Fatalf("user row %+v, %v", u, err)
		}
		if r := b.get(t, e.srv.URL+"/buckets"); r.has("open-create-bucket") {
			t.Fatal("a read-only user from the provider sees the create control")
		}
		resp, err := b.c.PostForm(e.srv.URL+"/buckets", url.Values{"name": {"nope"}, "format": {"LANCE"}})
		if err != nil {
			t.Fatal(err)
		}
		if resp.Body.Close(); resp.StatusCode != http.StatusForbidden {
			t.Fatalf("a reader's write: %d, want 403", resp.StatusCode)
		}
	})
	t.Run("an admin group member gets write controls", func(t *testing.T) {
		b := newBrowser(nil)
		if r := e.signInAtIdP(t, b, "", "root", "root-password"); r.doc.Url.Path != "/buckets" || !r.has("open-create-bucket") || r.text("current-role") != "admin" {
			t.Fatalf("admin after sign-in at %s: create control %v, role %q", r.doc.Url, r.has("open-create-bucket"), r.text("current-role"))
		}
	})
	t.Run("an admin disables a provider's user: its session ends and its next sign-in is refused", func(t *testing.T) {
		b := newBrowser(nil)
		if r := e.signInAtIdP(t, b, "", "ada", "ada-password"); r.text("current-user") != "ada" {
			t.Fatalf("sign-in: %d %s", r.status, r.doc.Url)
		}
		if _, err := e.store.SetUserDisabled(context.Background(), "ada", true); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _, _ = e.store.SetUserDisabled(context.Background(), "ada", false) })
		// The session is checked against the users table (a 1 s cache).
		for deadline := time.Now().Add(10 * time.Second); ; {
			if r := b.get(t, e.srv.URL+"/buckets"); r.has("login-form") {
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("a disabled user's session still opens pages")
			}
			time.Sleep(200 * time.Millisecond)
		}
		r := e.signInAtIdP(t, newBrowser(nil), "", "ada", "ada-password")
		if r.status != http.StatusForbidden || !strings.Contains(r.text("error-message"), "disabled") {
			t.Fatalf("a disabled user's sign-in: %d %q", r.status, r.text("error-message"))
		}
	})
	t.Run("groups without rights: the user appears, the session does not start", func(t *testing.T) {
		b := newBrowser(nil)
		r := e.signInAtIdP(t, b, "", "mallory", "mallory-password")
		if r.status != http.StatusForbidden || !strings.Contains(r.text("error-message"), "marketing") || r.text("error-back") != "Back to sign-in" {
			t.Fatalf("no rights: %d %q", r.status, r.text("error-message"))
		}
		if u, err := e.store.GetUser(context.Background(), "mallory"); err != nil || u.Role != "" || strings.Join(u.Groups, ",") != "marketing" {
			t.Fatalf("user row %+v, %v", u, err)
		}
		if r := b.get(t, e.srv.URL+"/buckets"); !r.has("login-form") {
			t.Fatal("a user without rights reached the buckets page")
		}
	})
	t.Run("groups without a role but with a grant: the grant alone decides", func(t *testing.T) {
		ctx := context.Background()
		e.seed("bkt2", catalog.FormatLance, "")
		g := catalog.Grant{Grantee: catalog.Grantee{Kind: catalog.GranteeGroup, ID: "marketing"}, Bucket: "bkt2", Privilege: "read"}
		if _, _, err := e.store.AddGrant(ctx, g); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = e.store.RemoveGrant(ctx, g) })
		b := newBrowser(nil)
		r := e.signInAtIdP(t, b, "/buckets/bkt2", "mallory", "mallory-password")
		if r.status != http.StatusOK || r.doc.Url.Path != "/buckets/bkt2" || r.text("current-user") != "mallory" {
			t.Fatalf("a grant holder's sign-in: %d at %s %q", r.status, r.doc.Url, r.text("error-message"))
		}
		if r := b.get(t, e.srv.URL+"/buckets/bkt1"); r.status != http.StatusForbidden && r.status != http.StatusNotFound {
			t.Fatalf("a bucket the grant does not cover: %d", r.status)
		}
		resp, err := b.c.PostForm(e.srv.URL+"/buckets/bkt2/namespaces", url.Values{"namespace": {"nope"}})
		if err != nil {
			t.Fatal(err)
		}
		if resp.Body.Close(); resp.StatusCode != http.StatusForbidden {
			t.Fatalf("a reader's write: %d, want 403", resp.StatusCode)
		}
	})
}

func TestOIDCCallbackErrors(t *testing.T) {
	e := newOIDCEnv(t)
	// callbackURL runs a sign-in up to the provider's redirect back and
	// returns that URL, not yet followed.
	callbackURL := func(t *testing.T, b *browser) *url.URL {
		t.Helper()
		b.stopped = nil
		e.signInAtIdP(t, b, "", "ada", "ada-password")
		if b.stopped == nil {
			t.Fatal("the provider did not redirect back to the console")
		}
		return b.stopped
	}
	refused := func(t *testing.T, r response, status int, says string) {
		t.Helper()
		if r.status != status || !r.has("error-page") || !strings.Contains(r.text("error-message"), says) {
			t.Fatalf("got %d %q, want %d saying %q", r.status, r.text("error-message"), status, says)
		}
	}

	t.Run("a state this browser did not start", func(t *testing.T) {
		b := newBrowser(atCallback)
		u := callbackURL(t, b)
		other := newBrowser(nil)
		refused(t, other.get(t, u.String()), http.StatusBadRequest, "does not belong to a sign-in started in this browser")
	})
	t.Run("the same answer twice", func(t *testing.T) {
		b := newBrowser(atCallback)
		u := callbackURL(t, b)
		if r := b.get(t, u.String()); r.doc.Url.Path != "/buckets" {
			t.Fatalf("first use ended at %s (%d)", r.doc.Url, r.status)
		}
		refused(t, b.get(t, u.String()), http.StatusBadRequest, "already used")
	})
	t.Run("a code that is not this sign-in's", func(t *testing.T) {
		b := newBrowser(atCallback)
		first := callbackURL(t, b)
		second := callbackURL(t, b)
		mixed := *second
		q := second.Query()
		q.Set("code", first.Query().Get("code"))
		mixed.RawQuery = q.Encode()
		refused(t, b.get(t, mixed.String()), http.StatusUnauthorized, "expired or was already used")
	})
	t.Run("the session token is renewed at sign-in", func(t *testing.T) {
		b := newBrowser(atCallback)
		u := callbackURL(t, b)
		base, _ := url.Parse(e.srv.URL)
		session := func() string { // cookies ignore ports: the provider's sit beside it
			for _, c := range b.c.Jar.Cookies(base) {
				if c.Name == sessionCookieName {
					return c.Value
				}
			}
			return ""
		}
		before := session()
		b.get(t, u.String())
		if after := session(); before == "" || after == "" || before == after {
			t.Fatalf("session cookie before %q, after %q: want one, renewed", before, after)
		}
	})
	t.Run("the provider refuses", func(t *testing.T) {
		b := newBrowser(func(u *url.URL) bool { return u.Host != mustHost(e.srv.URL) })
		b.get(t, e.srv.URL+"/login/oidc")
		if b.stopped == nil {
			t.Fatal("no redirect to the provider")
		}
		state := b.stopped.Query().Get("state")
		refused(t, b.get(t, e.srv.URL+"/login/oidc/callback?state="+state+"&error=access_denied&error_description=The+resource+owner+denied+the+request"),
			http.StatusUnauthorized, "access_denied (The resource owner denied the request)")
	})
	t.Run("the provider down", func(t *testing.T) {
		b := newBrowser(atCallback)
		u := callbackURL(t, b)
		e.idp.Stop()
		refused(t, b.get(t, u.String()), http.StatusServiceUnavailable, "did not answer")
		if r := b.get(t, e.srv.URL+"/login"); !r.has("login-form") {
			t.Fatal("the password form is gone while the provider is down")
		}
	})
}

func mustHost(raw string) string {
	u, _ := url.Parse(raw)
	return u.Host
}

// TestOIDCNotConfigured: without a provider the sign-in page has no
// button and its routes are 404.
func TestOIDCNotConfigured(t *testing.T) {
	e := newEnv(t, allSurfaces)
	if r := e.get(e.anon(), "/login"); r.has("login-sso") {
		t.Fatal("a sign-in button without a provider")
	}
	for _, p := range []string{"/login/oidc", "/login/oidc/callback?state=x&code=y"} {
		if r := e.get(e.anon(), p); r.status != http.StatusNotFound {
			t.Fatalf("%s: %d, want 404", p, r.status)
		}
	}
}
