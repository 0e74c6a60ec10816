package e2e

import (
	"context"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/floe/floe/catalog"
)

// TestJourneyNamespaceProperty: an admin sets a namespace property in
// place (htmx), sees it listed, finds it again after a reload and in the
// catalog, and removes it after the question. No step logs a CSP
// violation, an exception, a console error or an htmx error.
func TestJourneyNamespaceProperty(t *testing.T) {
	if testing.Short() {
		t.Skip("browser journey skipped in -short mode")
	}
	execPath := chromium(t)
	srv, store := startConsole(t)
	ctx := context.Background()
	if _, err := store.CreateBucket(ctx, catalog.CreateBucketInput{Name: "props", Format: catalog.FormatLance}); err != nil {
		t.Fatal(err)
	}
	if _, err := store.CreateNamespace(ctx, "props", []string{"sales"}, nil); err != nil {
		t.Fatal(err)
	}
	bctx, logs := browserContext(t, execPath)
	bctx, cancel := context.WithTimeout(bctx, journeyTimeout)
	defer cancel()
	step := func(name string, actions ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(bctx, actions...); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	eval := func(js string) string {
		t.Helper()
		s, err := chromedp.Run(bctx, chromedp.Evaluate[string](js))
		if err != nil {
			t.Fatalf("%s: %v", js, err)
		}
		return s
	}
	row := `[data-testid="namespace-properties"] [data-testid="property-row"][data-key="owner"]`
	page := srv.URL + "/buckets/props/namespaces/sales"

	step("sign in", signIn(srv.URL)...)
	step("open the namespace", chromedp.Navigate(page), chromedp.WaitVisible(tid("namespace-properties")), chromedp.WaitVisible(tid("properties-empty")))
	step("set owner = data-eng",
		chromedp.Evaluate[chromedp.Void](`document.getElementById("main").dataset.mark = "kept"; undefined`),
		chromedp.SendKeys(tid("property-key"), "owner"),
		chromedp.SendKeys(tid("property-value-input"), "data-eng"),
		chromedp.Click(tid("property-set")),
		chromedp.WaitVisible(tid("properties-saved")),
		chromedp.WaitVisible(chromedp.CSS(row)),
	)
	if got := eval(`document.querySelector('` + row + ` [data-testid="property-value"]').textContent.trim()`); got != "data-eng" {
		t.Fatalf("listed value %q", got)
	}
	if eval(`document.getElementById("main").dataset.mark || ""`) != "kept" {
		t.Fatal("setting the property reloaded the page instead of swapping the panel")
	}
	step("reload", chromedp.Navigate(page), chromedp.WaitVisible(chromedp.CSS(row)))
	if ns, err := store.GetNamespace(ctx, "props", []string{"sales"}); err != nil || ns.Properties["owner"] != "data-eng" {
		t.Fatalf("catalog after the set: %+v, %v", ns.Properties, err)
	}
	step("remove it, answering the question",
		chromedp.Evaluate[chromedp.Void](`window.confirm = function (q) { window.floeAsked = q; return true; }; undefined`),
		chromedp.Click(chromedp.CSS(row+` [data-testid="property-remove"]`)),
		chromedp.WaitVisible(tid("properties-empty")),
	)
	if asked := eval(`window.floeAsked || ""`); !strings.Contains(asked, "Remove property owner?") {
		t.Fatalf("Remove asked %q", asked)
	}
	if ns, err := store.GetNamespace(ctx, "props", []string{"sales"}); err != nil || len(ns.Properties) != 0 {
		t.Fatalf("catalog after the remove: %+v, %v", ns.Properties, err)
	}
	for _, l := range logs.all() {
		if strings.Contains(l, "Content Security Policy") || strings.Contains(l, "exception") || strings.HasPrefix(l, "console.error") ||
			strings.HasPrefix(l, "error") || strings.Contains(l, "htmx:") {
			t.Errorf("browser console: %s", l)
		}
	}
}
