package e2e

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/iceberg"
)

// TestJourneyIcebergView: an engine made a view (through the Iceberg
// library, as the REST does); the operator finds it on the namespace page,
// opens it and reads its SQL per dialect, schema and versions.
func TestJourneyIcebergView(t *testing.T) {
	if testing.Short() {
		t.Skip("browser journey skipped in -short mode")
	}
	execPath := chromium(t)
	srv, store := startConsole(t)
	ctx := context.Background()
	b, err := store.CreateBucket(ctx, catalog.CreateBucketInput{Name: "e2e-views", Format: catalog.FormatIceberg})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := store.CreateNamespace(ctx, b.Name, []string{"sales"}, nil); err != nil {
		t.Fatal(err)
	}
	var in iceberg.CreateViewInput
	if err := json.Unmarshal([]byte(`{"name": "by_region",
		"schema": {"type": "struct", "schema-id": 0, "fields": [{"id": 1, "name": "region", "type": "string", "required": false}]},
		"view-version": {"version-id": 1, "schema-id": 0, "timestamp-ms": 1700000000000, "summary": {"engine-name": "spark"},
			"default-namespace": ["sales"], "representations": [
				{"type": "sql", "sql": "SELECT DISTINCT region FROM events", "dialect": "spark"},
				{"type": "sql", "sql": "SELECT DISTINCT region FROM sales.events", "dialect": "trino"}]}}`), &in); err != nil {
		t.Fatal(err)
	}
	if _, err := iceberg.New(iceberg.Config{Store: store}).CreateView(ctx, b, []string{"sales"}, in); err != nil {
		t.Fatal(err)
	}

	bctx, logs := browserContext(t, execPath)
	step := func(name string, actions ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(bctx, actions...); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	step("sign in",
		chromedp.Navigate(srv.URL+"/buckets"),
		chromedp.WaitVisible(tid("login-form")),
		chromedp.SendKeys(chromedp.CSS(`#username`), "admin"),
		chromedp.SendKeys(chromedp.CSS(`#password`), adminPassword),
		chromedp.Click(tid("login-submit")),
		chromedp.WaitVisible(tid("open-create-bucket")),
	)
	step("the namespace page lists the view",
		chromedp.Navigate(srv.URL+"/buckets/e2e-views/namespaces/sales"),
		chromedp.WaitVisible(tid("views-table")),
	)
	dialects, err := chromedp.Run(bctx, chromedp.Text(tid("view-dialects")))
	if err != nil || dialects != "spark, trino" {
		t.Fatalf("dialects = %q, %v", dialects, err)
	}
	step("open the view", chromedp.Click(tid("view-link")), chromedp.WaitVisible(tid("view-sql")))
	sql, err := chromedp.Run(bctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll('[data-testid="view-sql-text"]')].map(e => e.textContent)`))
	if err != nil || len(sql) != 2 || sql[1] != "SELECT DISTINCT region FROM sales.events" {
		t.Fatalf("SQL shown = %q, %v", sql, err)
	}
	for _, l := range logs.all() {
		if strings.Contains(l, "Content Security Policy") || strings.HasPrefix(l, "exception:") {
			t.Errorf("browser reported: %s", l)
		}
	}
}
