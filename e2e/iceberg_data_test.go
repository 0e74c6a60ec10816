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

// TestJourneyIcebergFilterAndColumns appends three rows with iceberg-go,
// then in Browse Data unticks a column and filters the rows; the grid shows
// the picked columns of the matching rows, and the choice survives as the
// page's URL — with no CSP violation or console error.
func TestJourneyIcebergFilterAndColumns(t *testing.T) {
	if testing.Short() {
		t.Skip("browser journey skipped in -short mode")
	}
	execPath := chromium(t)
	srv, store, _ := startObservedConsole(t)
	ctx := context.Background()
	if _, err := store.CreateBucket(ctx, catalog.CreateBucketInput{Name: "e2e-lake", Format: catalog.FormatIceberg}); err != nil {
		t.Fatal(err)
	}
	rs := httptest.NewServer(icebergrest.New(icebergrest.Config{Store: store, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Anonymous: true}).Handler())
	t.Cleanup(rs.Close)
	cat, err := rest.NewCatalog(ctx, "floe", rs.URL, rest.WithWarehouseLocation("e2e-lake"))
	if err != nil {
		t.Fatal(err)
	}
	if err := cat.CreateNamespace(ctx, []string{"sales"}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := cat.CreateTable(ctx, []string{"sales", "events"}, iceberg.NewSchema(0,
		iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int64, Required: true},
		iceberg.NestedField{ID: 2, Name: "name", Type: iceberg.PrimitiveTypes.String},
		iceberg.NestedField{ID: 3, Name: "ts", Type: iceberg.PrimitiveTypes.TimestampTz},
	)); err != nil {
		t.Fatalf("iceberg-go create: %v", err)
	}
	appendRows(t, store)

	bctx, logs := browserContext(t, execPath)
	step := func(name string, actions ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(bctx, actions...); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	grid := func() (cols []string, rows int) {
		t.Helper()
		cols, err := chromedp.Run(bctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll('[data-testid="grid-column"]')].map(e => e.dataset.column)`))
		if err != nil {
			t.Fatal(err)
		}
		rows, err = chromedp.Run(bctx, chromedp.Evaluate[int](`document.querySelectorAll('[data-testid="grid-row"]').length`))
		if err != nil {
			t.Fatal(err)
		}
		return cols, rows
	}
	step("sign in", signIn(srv.URL)...)
	step("open Browse Data",
		chromedp.Navigate(srv.URL+"/buckets/e2e-lake/namespaces/sales/tables/events/data"),
		chromedp.WaitVisible(tid("grid-row")),
	)
	if cols, rows := grid(); !slices.Equal(cols, []string{"id", "name", "ts"}) || rows != 3 {
		t.Fatalf("first page: %v, %d rows", cols, rows)
	}
	step("untick ts and filter",
		chromedp.Click(chromedp.CSS(`[data-testid="column-choice"][value="ts"]`)),
		chromedp.SendKeys(chromedp.CSS(`#data-filter`), "id >= 1"),
		chromedp.Click(tid("snapshot-submit")),
		chromedp.WaitNotPresent(chromedp.CSS(`[data-testid="grid-column"][data-column="ts"]`)),
		chromedp.WaitVisible(tid("grid-row")),
	)
	if cols, rows := grid(); !slices.Equal(cols, []string{"id", "name"}) || rows != 2 {
		t.Errorf("filtered: %v, %d rows; want [id name], 2 rows", cols, rows)
	}
	step("reload keeps both", chromedp.Reload(), chromedp.WaitVisible(tid("grid-row")))
	if cols, rows := grid(); !slices.Equal(cols, []string{"id", "name"}) || rows != 2 {
		t.Errorf("after a reload: %v, %d rows", cols, rows)
	}
	failOnBrowserErrors(t, logs)
}
