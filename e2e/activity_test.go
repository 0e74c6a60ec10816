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

	"github.com/floe/floe/audit"
	"github.com/floe/floe/audit/auditedge"
	"github.com/floe/floe/catalog"
	"github.com/floe/floe/internal/dbschema"
	"github.com/floe/floe/internal/runtest"
	"github.com/floe/floe/persist/persisttest"
	"github.com/floe/floe/web"
)

// TestJourneyActivity signs in, creates a bucket and a namespace through
// the forms, and finds both writes (and its own sign-in) on the Activity
// page; filtering by outcome keeps the reload-proof link, and the table's
// Activity tab shows that table's trail.
func TestJourneyActivity(t *testing.T) {
	if testing.Short() {
		t.Skip("browser journey skipped in -short mode")
	}
	execPath := chromium(t)
	dir := t.TempDir()
	pdb := persisttest.OpenAt(t, filepath.Join(dir, "catalog.db"), dbschema.All()...)
	store, err := catalog.New(pdb, catalog.Options{Warehouse: filepath.Join(dir, "warehouse")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	if _, _, err := store.EnsureAdmin(context.Background(), adminPassword); err != nil {
		t.Fatal(err)
	}
	trail := audit.New(audit.Config{Store: audit.NewStore(pdb)})
	tctx, stop := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { trail.Run(tctx); close(done) }()
	t.Cleanup(func() { stop(); <-done })
	s, err := web.New(web.Config{DB: pdb, Store: store, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Surfaces: web.Surfaces{Console: "127.0.0.1:9400", Lance: "127.0.0.1:9101"},
		Auditor:  auditedge.New(trail, false), Audit: trail.Store()})
	if err != nil {
		t.Fatal(err)
	}
	runtest.Start(t, s)
	srv := httptest.NewServer(s.Handler())
	t.Cleanup(srv.Close)
	ctx, logs := browserContext(t, execPath)
	step := func(name string, actions ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(ctx, actions...); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	step("sign in", signIn(srv.URL)...)
	step("create a bucket and a namespace",
		chromedp.Navigate(srv.URL+"/buckets"),
		chromedp.Click(tid("open-create-bucket")),
		chromedp.WaitVisible(tid("create-bucket-dialog")),
		chromedp.SendKeys(tid("bucket-name-input"), "audited"),
		chromedp.Click(tid("format-card-LANCE")),
		chromedp.Click(tid("create-bucket-submit")),
		chromedp.WaitVisible(tid("create-namespace-form")),
		chromedp.SendKeys(tid("namespace-input"), "prod"),
		chromedp.Click(tid("create-namespace-submit")),
		chromedp.WaitVisible(tid("declare-table-form")),
		chromedp.SendKeys(tid("table-name-input"), "items"),
		chromedp.Click(tid("declare-table-submit")),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="table-row"][data-table="items"]`)),
	)
	if err := trail.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	step("open Activity", chromedp.Click(tid("nav-activity")), chromedp.WaitVisible(tid("activity-table-rows")))
	ops, err := chromedp.Run(ctx, chromedp.Text(tid("activity-table-rows")))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"SignIn", "CreateBucket", "CreateNamespace", "DeclareTable", "user:admin", "audited/prod/items"} {
		if !strings.Contains(ops, want) {
			t.Errorf("the Activity page lacks %q:\n%s", want, ops)
		}
	}
	step("filter by resource and reload",
		chromedp.SendKeys(tid("filter-resource"), "audited/prod"),
		chromedp.Click(tid("activity-filter-submit")),
		chromedp.WaitVisible(tid("activity-filter-clear")),
		chromedp.Reload(),
		chromedp.WaitVisible(tid("activity-filter-clear")),
	)
	filtered, err := chromedp.Run(ctx, chromedp.Text(tid("activity-table-rows")))
	if err != nil || strings.Contains(filtered, "CreateBucket") || !strings.Contains(filtered, "DeclareTable") {
		t.Fatalf("after filtering by audited/prod and reloading: %v\n%s", err, filtered)
	}
	step("the table's Activity tab",
		chromedp.Navigate(srv.URL+"/buckets/audited/namespaces/prod/tables/items"),
		chromedp.Click(tid("activity-link")),
		chromedp.WaitVisible(tid("activity-table")),
	)
	tab, err := chromedp.Run(ctx, chromedp.Text(tid("activity-table-rows")))
	if err != nil || !strings.Contains(tab, "DeclareTable") || strings.Contains(tab, "CreateNamespace") {
		t.Fatalf("the table's tab: %v\n%s", err, tab)
	}
	for _, l := range logs.all() {
		if strings.Contains(l, "Content Security Policy") || strings.HasPrefix(l, "exception:") {
			t.Errorf("browser reported: %s", l)
		}
	}
}
