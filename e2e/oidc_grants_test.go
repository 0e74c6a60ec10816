package e2e

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/catalog/rest"
	"github.com/chromedp/chromedp"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/icebergrest"
	"github.com/floe/floe/internal/dbschema"
	"github.com/floe/floe/internal/idptest"
	"github.com/floe/floe/internal/runtest"
	"github.com/floe/floe/observe"
	"github.com/floe/floe/oidc"
	"github.com/floe/floe/persist/persisttest"
	"github.com/floe/floe/plugin"
	"github.com/floe/floe/web"
)

// TestJourneyIdPGroupReadsOneNamespace (#22): a user of the IdP group
// analysts — which maps to no console role, so only grants count — holds
// read on one namespace through a grant to group:analysts. Signed in
// through Hydra in Chromium, the user sees that bucket and that
// namespace's table only (the bucket's other namespace and another bucket
// stay hidden, and their pages refuse), reads the table's rows in Browse
// Data, finds no write control on any page, and the console refuses the
// same-origin POSTs a forged form would send (drop the table, create a
// namespace, declare a table, create a bucket) with 403.
func TestJourneyIdPGroupReadsOneNamespace(t *testing.T) {
	if testing.Short() {
		t.Skip("browser journey skipped in -short mode")
	}
	execPath := chromium(t)
	idp := idptest.Start(t)
	idp.AddUser(idptest.User{Subject: "ada", Password: "ada-password", Email: "ada@example.test", Groups: []string{"analysts"}})
	ctx := context.Background()

	dir := t.TempDir()
	pdb := persisttest.OpenAt(t, filepath.Join(dir, "catalog.db"), dbschema.All()...)
	store, err := catalog.New(pdb, catalog.Options{Warehouse: filepath.Join(dir, "warehouse")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })

	// The lake: sales.events (three rows, granted) and hr.salaries (not);
	// another bucket the group holds nothing on.
	if _, err := store.CreateBucket(ctx, catalog.CreateBucketInput{Name: "e2e-lake", Format: catalog.FormatIceberg}); err != nil {
		t.Fatal(err)
	}
	if _, err := store.CreateBucket(ctx, catalog.CreateBucketInput{Name: "secret-vectors", Format: catalog.FormatLance}); err != nil {
		t.Fatal(err)
	}
	rs := httptest.NewServer(icebergrest.New(icebergrest.Config{Store: store, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Anonymous: true}).Handler())
	t.Cleanup(rs.Close)
	cat, err := rest.NewCatalog(ctx, "floe", rs.URL, rest.WithWarehouseLocation("e2e-lake"))
	if err != nil {
		t.Fatal(err)
	}
	schema := iceberg.NewSchema(0,
		iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int64, Required: true},
		iceberg.NestedField{ID: 2, Name: "name", Type: iceberg.PrimitiveTypes.String},
		iceberg.NestedField{ID: 3, Name: "ts", Type: iceberg.PrimitiveTypes.TimestampTz},
	)
	for _, id := range [][]string{{"sales", "events"}, {"hr", "salaries"}} {
		if err := cat.CreateNamespace(ctx, id[:1], nil); err != nil {
			t.Fatal(err)
		}
		if _, err := cat.CreateTable(ctx, id, schema); err != nil {
			t.Fatalf("iceberg-go create %v: %v", id, err)
		}
	}
	appendRows(t, store)
	if _, _, err := store.AddGrant(ctx, catalog.Grant{Grantee: catalog.Grantee{Kind: catalog.GranteeGroup, ID: "analysts"},
		Bucket: "e2e-lake", Namespace: []string{"sales"}, Privilege: "read"}); err != nil {
		t.Fatal(err)
	}

	obs, err := observe.New(pdb, 0)
	if err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	p, err := plugin.New(plugin.Config{DB: pdb, Store: store, Observe: obs, Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	sso := &lateSSO{}
	s, err := web.New(web.Config{DB: pdb, Store: store, Logger: log, Observe: obs, Plugin: p, SSO: sso,
		Surfaces: web.Surfaces{Console: "127.0.0.1:9400", Lance: "127.0.0.1:9101", Iceberg: "127.0.0.1:8181"}})
	if err != nil {
		t.Fatal(err)
	}
	runtest.Start(t, obs, p, s)
	t.Cleanup(func() {
		sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = p.Shutdown(sctx)
	})
	srv := httptest.NewServer(s.Handler()) // binds 127.0.0.1
	t.Cleanup(srv.Close)
	redirect := srv.URL + "/login/oidc/callback"
	idp.WebClient(t, "floe-console", "console-secret-1", redirect)
	// No admin or read-only group: analysts get a console role from
	// neither, so what ada may see is the group's grant alone.
	if sso.Provider, err = oidc.New(oidc.Config{Issuer: idp.Issuer, ClientID: "floe-console", ClientSecret: "console-secret-1",
		RedirectURL: redirect, Label: "Example SSO"}); err != nil {
		t.Fatal(err)
	}

	bctx, logs := browserContext(t, execPath)
	step := func(name string, actions ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(bctx, actions...); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	strs := func(js string) []string {
		t.Helper()
		v, err := chromedp.Run(bctx, chromedp.Evaluate[[]string](js))
		if err != nil {
			t.Fatalf("%s: %v", js, err)
		}
		return v
	}
	// Every control that would change something: a form that posts
	// (signing out aside) with a field or button one can use (a manager's
	// form shown to a reader with every field disabled and no button
	// changes nothing), an htmx verb other than GET, a create button.
	writeControls := func(page string) {
		t.Helper()
		if c := strs(`[...document.querySelectorAll('form')].filter(f => f.method.toLowerCase() === 'post' && !f.action.endsWith('/logout') &&
				f.querySelector('button:not([disabled]), input:not([type=hidden]):not([disabled]), select:not([disabled]), textarea:not([disabled])')).map(f => f.action)
			.concat([...document.querySelectorAll('[hx-post],[hx-put],[hx-patch],[hx-delete],[data-hx-post],[data-hx-delete]')].map(e => e.outerHTML.slice(0, 120)))
			.concat([...document.querySelectorAll('[data-testid^="open-create"],[data-testid="protect-toggle"],[data-testid="force-checkbox"]')].map(e => e.dataset.testid))`); len(c) > 0 {
			t.Errorf("%s shows write controls to a reader: %q", page, c)
		}
	}

	step("sign in through the provider",
		chromedp.Navigate(srv.URL+"/buckets"),
		chromedp.WaitVisible(tid("login-sso")),
		chromedp.Click(tid("login-sso")),
		chromedp.WaitVisible(tid("idp-login")),
		chromedp.SendKeys(tid("idp-username"), "ada"),
		chromedp.SendKeys(tid("idp-password"), "ada-password"),
		chromedp.Click(tid("idp-submit")),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="bucket-row"]`)),
	)
	if user, _ := chromedp.Run(bctx, chromedp.Text(tid("current-user"))); user != "ada" {
		t.Fatalf("signed in as %q", user)
	}
	if b := strs(`[...document.querySelectorAll('[data-testid="bucket-row"]')].map(e => e.textContent)`); len(b) != 1 || !strings.Contains(b[0], "e2e-lake") {
		t.Errorf("bucket list: %q, want e2e-lake alone", b)
	}
	writeControls("the buckets page")

	step("the bucket lists the granted namespace only",
		chromedp.Navigate(srv.URL+"/buckets/e2e-lake"),
		chromedp.WaitVisible(tid("namespace-row")),
	)
	if ns := strs(`[...document.querySelectorAll('[data-testid="namespace-row"]')].map(e => e.textContent.trim())`); len(ns) != 1 || !strings.Contains(ns[0], "sales") || strings.Contains(ns[0], "hr") {
		t.Errorf("namespace list: %q, want sales alone", ns)
	}
	writeControls("the bucket page")

	step("the namespace lists its table",
		chromedp.Navigate(srv.URL+"/buckets/e2e-lake/namespaces/sales"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="table-row"][data-table="events"]`)),
	)
	writeControls("the namespace page")

	step("the table page",
		chromedp.Navigate(srv.URL+"/buckets/e2e-lake/namespaces/sales/tables/events"),
		chromedp.WaitVisible(tid("table-name")),
	)
	writeControls("the table page")

	step("Browse Data reads the rows",
		chromedp.Navigate(srv.URL+"/buckets/e2e-lake/namespaces/sales/tables/events/data"),
		chromedp.WaitVisible(tid("grid-row")),
	)
	if cols := strs(`[...document.querySelectorAll('[data-testid="grid-column"]')].map(e => e.dataset.column)`); !slices.Equal(cols, []string{"id", "name", "ts"}) {
		t.Errorf("Browse Data columns: %q", cols)
	}
	if n, err := chromedp.Run(bctx, chromedp.Evaluate[int](`document.querySelectorAll('[data-testid="grid-row"]').length`)); err != nil || n != 3 {
		t.Errorf("Browse Data rows: %d, %v; want 3", n, err)
	}
	writeControls("Browse Data")

	// The pages above raised no CSP violation or error; the refusals
	// below are meant (and Chromium logs each 403 it receives).
	failOnBrowserErrors(t, logs)

	// Forged requests, sent from the console's own page (same origin, with
	// the session cookie, so the cross-origin check lets them through and
	// what answers is the authorizer), and reads of the hidden places.
	status := func(method, path, body string) int {
		t.Helper()
		js := `fetch(` + jsString(path) + `, {method: ` + jsString(method) + `, credentials: 'same-origin', redirect: 'manual',
			headers: {'Content-Type': 'application/x-www-form-urlencoded'}` + map[bool]string{true: `, body: ` + jsString(body), false: ``}[method == "POST"] + `}).then(r => r.status)`
		n, err := chromedp.Run(bctx, chromedp.Evaluate[int](js, chromedp.EvalAwaitPromise))
		if err != nil {
			t.Fatalf("%s %s: %v", method, path, err)
		}
		return n
	}
	for _, c := range []struct{ method, path, body string }{
		{"POST", "/buckets/e2e-lake/namespaces/sales/tables/events/drop", "confirm=events"},
		{"POST", "/buckets/e2e-lake/namespaces", "namespace=forged"},
		{"POST", "/buckets/e2e-lake/namespaces/sales/tables", "name=forged"},
		{"POST", "/buckets/e2e-lake/namespaces/sales/tables/events/properties", "key=owner&value=ada"},
		{"POST", "/buckets/e2e-lake/namespaces/sales/access", "grantee_kind=user&grantee=ada&privilege=write"},
		{"POST", "/buckets", "name=forged-bucket&format=LANCE"},
		{"GET", "/buckets/e2e-lake/namespaces/hr/tables/salaries", ""},
		{"GET", "/buckets/e2e-lake/namespaces/hr/tables/salaries/data", ""},
	} {
		if code := status(c.method, c.path, c.body); code != 403 && !(c.method == "GET" && code == 404) {
			t.Errorf("%s %s as the reader: %d, want 403", c.method, c.path, code)
		}
	}
	if code := status("GET", "/buckets/secret-vectors", ""); code != 403 && code != 404 {
		t.Errorf("the other bucket's page: %d, want 403 or 404", code)
	}
	if _, err := store.GetTable(ctx, catalog.TableRef{Bucket: "e2e-lake", Namespace: []string{"sales"}, Name: "events"}); err != nil {
		t.Errorf("the table after the forged drop: %v", err)
	}
	if _, err := store.GetBucket(ctx, "forged-bucket"); err == nil {
		t.Errorf("the forged bucket exists")
	}
}

// jsString is s as a JavaScript string literal.
func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
