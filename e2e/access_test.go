package e2e

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/icebergrest"
)

// TestJourneyGrantWriteInAccessTab (#22): an engine's key may read an
// Iceberg table but its commit is refused; an admin opens the table's
// Access tab in Chromium, grants the key write there, sees the grant
// listed; the key's very next commit is accepted.
func TestJourneyGrantWriteInAccessTab(t *testing.T) {
	if testing.Short() {
		t.Skip("browser journey skipped in -short mode")
	}
	execPath := chromium(t)
	srv, store := startConsole(t)
	ctx := context.Background()
	if _, err := store.CreateBucket(ctx, catalog.CreateBucketInput{Name: "lake", Format: catalog.FormatIceberg}); err != nil {
		t.Fatal(err)
	}
	if _, err := store.CreateNamespace(ctx, "lake", []string{"sales"}, nil); err != nil {
		t.Fatal(err)
	}
	// The Iceberg REST beside the console, on the same catalog (its own
	// authorizer: a grant made through the console reaches it through the
	// database, as it reaches another process).
	ice := icebergrest.New(icebergrest.Config{Store: store, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	t.Cleanup(ice.Close)
	rest := httptest.NewServer(ice.Handler())
	t.Cleanup(rest.Close)
	_, adminKey, err := store.CreateAPIKey(ctx, "setup", catalog.RoleReadWrite, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	call := func(key, method, path, body string) int {
		t.Helper()
		req, _ := http.NewRequest(method, rest.URL+path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+key)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode
	}
	if code := call(adminKey, "POST", "/v1/lake/namespaces/sales/tables",
		`{"name":"orders","schema":{"type":"struct","schema-id":0,"fields":[{"id":1,"name":"id","type":"long","required":false}]}}`); code != http.StatusOK {
		t.Fatalf("create table: %d", code)
	}
	etl, etlKey, err := store.CreateAPIKey(ctx, "etl", catalog.RoleNone, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := store.AddGrant(ctx, catalog.Grant{Grantee: catalog.Grantee{Kind: "apikey", ID: etl.ID}, Bucket: "lake", Namespace: []string{"sales"}, Privilege: "read"}); err != nil {
		t.Fatal(err)
	}
	const table = "/v1/lake/namespaces/sales/tables/orders"
	commit := `{"requirements":[],"updates":[{"action":"set-properties","updates":{"owner":"etl"}}]}`
	if code := call(etlKey, "GET", table, ""); code != http.StatusOK {
		t.Fatalf("the key cannot read its namespace's table: %d", code)
	}
	if code := call(etlKey, "POST", table, commit); code != http.StatusForbidden {
		t.Fatalf("the key's commit before the grant: %d, want 403", code)
	}

	bctx, logs := browserContext(t, execPath)
	tab := srv.URL + "/buckets/lake/namespaces/sales/tables/orders/access"
	if err := chromedp.Do(bctx, append(signIn(srv.URL),
		chromedp.Navigate(srv.URL+"/buckets/lake/namespaces/sales/tables/orders"),
		chromedp.Click(tid("access-link")),
		chromedp.WaitVisible(tid("add-grant-form")),
		chromedp.SetValue(tid("grantee-kind-select"), "apikey"),
		chromedp.SendKeys(tid("grantee-input"), etl.ID),
		chromedp.SetValue(tid("privilege-select"), "write"),
		chromedp.Click(tid("add-grant-submit")),
		chromedp.WaitVisible(`[data-testid="grant-row"][data-grantee="apikey:`+etl.ID+`"][data-privilege="write"]`),
	)...); err != nil {
		t.Fatalf("grant in the Access tab: %v", err)
	}
	url, err := chromedp.Run(bctx, chromedp.Location())
	if err != nil || url != tab {
		t.Errorf("after the grant the browser is at %q, want the Access tab", url)
	}
	inherited, err := chromedp.Run(bctx, chromedp.Text(`[data-testid="grant-row"][data-grantee="apikey:`+etl.ID+`"][data-privilege="read"] [data-testid="grant-from"]`))
	if err != nil || !strings.Contains(inherited, "inherited from lake/sales") {
		t.Errorf("the key's namespace grant on the table's tab: %q, %v", inherited, err)
	}

	if code := call(etlKey, "POST", table, commit); code != http.StatusOK {
		t.Fatalf("the key's next commit after the grant: %d, want 200", code)
	}
	for _, l := range logs.all() {
		if strings.Contains(l, "Content Security Policy") || strings.Contains(l, "exception") {
			t.Errorf("browser console: %s", l)
		}
	}
}
