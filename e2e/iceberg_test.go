package e2e

import (
	"context"
	"io"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/iceberg-go/catalog/rest"
	"github.com/apache/iceberg-go/table"
	"github.com/chromedp/chromedp"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/icebergrest"
)

// TestJourneyIcebergCreateTable signs in, creates an Iceberg bucket through
// its card and a namespace, builds a table in the schema builder (a row added
// by htmx, another added and removed, a day partition), lands on the table
// page, then sees rows an engine appended in Browse Data.
func TestJourneyIcebergCreateTable(t *testing.T) {
	if testing.Short() {
		t.Skip("browser journey skipped in -short mode")
	}
	execPath := chromium(t)
	srv, store := startConsole(t)
	ctx, logs := browserContext(t, execPath)
	shots := os.Getenv("FLOE_E2E_SHOTS") // a directory: save a screenshot of each page for a look
	shot := func(name string) {
		if shots == "" {
			return
		}
		if png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100)); err == nil {
			_ = os.WriteFile(filepath.Join(shots, name+".png"), png, 0o644)
		}
	}
	step := func(name string, actions ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(ctx, actions...); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	rows := func() int {
		n, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('[data-testid="schema-row"]').length`))
		if err != nil {
			t.Fatal(err)
		}
		return n
	}

	step("sign in",
		chromedp.Navigate(srv.URL+"/buckets"),
		chromedp.WaitVisible(tid("login-form")),
		chromedp.SendKeys(chromedp.CSS(`#username`), "admin"),
		chromedp.SendKeys(chromedp.CSS(`#password`), adminPassword),
		chromedp.Click(tid("login-submit")),
		chromedp.WaitVisible(tid("open-create-bucket")),
	)
	step("create an Iceberg bucket through its card",
		chromedp.Click(tid("open-create-bucket")),
		chromedp.WaitVisible(tid("create-bucket-dialog")),
		chromedp.SendKeys(tid("bucket-name-input"), "e2e-lake"),
		chromedp.Click(tid("format-card-ICEBERG")),
		chromedp.WaitVisible(tid("endpoint-hint-url")),
		chromedp.Click(tid("create-bucket-submit")),
		chromedp.WaitVisible(tid("create-namespace-form")),
	)
	step("create a namespace",
		chromedp.SendKeys(tid("namespace-input"), "sales"),
		chromedp.Click(tid("create-namespace-submit")),
		chromedp.WaitVisible(tid("create-iceberg-table")),
	)
	shot("iceberg-namespace")
	step("open the schema builder",
		chromedp.Click(tid("create-iceberg-table")),
		chromedp.WaitVisible(tid("iceberg-create-form")),
		chromedp.SendKeys(tid("iceberg-name-input"), "events"),
		chromedp.SendKeys(chromedp.CSS(`#col-0-name`), "id"),
		chromedp.SetValue(chromedp.CSS(`#col-0-required`), "yes"),
	)
	addRow := func(want int) {
		t.Helper()
		step("add a column", chromedp.Click(tid("add-column")))
		if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`document.querySelectorAll('[data-testid="schema-row"]').length === `+itoa(want))); err != nil {
			t.Fatalf("rows after Add column = %d, want %d: %v", rows(), want, err)
		}
	}
	last := `[data-testid="schema-row"]:last-child `
	addRow(2)
	step("fill the second column",
		chromedp.SendKeys(chromedp.CSS(last+`[data-testid="column-name"]`), "name"),
		chromedp.SetValue(chromedp.CSS(last+`[data-testid="column-type"]`), "string"),
	)
	addRow(3)
	step("fill the third column",
		chromedp.SendKeys(chromedp.CSS(last+`[data-testid="column-name"]`), "ts"),
		chromedp.SetValue(chromedp.CSS(last+`[data-testid="column-type"]`), "timestamptz"),
	)
	addRow(4)
	step("remove the fourth", chromedp.Click(chromedp.CSS(last+`[data-testid="remove-column"]`)))
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`document.querySelectorAll('[data-testid="schema-row"]').length === 3`)); err != nil {
		t.Fatalf("rows after Remove = %d: %v", rows(), err)
	}
	step("partition by day(ts)",
		chromedp.SetValue(tid("partition-transform"), "day"),
		chromedp.WaitVisible(tid("partition-source")),
		chromedp.SendKeys(tid("partition-source"), "ts"),
	)
	shot("iceberg-create")
	step("create the table",
		chromedp.Click(tid("iceberg-create-submit")),
		chromedp.WaitVisible(tid("iceberg-schema")),
	)
	part, err := chromedp.Run(ctx, chromedp.Text(tid("iceberg-partition-field")))
	if err != nil || part != "day(ts) AS ts_day" {
		t.Fatalf("partition on the table page = %q, %v", part, err)
	}
	if _, err := chromedp.Run(ctx, chromedp.Text(tid("iceberg-no-snapshots"))); err != nil {
		t.Fatalf("new table should say it has no snapshot: %v", err)
	}

	appendRows(t, store)
	step("see the snapshot on the table page",
		chromedp.Navigate(srv.URL+"/buckets/e2e-lake/namespaces/sales/tables/events"),
		chromedp.WaitVisible(tid("iceberg-snapshot")),
	)
	shot("iceberg-table")
	step("browse the rows",
		chromedp.Click(tid("browse-data-link")),
		chromedp.WaitVisible(tid("grid-row")),
	)
	shot("iceberg-data")
	n, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('[data-testid="grid-row"]').length`))
	if err != nil || n != 3 {
		t.Fatalf("grid rows = %d, %v", n, err)
	}
	for _, l := range logs.all() {
		t.Logf("browser: %s", l)
		if strings.Contains(l, "Content Security Policy") || strings.HasPrefix(l, "exception:") {
			t.Errorf("browser reported: %s", l)
		}
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// appendRows writes three rows into sales.events with iceberg-go through the
// real Iceberg REST catalog on the console's store, as an engine would.
func appendRows(t *testing.T, store *catalog.Store) {
	t.Helper()
	ctx := context.Background()
	rs := httptest.NewServer(icebergrest.New(icebergrest.Config{Store: store, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Anonymous: true}).Handler())
	t.Cleanup(rs.Close)
	cat, err := rest.NewCatalog(ctx, "floe", rs.URL, rest.WithWarehouseLocation("e2e-lake"))
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := cat.LoadTable(ctx, table.Identifier{"sales", "events"})
	if err != nil {
		t.Fatalf("iceberg-go load: %v", err)
	}
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "name", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "ts", Type: &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}, Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	day := time.Date(2026, 11, 1, 9, 30, 0, 0, time.UTC)
	for i := range 3 {
		b.Field(0).(*array.Int64Builder).Append(int64(i))
		if i == 1 {
			b.Field(1).(*array.StringBuilder).AppendNull()
		} else {
			b.Field(1).(*array.StringBuilder).Append("row " + strconv.Itoa(i))
		}
		b.Field(2).(*array.TimestampBuilder).Append(arrow.Timestamp(day.AddDate(0, 0, i).UnixMicro()))
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	at := array.NewTableFromRecords(schema, []arrow.RecordBatch{rec})
	defer at.Release()
	if _, err := tbl.AppendTable(ctx, at, 1024, nil); err != nil {
		t.Fatalf("iceberg-go append: %v", err)
	}
}
