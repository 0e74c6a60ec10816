package e2e

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/floe/floe/catalog"
)

// TestJourneyProtectDropUndrop: in a browser, an admin protects a table,
// sees its drop refused with a sentence naming the protection, drops it
// with force after typing its name, finds it in the bucket's Recently
// deleted list, and undrops it back to its page (issue 24).
func TestJourneyProtectDropUndrop(t *testing.T) {
	if testing.Short() {
		t.Skip("browser journey skipped in -short mode")
	}
	execPath := chromium(t)
	srv, store := startConsole(t)
	ctx := context.Background()
	if _, err := store.CreateBucket(ctx, catalog.CreateBucketInput{Name: "safe", Format: catalog.FormatLance}); err != nil {
		t.Fatal(err)
	}
	if _, err := store.SetBucketHold(ctx, "safe", 48*time.Hour); err != nil {
		t.Fatal(err)
	}
	if _, err := store.CreateNamespace(ctx, "safe", []string{"docs"}, nil); err != nil {
		t.Fatal(err)
	}
	ref := catalog.TableRef{Bucket: "safe", Namespace: []string{"docs"}, Name: "items"}
	tb, _, err := store.CreateTable(ctx, catalog.CreateTableInput{TableRef: ref, Format: catalog.FormatLance})
	if err != nil {
		t.Fatal(err)
	}
	bctx, _ := browserContext(t, execPath)
	step := func(name string, actions ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(bctx, actions...); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	text := func(sel string) string {
		t.Helper()
		s, err := chromedp.Run(bctx, chromedp.Evaluate[string](`(document.querySelector('`+sel+`')||{}).textContent||''`))
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	page := srv.URL + "/buckets/safe/namespaces/docs/tables/items"
	step("sign in",
		chromedp.Navigate(srv.URL+"/login"),
		chromedp.WaitVisible(tid("login-form")),
		chromedp.SendKeys(chromedp.CSS(`#username`), "admin"),
		chromedp.SendKeys(chromedp.CSS(`#password`), adminPassword),
		chromedp.Click(tid("login-submit")),
		chromedp.WaitVisible(tid("nav-buckets")),
	)
	step("protect the table",
		chromedp.Navigate(page),
		chromedp.Click(tid("protect-toggle")),
		chromedp.WaitVisible(tid("protected-badge")),
	)
	if got, err := store.GetTable(ctx, ref); err != nil || !got.Protected() {
		t.Fatalf("after the toggle the table is %+v, %v; want protected", got, err)
	}
	step("drop without force",
		chromedp.SendKeys(tid("drop-confirm-input"), "items"),
		chromedp.Click(tid("drop-table-submit")),
		chromedp.WaitVisible(tid("error-message")),
	)
	if msg := text(`[data-testid="error-message"]`); !strings.Contains(msg, "protected") || !strings.Contains(msg, `"items"`) {
		t.Fatalf("the refused drop says %q; want a sentence naming the protected table", msg)
	}
	step("drop with force after typing the name",
		chromedp.Navigate(page),
		chromedp.SendKeys(tid("drop-confirm-input"), "items"),
		chromedp.Click(tid("force-checkbox")),
		chromedp.Click(tid("drop-table-submit")),
		chromedp.WaitVisible(tid("flash")),
	)
	if _, err := store.GetTable(ctx, ref); err == nil {
		t.Fatal("the table is still listed after the forced drop")
	}
	step("find it in Recently deleted and undrop it",
		chromedp.Navigate(srv.URL+"/buckets/safe"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="deleted-row"][data-table-id="`+tb.ID+`"]`)),
		chromedp.Click(chromedp.CSS(`[data-testid="deleted-row"][data-table-id="`+tb.ID+`"] [data-testid="undrop-submit"]`)),
		chromedp.WaitVisible(tid("drop-table-form")),
	)
	if got, err := store.GetTable(ctx, ref); err != nil || got.ID != tb.ID {
		t.Fatalf("after undrop the table is %+v, %v", got, err)
	}
}
