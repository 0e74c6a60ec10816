package e2e

import (
	"context"
	"io"
	"log/slog"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/internal/dbschema"
	"github.com/floe/floe/internal/idptest"
	"github.com/floe/floe/internal/runtest"
	"github.com/floe/floe/oidc"
	"github.com/floe/floe/persist/persisttest"
	"github.com/floe/floe/web"
)

// lateSSO lets the journey build the provider once the console's address
// (its redirect URL) is known, before the browser's first request.
type lateSSO struct{ *oidc.Provider }

// TestJourneyOIDCSignIn signs in through a real OpenID provider (ORY
// Hydra and its sign-in form) in Chromium: from a page that needs a
// session to the console's sign-in page, "Sign in with …", the provider's
// form, and back on the page it started from as the provider's user, who
// appears with the provider's group.
func TestJourneyOIDCSignIn(t *testing.T) {
	if testing.Short() {
		t.Skip("browser journey skipped in -short mode")
	}
	execPath := chromium(t)
	idp := idptest.Start(t)
	idp.AddUser(idptest.User{Subject: "ada", Password: "ada-password", Email: "ada@example.test", Groups: []string{"analysts"}})

	dir := t.TempDir()
	pdb := persisttest.OpenAt(t, filepath.Join(dir, "catalog.db"), dbschema.All()...)
	store, err := catalog.New(pdb, catalog.Options{Warehouse: filepath.Join(dir, "warehouse")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	if _, err := store.CreateBucket(context.Background(), catalog.CreateBucketInput{Name: "shared-vectors", Format: catalog.FormatLance}); err != nil {
		t.Fatal(err)
	}
	sso := &lateSSO{}
	s, err := web.New(web.Config{DB: pdb, Store: store, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Surfaces: web.Surfaces{Console: "127.0.0.1:9400", Lance: "127.0.0.1:9101"}, SSO: sso})
	if err != nil {
		t.Fatal(err)
	}
	runtest.Start(t, s)
	srv := httptest.NewServer(s.Handler()) // binds 127.0.0.1
	t.Cleanup(srv.Close)
	redirect := srv.URL + "/login/oidc/callback"
	idp.WebClient(t, "floe-console", "console-secret-1", redirect)
	if sso.Provider, err = oidc.New(oidc.Config{Issuer: idp.Issuer, ClientID: "floe-console", ClientSecret: "console-secret-1",
		RedirectURL: redirect, Label: "Example SSO", Rights: oidc.Rights{ReadonlyGroup: "analysts"}}); err != nil {
		t.Fatal(err)
	}

	ctx, logs := browserContext(t, execPath)
	step := func(name string, actions ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(ctx, actions...); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	step("a page that needs a session shows sign-in with the provider",
		chromedp.Navigate(srv.URL+"/buckets"),
		chromedp.WaitVisible(tid("login-form")),
		chromedp.WaitVisible(tid("login-sso")),
	)
	if label, err := chromedp.Run(ctx, chromedp.Text(tid("login-sso"))); err != nil || label != "Sign in with Example SSO" {
		t.Fatalf("button %q, %v", label, err)
	}
	step("the provider's sign-in form",
		chromedp.Click(tid("login-sso")),
		chromedp.WaitVisible(tid("idp-login")),
		chromedp.SendKeys(tid("idp-username"), "ada"),
		chromedp.SendKeys(tid("idp-password"), "ada-password"),
		chromedp.Click(tid("idp-submit")),
	)
	step("back on the buckets page, signed in",
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="bucket-row"]`)),
		chromedp.WaitVisible(tid("current-groups")),
	)
	url, err := chromedp.Run(ctx, chromedp.Location())
	if err != nil || !strings.HasSuffix(url, "/buckets") {
		t.Fatalf("ended at %q, %v", url, err)
	}
	user, _ := chromedp.Run(ctx, chromedp.Text(tid("current-user")))
	groups, _ := chromedp.Run(ctx, chromedp.Text(tid("current-groups")))
	role, _ := chromedp.Run(ctx, chromedp.Text(tid("current-role")))
	if user != "ada" || groups != "analysts" || role != "readonly" {
		t.Fatalf("signed in as %q, groups %q, role %q", user, groups, role)
	}
	u, err := store.GetUser(context.Background(), "ada")
	if err != nil || !u.FromIdP() || strings.Join(u.Groups, ",") != "analysts" {
		t.Fatalf("the user row: %+v, %v", u, err)
	}
	for _, l := range logs.all() {
		t.Logf("browser: %s", l)
		if strings.Contains(l, "Content Security Policy") || strings.HasPrefix(l, "exception:") {
			t.Errorf("browser reported: %s", l)
		}
	}
}
