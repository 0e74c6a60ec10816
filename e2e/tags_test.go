package e2e

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/internal/lancetest"
	"github.com/floe/floe/lancecommit"
)

// TestJourneyLanceTags tags version 2 of a Lance table on its page, moves
// the tag to version 3, opens Browse Data at the tag from its link and
// deletes it after the page asks — with no CSP violation or console error.
func TestJourneyLanceTags(t *testing.T) {
	if testing.Short() {
		t.Skip("browser journey skipped in -short mode")
	}
	execPath := chromium(t)
	srv, store, _ := startObservedConsole(t)
	ctx := context.Background()
	if _, err := store.CreateBucket(ctx, catalog.CreateBucketInput{Name: "tags", Format: catalog.FormatLance}); err != nil {
		t.Fatal(err)
	}
	if _, err := store.CreateNamespace(ctx, "tags", []string{"prod"}, nil); err != nil {
		t.Fatal(err)
	}
	tbl, _, err := store.CreateTable(ctx, catalog.CreateTableInput{TableRef: catalog.TableRef{Bucket: "tags", Namespace: []string{"prod"}, Name: "docs"}, Format: catalog.FormatLance})
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(strings.TrimPrefix(tbl.Location, "file://"), "_versions")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for v := uint64(1); v <= 3; v++ {
		if err := os.WriteFile(filepath.Join(dir, catalog.ManifestName(v, true)), lancetest.Manifest(v, 100*v), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	commits := lancecommit.New(store)
	page := srv.URL + "/buckets/tags/namespaces/prod/tables/docs"
	row := `[data-testid="tag-row"][data-tag="release"]`

	bctx, logs := browserContext(t, execPath)
	step := func(name string, actions ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(bctx, actions...); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	step("sign in", signIn(srv.URL)...)
	step("tag version 2",
		chromedp.Navigate(page),
		chromedp.WaitVisible(tid("tags-empty")),
		chromedp.SendKeys(tid("tag-name-input"), "release"),
		chromedp.SetValue(tid("tag-version-input"), "2"),
		chromedp.Click(tid("tag-create-submit")),
		chromedp.WaitVisible(chromedp.CSS(row)),
	)
	if v, err := chromedp.Run(bctx, chromedp.Text(chromedp.CSS(row+` [data-testid="tag-version"]`))); err != nil || v != "2" {
		t.Fatalf("listed version %q, %v", v, err)
	}
	step("move it to version 3",
		chromedp.Navigate(page), // no flash on the page: the one waited for below is the move's
		chromedp.WaitVisible(chromedp.CSS(row)),
		chromedp.SetValue(chromedp.CSS(row+` [data-testid="tag-move-version"]`), "3"),
		chromedp.Click(chromedp.CSS(row+` [data-testid="tag-move-submit"]`)),
		chromedp.WaitVisible(tid("flash")),
	)
	if v, err := chromedp.Run(bctx, chromedp.Text(chromedp.CSS(row+` [data-testid="tag-version"]`))); err != nil || v != "3" {
		t.Fatalf("the moved tag is listed at %q, %v", v, err)
	}
	if tg, err := commits.Tag(ctx, tbl, "release"); err != nil || tg.Version != 3 {
		t.Fatalf("the service reads %+v, %v after the move", tg, err)
	}
	step("browse the data at the tag",
		chromedp.Click(chromedp.CSS(row+` [data-testid="tag-browse"]`)),
		chromedp.WaitVisible(tid("version-picker")),
	)
	if sel, err := chromedp.Run(bctx, chromedp.Evaluate[string](`document.querySelector('[data-testid="version-picker"]').value`)); err != nil || sel != "tag:release" {
		t.Errorf("Browse Data reads at %q, %v", sel, err)
	}
	step("decline the delete question",
		chromedp.Navigate(page),
		chromedp.WaitVisible(chromedp.CSS(row)),
		chromedp.Evaluate[chromedp.Void](`window.confirm = function (q) { window.floeAsked = q; return false; }; undefined`),
		chromedp.Click(chromedp.CSS(row+` [data-testid="tag-delete-submit"]`)),
	)
	if asked, _ := chromedp.Run(bctx, chromedp.Evaluate[string](`window.floeAsked || ""`)); !strings.Contains(asked, "Delete tag release?") {
		t.Fatalf("delete asked %q", asked)
	}
	if _, err := commits.Tag(ctx, tbl, "release"); err != nil {
		t.Fatalf("declining still deleted the tag: %v", err)
	}
	step("accept it",
		chromedp.Evaluate[chromedp.Void](`window.confirm = function () { return true; }; undefined`),
		chromedp.Click(chromedp.CSS(row+` [data-testid="tag-delete-submit"]`)),
		chromedp.WaitVisible(tid("tags-empty")),
	)
	if _, err := commits.Tag(ctx, tbl, "release"); err == nil {
		t.Error("the tag survived its delete")
	}
	failOnBrowserErrors(t, logs)
}
