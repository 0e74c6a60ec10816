package e2e

import (
	"context"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/floe/floe/catalog"
)

// TestJourneyKeyReload creates an API key on the keys page and with the
// table Connect tab's read-only key button, reloads each page the browser
// lands on, and checks no second key was made and the secret is gone.
func TestJourneyKeyReload(t *testing.T) {
	if testing.Short() {
		t.Skip("browser journey skipped in -short mode")
	}
	execPath := chromium(t)
	srv, store := startConsole(t)
	ctx := context.Background()
	if _, err := store.CreateBucket(ctx, catalog.CreateBucketInput{Name: "keys", Format: catalog.FormatLance}); err != nil {
		t.Fatal(err)
	}
	if _, err := store.CreateNamespace(ctx, "keys", []string{"docs"}, nil); err != nil {
		t.Fatal(err)
	}
	if _, _, err := store.CreateTable(ctx, catalog.CreateTableInput{TableRef: catalog.TableRef{Bucket: "keys", Namespace: []string{"docs"}, Name: "items"}, Format: catalog.FormatLance}); err != nil {
		t.Fatal(err)
	}
	bctx, _ := browserContext(t, execPath)
	step := func(name string, actions ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(bctx, actions...); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	keys := func() int {
		t.Helper()
		list, err := store.ListAPIKeys(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return len(list)
	}
	count := func(sel string) int {
		t.Helper()
		n, err := chromedp.Run(bctx, chromedp.Evaluate[int](`document.querySelectorAll('`+sel+`').length`))
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	step("sign in",
		chromedp.Navigate(srv.URL+"/login"),
		chromedp.WaitVisible(tid("login-form")),
		chromedp.SendKeys(chromedp.CSS(`#username`), "admin"),
		chromedp.SendKeys(chromedp.CSS(`#password`), adminPassword),
		chromedp.Click(tid("login-submit")),
		chromedp.WaitVisible(tid("nav-buckets")),
	)
	step("create a key",
		chromedp.Navigate(srv.URL+"/api-keys"),
		chromedp.SendKeys(tid("key-name-input"), "reload-check"),
		chromedp.Click(tid("create-key-submit")),
		chromedp.WaitVisible(tid("new-key-secret")),
	)
	if keys() != 1 {
		t.Fatalf("%d keys after one create", keys())
	}
	step("reload the page the create landed on", chromedp.Reload(), chromedp.WaitVisible(tid("keys-table")))
	if n := keys(); n != 1 {
		t.Fatalf("reload made another key: %d keys", n)
	}
	if count(`[data-testid="new-key-secret"]`) != 0 {
		t.Fatal("the secret is shown again after a reload")
	}
	step("press the Connect tab's read-only key button",
		chromedp.Navigate(srv.URL+"/buckets/keys/namespaces/docs/tables/items/connect"),
		chromedp.Click(tid("table-connect-key-submit")),
		chromedp.WaitVisible(tid("table-connect-key")),
	)
	step("reload the Connect tab", chromedp.Reload(), chromedp.WaitVisible(tid("table-connect-help")))
	if n := keys(); n != 2 {
		t.Fatalf("after the button and a reload: %d keys, want 2", n)
	}
	if count(`[data-testid="table-connect-key"]`) != 0 {
		t.Fatal("the key is written into the snippets again after a reload")
	}
}
