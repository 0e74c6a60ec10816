package e2e

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/internal/dbschema"
	"github.com/floe/floe/internal/runtest"
	"github.com/floe/floe/observe"
	"github.com/floe/floe/persist"
	"github.com/floe/floe/persist/persisttest"
	"github.com/floe/floe/plugin"
	"github.com/floe/floe/web"
)

// TestJourneyTrendChart opens a table with three kept observations and
// sees its rows and size charts drawn — a line across the plot, a y-axis
// with units — in light and dark, with no CSP violation or console error.
func TestJourneyTrendChart(t *testing.T) {
	if testing.Short() {
		t.Skip("browser journey skipped in -short mode")
	}
	execPath := chromium(t)
	srv, store, obs := startObservedConsole(t)
	ctx := context.Background()

	if _, err := store.CreateBucket(ctx, catalog.CreateBucketInput{Name: "trends", Format: catalog.FormatLance}); err != nil {
		t.Fatal(err)
	}
	if _, err := store.CreateNamespace(ctx, "trends", []string{"prod"}, nil); err != nil {
		t.Fatal(err)
	}
	tbl, _, err := store.CreateTable(ctx, catalog.CreateTableInput{TableRef: catalog.TableRef{Bucket: "trends", Namespace: []string{"prod"}, Name: "docs"}, Format: catalog.FormatLance})
	if err != nil {
		t.Fatal(err)
	}
	for i, attrs := range []string{`{"rows": 1000, "bytes": 3145728, "version": 1}`, `{"rows": 8000, "bytes": 25165824, "version": 2}`, `{"rows": 20000, "bytes": 62914560, "version": 3}`} {
		if _, err := obs.Put(observe.Observation{ObjectID: tbl.ID, Format: catalog.FormatLance, WorkerID: "w",
			ObservedAt: time.Now().Add(time.Duration(i-3) * time.Hour), Attributes: json.RawMessage(attrs)}); err != nil {
			t.Fatal(err)
		}
		if err := obs.Flush(ctx); err != nil {
			t.Fatal(err)
		}
	}

	bctx, logs := browserContext(t, execPath)
	if err := chromedp.Do(bctx, signIn(srv.URL)...); err != nil {
		t.Fatalf("sign in: %v", err)
	}
	strokes := map[string]string{}
	for _, scheme := range []string{"light", "dark"} {
		if _, err := chromedp.Call(bctx, emulation.SetEmulatedMedia,
			emulation.SetEmulatedMediaParams{Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme}}}); err != nil {
			t.Fatal(err)
		}
		if err := chromedp.Do(bctx, chromedp.Navigate(srv.URL+"/buckets/trends/namespaces/prod/tables/docs"),
			chromedp.WaitVisible(tid("trend-rows")), chromedp.WaitVisible(tid("trend-bytes"))); err != nil {
			t.Fatalf("%s: table page: %v", scheme, err)
		}
		for _, id := range []string{"trend-rows", "trend-bytes"} {
			sel := `[data-testid="` + id + `"]`
			// The line spans most of the plot's width and is drawn in a
			// colour, not the default black.
			width, err := chromedp.Run(bctx, chromedp.Evaluate[float64](`document.querySelector('`+sel+` polyline').getBBox().width`))
			if err != nil || width < 0.8*560 {
				t.Errorf("%s %s: line %.0f wide (%v)", scheme, id, width, err)
			}
			stroke, err := chromedp.Run(bctx, chromedp.Evaluate[string](`getComputedStyle(document.querySelector('`+sel+` polyline')).stroke`))
			if err != nil || stroke == "" || stroke == "none" || stroke == "rgb(0, 0, 0)" {
				t.Errorf("%s %s: stroke %q (%v)", scheme, id, stroke, err)
			}
			strokes[scheme+id] = stroke
			ticks, err := chromedp.Run(bctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll('`+sel+` [data-testid="trend-ytick"]')].map(e => e.textContent)`))
			if err != nil || len(ticks) < 2 {
				t.Errorf("%s %s: y-axis %v (%v)", scheme, id, ticks, err)
			}
			if id == "trend-bytes" && (len(ticks) == 0 || !strings.HasSuffix(ticks[len(ticks)-1], "MiB")) {
				t.Errorf("%s: size axis %v, want MiB", scheme, ticks)
			}
		}
	}
	if strokes["lighttrend-rows"] == strokes["darktrend-rows"] {
		t.Errorf("the rows line keeps %s in dark mode", strokes["darktrend-rows"])
	}
	failOnBrowserErrors(t, logs)
}

// failOnBrowserErrors fails the journey on a CSP violation, an exception,
// an error logged to the console or any htmx event in the log
// (htmx:*Error).
func failOnBrowserErrors(t *testing.T, logs *consoleLog) {
	t.Helper()
	for _, l := range logs.all() {
		t.Logf("browser: %s", l)
		if strings.Contains(l, "Content Security Policy") || strings.HasPrefix(l, "exception:") || strings.HasPrefix(l, "error:") ||
			strings.HasPrefix(l, "console.error") || strings.Contains(l, "htmx:") {
			t.Errorf("browser reported: %s", l)
		}
	}
}

// startObservedConsole serves the console with an observation store and
// the plugin (which serves the pages' live updates) over a temp catalog.
func startObservedConsole(t *testing.T) (*httptest.Server, *catalog.Store, *observe.Store) {
	t.Helper()
	srv, store, obs, _ := startObservedConsoleDB(t)
	return srv, store, obs
}

// startObservedConsoleDB is startObservedConsole also handing out the
// database, for journeys that seed records no public call makes quickly
// (finished jobs of the past day).
func startObservedConsoleDB(t *testing.T) (*httptest.Server, *catalog.Store, *observe.Store, *persist.DB) {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	pdb := persisttest.OpenAt(t, filepath.Join(dir, "catalog.db"), dbschema.All()...)
	store, err := catalog.New(pdb, catalog.Options{Warehouse: filepath.Join(dir, "warehouse")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	if _, _, err := store.EnsureAdmin(ctx, adminPassword); err != nil {
		t.Fatal(err)
	}
	obs, err := observe.New(pdb, 0)
	if err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	p, err := plugin.New(plugin.Config{DB: pdb, Store: store, Observe: obs, Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	// The plugin serves the page's live updates (/live); without it they
	// answer 503 and the browser logs it.
	s, err := web.New(web.Config{DB: pdb, Store: store, Logger: log, Observe: obs, Plugin: p,
		Surfaces: web.Surfaces{Console: "127.0.0.1:9400", Lance: "127.0.0.1:9101", Iceberg: "127.0.0.1:8181"}})
	if err != nil {
		t.Fatal(err)
	}
	runtest.Start(t, obs, p, s)
	t.Cleanup(func() {
		sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = p.Shutdown(sctx)
	})
	srv := httptest.NewServer(s.Handler()) // binds 127.0.0.1
	t.Cleanup(srv.Close)
	return srv, store, obs, pdb
}
