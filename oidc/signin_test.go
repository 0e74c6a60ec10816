package oidc

import (
	"context"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/floe/floe/fault"
	"github.com/floe/floe/internal/idptest"
)

// browserAt is a cookie-keeping client that signs in at the test
// provider's form as user and stops at the redirect URL, returning its
// query (code and state, or error).
func signInAt(t *testing.T, authURL, user, password string) url.Values {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	var answer url.Values
	c := &http.Client{Jar: jar, Timeout: 30 * time.Second, CheckRedirect: func(r *http.Request, _ []*http.Request) error {
		if r.URL.Path == "/callback" {
			answer = r.URL.Query()
			return http.ErrUseLastResponse
		}
		return nil
	}}
	resp, err := c.Get(authURL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if answer != nil {
		return answer
	}
	// The provider's sign-in form: its action and hidden challenge.
	form := resp.Request.URL
	challenge := form.Query().Get("login_challenge")
	if challenge == "" {
		t.Fatalf("the provider did not show its sign-in form (at %s)", form)
	}
	resp, err = c.PostForm(form.Scheme+"://"+form.Host+"/login", url.Values{"challenge": {challenge}, "username": {user}, "password": {password}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if answer == nil {
		t.Fatalf("the sign-in did not come back to the redirect URL (ended at %s, %s)", resp.Request.URL, resp.Status)
	}
	return answer
}

// TestSignInFlow runs the code flow against the real provider: the
// identity with its groups, then each refusal.
func TestSignInFlow(t *testing.T) {
	idp := idptest.Start(t)
	callback := httptest.NewServer(http.NotFoundHandler()) // never reached: signInAt stops at its URL
	t.Cleanup(callback.Close)
	redirect := callback.URL + "/callback"
	idp.WebClient(t, "floe-console", "console-secret-1", redirect)
	idp.AddUser(idptest.User{Subject: "ada", Password: "ada-password", Email: "ada@example.test", Groups: []string{"analysts", "ml"}})
	var skew time.Duration
	p, err := New(Config{Issuer: idp.Issuer, ClientID: "floe-console", ClientSecret: "console-secret-1", RedirectURL: redirect,
		Rights: Rights{ReadonlyGroup: "analysts"}, Now: func() time.Time { return time.Now().Add(skew) }})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	begin := func() (string, Pending) {
		t.Helper()
		u, pend, err := p.Begin(ctx, "/buckets/b1")
		if err != nil {
			t.Fatal(err)
		}
		return u, pend
	}

	u, pend := begin()
	q, _ := url.Parse(u)
	for _, k := range []string{"state", "nonce", "code_challenge"} {
		if q.Query().Get(k) == "" {
			t.Fatalf("the authorization URL has no %s: %s", k, u)
		}
	}
	if q.Query().Get("code_challenge_method") != "S256" {
		t.Fatalf("PKCE method %q, want S256", q.Query().Get("code_challenge_method"))
	}
	answer := signInAt(t, u, "ada", "ada-password")
	if answer.Get("state") != pend.State {
		t.Fatalf("state came back as %q, sent %q", answer.Get("state"), pend.State)
	}
	id, err := p.Finish(ctx, pend, answer.Get("code"))
	if err != nil {
		t.Fatal(err)
	}
	if id.Subject != "ada" || id.Name != "ada" || id.Email != "ada@example.test" || strings.Join(id.Groups, ",") != "analysts,ml" || id.Issuer != idp.Issuer {
		t.Fatalf("identity = %+v", id)
	}
	if pend.Next != "/buckets/b1" {
		t.Fatalf("next = %q", pend.Next)
	}

	refused := func(t *testing.T, err error, says string) {
		t.Helper()
		e, ok := fault.As(err)
		if !ok || e.Kind != fault.Unauthenticated || !strings.Contains(e.Message, says) {
			t.Fatalf("error = %v, want Unauthenticated saying %q", err, says)
		}
	}
	t.Run("a code used twice", func(t *testing.T) {
		_, err := p.Finish(ctx, pend, answer.Get("code"))
		refused(t, err, "expired or was already used")
	})
	t.Run("another sign-in's verifier", func(t *testing.T) {
		u, pend := begin()
		code := signInAt(t, u, "ada", "ada-password").Get("code")
		_, other := begin()
		pend.Verifier = other.Verifier
		_, err := p.Finish(ctx, pend, code)
		refused(t, err, "expired or was already used")
	})
	t.Run("another sign-in's nonce", func(t *testing.T) {
		u, pend := begin()
		code := signInAt(t, u, "ada", "ada-password").Get("code")
		pend.Nonce = "not-the-nonce"
		_, err := p.Finish(ctx, pend, code)
		refused(t, err, "nonce")
	})
	t.Run("an answer after ten minutes", func(t *testing.T) {
		u, pend := begin()
		code := signInAt(t, u, "ada", "ada-password").Get("code")
		skew = PendingTTL + time.Minute
		defer func() { skew = 0 }()
		_, err := p.Finish(ctx, pend, code)
		refused(t, err, "longer than 10 minutes")
	})
	t.Run("an issuer written otherwise than the provider writes it", func(t *testing.T) {
		q, err := New(Config{Issuer: idp.Issuer + "/", ClientID: "floe-console", RedirectURL: redirect})
		if err != nil {
			t.Fatal(err)
		}
		_, _, err = q.Begin(ctx, "")
		if e, ok := fault.As(err); !ok || e.Kind != fault.Unavailable || !strings.Contains(e.Message, "names the issuer "+idp.Issuer+",") {
			t.Fatalf("error = %v", err)
		}
	})
	t.Run("the provider down", func(t *testing.T) {
		u, pend := begin()
		code := signInAt(t, u, "ada", "ada-password").Get("code")
		idp.Stop()
		_, err := p.Finish(ctx, pend, code)
		if e, ok := fault.As(err); !ok || e.Kind != fault.Unavailable {
			t.Fatalf("error = %v, want Unavailable", err)
		}
	})
}
