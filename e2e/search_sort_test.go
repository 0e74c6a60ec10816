package e2e

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/observe"
)

// TestJourneySearchAndSort: "/" focuses the search from any page, typing
// lists matching tables as you type and a hit opens its table; a table
// list sorted by rows keeps its order in the URL across a reload — with
// no CSP violation or console error.
func TestJourneySearchAndSort(t *testing.T) {
	if testing.Short() {
		t.Skip("browser journey skipped in -short mode")
	}
	execPath := chromium(t)
	srv, store, obs := startObservedConsole(t)
	ctx := context.Background()
	if _, err := store.CreateBucket(ctx, catalog.CreateBucketInput{Name: "shop", Format: catalog.FormatLance}); err != nil {
		t.Fatal(err)
	}
	if _, err := store.CreateNamespace(ctx, "shop", []string{"prod"}, nil); err != nil {
		t.Fatal(err)
	}
	for name, rows := range map[string]string{"orders_daily": "300", "orders_raw": "100", "clicks": "200"} {
		tbl, _, err := store.CreateTable(ctx, catalog.CreateTableInput{TableRef: catalog.TableRef{Bucket: "shop", Namespace: []string{"prod"}, Name: name}, Format: catalog.FormatLance})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := obs.Put(observe.Observation{ObjectID: tbl.ID, Format: catalog.FormatLance, WorkerID: "w", ObservedAt: time.Now(),
			Attributes: []byte(`{"rows": ` + rows + `, "bytes": 1048576, "version": 1}`)}); err != nil {
			t.Fatal(err)
		}
	}

	bctx, logs := browserContext(t, execPath)
	step := func(name string, actions ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(bctx, actions...); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	step("sign in", signIn(srv.URL)...)
	step("press / and type",
		chromedp.Navigate(srv.URL+"/jobs"),
		chromedp.WaitVisible(tid("search-input")),
	)
	// One real key press: a keyDown that carries its text, as a keyboard
	// sends it (the page's preventDefault then keeps the "/" out of the box).
	if _, err := chromedp.Call(bctx, input.DispatchKeyEvent, input.DispatchKeyEventParams{Type: input.DispatchKeyEventTypeKeyDown, Key: "/", Code: "Slash", Text: "/", WindowsVirtualKeyCode: 191}); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Call(bctx, input.DispatchKeyEvent, input.DispatchKeyEventParams{Type: input.DispatchKeyEventTypeKeyUp, Key: "/", Code: "Slash", WindowsVirtualKeyCode: 191}); err != nil {
		t.Fatal(err)
	}
	if focused, err := chromedp.Run(bctx, chromedp.Evaluate[string](`document.activeElement.id + "=" + document.activeElement.value`)); err != nil || focused != "search=" {
		t.Fatalf("/ focused %q (id=value), %v", focused, err)
	}
	step("results as you type",
		chromedp.KeyEvent("orders"), // to the focused input: SendKeys reads the node while htmx changes its attributes (a race in chromedp)
		chromedp.WaitVisible(tid("search-hit")),
	)
	hits, err := chromedp.Run(bctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll('[data-testid="search-hit"] .search-name')].map(e => e.textContent)`))
	if slices.Sort(hits); err != nil || !slices.Equal(hits, []string{"orders_daily", "orders_raw"}) {
		t.Fatalf("hits %v, %v", hits, err)
	}
	step("a hit opens its table",
		chromedp.Click(chromedp.CSS(`[data-testid="search-hit-link"][href$="/orders_raw"]`)),
		chromedp.WaitVisible(tid("table-name")),
	)
	if name, _ := chromedp.Run(bctx, chromedp.Text(tid("table-name"))); name != "orders_raw" {
		t.Fatalf("opened %q", name)
	}

	order := func() []string {
		t.Helper()
		got, err := chromedp.Run(bctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll('[data-testid="table-row"]')].map(e => e.dataset.table)`))
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	step("sort by rows",
		chromedp.Navigate(srv.URL+"/buckets/shop/namespaces/prod"),
		chromedp.WaitVisible(tid("sort-link-rows")),
		chromedp.Click(tid("sort-link-rows")),
		chromedp.WaitVisible(chromedp.CSS(`th.sorted[data-testid="sort-rows"]`)),
	)
	first := order()
	if !slices.Equal(first, []string{"orders_raw", "clicks", "orders_daily"}) && !slices.Equal(first, []string{"orders_daily", "clicks", "orders_raw"}) {
		t.Fatalf("sorted by rows: %v", first)
	}
	dir, err := chromedp.Run(bctx, chromedp.Evaluate[string](`document.querySelector('[data-testid="sort-rows"]').getAttribute("aria-sort")`))
	if err != nil || (dir != "ascending" && dir != "descending") {
		t.Fatalf("aria-sort %q, %v", dir, err)
	}
	other := map[string]string{"ascending": "descending", "descending": "ascending"}[dir]
	step("the other direction",
		chromedp.Click(tid("sort-link-rows")),
		chromedp.WaitVisible(chromedp.CSS(`th[data-testid="sort-rows"][aria-sort="`+other+`"]`)),
	)
	url, err := chromedp.Run(bctx, chromedp.Location())
	if err != nil || !strings.Contains(url, "sort=rows") {
		t.Fatalf("URL %q does not keep the order (%v)", url, err)
	}
	flipped := order()
	step("reload", chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS(`th.sorted[data-testid="sort-rows"]`)))
	if again := order(); !slices.Equal(again, flipped) || slices.Equal(again, first) {
		t.Errorf("after a reload %v, before %v (first %v)", again, flipped, first)
	}
	failOnBrowserErrors(t, logs)
}
