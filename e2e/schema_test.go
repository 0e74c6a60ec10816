package e2e

import (
	"context"
	"io"
	"log/slog"
	"net/http/httptest"
	"slices"
	"testing"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/catalog/rest"
	"github.com/chromedp/chromedp"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/icebergrest"
)

// TestJourneySchemaDiff evolves an Iceberg table's schema through the real
// Iceberg REST with iceberg-go (rename, drop, add), opens the schema
// history from the table page and compares both ways — with no CSP
// violation or console error.
func TestJourneySchemaDiff(t *testing.T) {
	if testing.Short() {
		t.Skip("browser journey skipped in -short mode")
	}
	execPath := chromium(t)
	srv, store, _ := startObservedConsole(t)
	ctx := context.Background()
	if _, err := store.CreateBucket(ctx, catalog.CreateBucketInput{Name: "lake", Format: catalog.FormatIceberg}); err != nil {
		t.Fatal(err)
	}
	rs := httptest.NewServer(icebergrest.New(icebergrest.Config{Store: store, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Anonymous: true}).Handler())
	t.Cleanup(rs.Close)
	cat, err := rest.NewCatalog(ctx, "floe", rs.URL, rest.WithWarehouseLocation("lake"))
	if err != nil {
		t.Fatal(err)
	}
	if err := cat.CreateNamespace(ctx, []string{"sales"}, nil); err != nil {
		t.Fatal(err)
	}
	tbl, err := cat.CreateTable(ctx, []string{"sales", "orders"}, iceberg.NewSchema(0,
		iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int64, Required: true},
		iceberg.NestedField{ID: 2, Name: "name", Type: iceberg.PrimitiveTypes.String},
		iceberg.NestedField{ID: 3, Name: "region", Type: iceberg.PrimitiveTypes.String},
	))
	if err != nil {
		t.Fatalf("iceberg-go create: %v", err)
	}
	txn := tbl.NewTransaction()
	if err := txn.UpdateSchema(true, false).RenameColumn([]string{"name"}, "full_name").DeleteColumn([]string{"region"}).
		AddColumn([]string{"note"}, iceberg.PrimitiveTypes.String, "", false, nil).Commit(); err != nil {
		t.Fatalf("schema update: %v", err)
	}
	if _, err := txn.Commit(ctx); err != nil {
		t.Fatalf("commit: %v", err)
	}

	bctx, logs := browserContext(t, execPath)
	step := func(name string, actions ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(bctx, actions...); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	changes := func() []string {
		t.Helper()
		got, err := chromedp.Run(bctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll('[data-testid="schema-change"]')].map(e => e.dataset.kind + " " + e.dataset.field)`))
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	step("sign in", signIn(srv.URL)...)
	step("open the schema history from the table page",
		chromedp.Navigate(srv.URL+"/buckets/lake/namespaces/sales/tables/orders"),
		chromedp.WaitVisible(tid("schema-history-link")),
		chromedp.Click(tid("schema-history-link")),
		chromedp.WaitVisible(tid("schema-diff-table")),
	)
	if got, want := changes(), []string{"renamed full_name", "removed region", "added note"}; !slices.Equal(got, want) {
		t.Errorf("schema 0 → 1: %v, want %v", got, want)
	}
	step("compare the other way",
		chromedp.SetValue(tid("schema-from"), "1"),
		chromedp.SetValue(tid("schema-to"), "0"),
		chromedp.Click(tid("schema-diff-submit")),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="schema-change"][data-kind="added"][data-field="region"]`)),
	)
	if got, want := changes(), []string{"renamed name", "added region", "removed note"}; !slices.Equal(got, want) {
		t.Errorf("schema 1 → 0: %v, want %v", got, want)
	}
	failOnBrowserErrors(t, logs)
}
