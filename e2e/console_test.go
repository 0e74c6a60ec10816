// Package e2e drives the real console in a real Chromium through chromedp:
// one journey per user-facing feature. Behaviour belongs in the httptest
// suites; these prove the pieces work together in a browser under the CSP.
package e2e

import (
	"context"
	"io"
	"log/slog"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/internal/dbschema"
	"github.com/floe/floe/internal/runtest"
	"github.com/floe/floe/persist/persisttest"
	"github.com/floe/floe/web"
)

// journeyTimeout bounds one journey; every wait inside is on an element, so
// this only runs out when something is actually stuck.
const journeyTimeout = 90 * time.Second

const adminPassword = "e2e-admin-password"

func chromium(t *testing.T) string {
	t.Helper()
	path, err := exec.LookPath("chromium")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("chromium is not on PATH and CI=true: install it (apt-get install chromium) — browser journeys must run in CI")
		}
		t.Skip("skipping browser journey: chromium is not on PATH (apt-get install chromium to run it)")
	}
	return path
}

// startConsole serves the real console handler on 127.0.0.1 over a temp catalog.
func startConsole(t *testing.T) (*httptest.Server, *catalog.Store) {
	t.Helper()
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
	s, err := web.New(web.Config{
		DB:       pdb,
		Store:    store,
		Logger:   slog.New(slog.NewTextHandler(io.Discard, nil)),
		Surfaces: web.Surfaces{Console: "127.0.0.1:9400", Lance: "127.0.0.1:9101", Iceberg: "127.0.0.1:8181"},
	})
	if err != nil {
		t.Fatal(err)
	}
	runtest.Start(t, s)
	srv := httptest.NewServer(s.Handler()) // binds 127.0.0.1
	t.Cleanup(srv.Close)
	return srv, store
}

// signIn signs in as admin on the console at base and waits for the
// navigation a signed-in page has.
func signIn(base string) []chromedp.Action[chromedp.Void] {
	return []chromedp.Action[chromedp.Void]{
		chromedp.Navigate(base + "/login"),
		chromedp.WaitVisible(tid("login-form")),
		chromedp.SendKeys(chromedp.CSS(`#username`), "admin"),
		chromedp.SendKeys(chromedp.CSS(`#password`), adminPassword),
		chromedp.Click(tid("login-submit")),
		chromedp.WaitVisible(tid("nav-jobs")),
	}
}

// browserContext starts Chromium with the flags the closed network needs and
// saves a screenshot and the DOM when the test fails.
func browserContext(t *testing.T, execPath string) (context.Context, *consoleLog) {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(execPath),
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.WindowSize(1280, 900),
	)
	if os.Geteuid() == 0 {
		opts = append(opts, chromedp.NoSandbox)
	}
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancelAlloc)
	ctx, cancelCtx := chromedp.NewContext(allocCtx)
	t.Cleanup(cancelCtx)
	ctx, cancelTimeout := context.WithTimeout(ctx, journeyTimeout)
	t.Cleanup(cancelTimeout)

	logs := &consoleLog{}
	if err := chromedp.Listen(ctx, logs.record); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Call(ctx, cdplog.Enable, cdp.Empty{}); err != nil {
		t.Fatalf("enable log domain: %v", err)
	}
	// Cleanups run last-in first-out: this one runs while the tab is alive.
	t.Cleanup(func() {
		if !t.Failed() {
			return
		}
		dir := t.ArtifactDir()
		shotCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer cancel()
		if png, err := chromedp.Run(shotCtx, chromedp.CaptureScreenshot()); err == nil {
			_ = os.WriteFile(filepath.Join(dir, "failure.png"), png, 0o644)
		}
		if html, err := chromedp.Run(shotCtx, chromedp.OuterHTML(chromedp.CSS("html"))); err == nil {
			_ = os.WriteFile(filepath.Join(dir, "failure.html"), []byte(html), 0o644)
		}
		_ = os.WriteFile(filepath.Join(dir, "console.log"), []byte(strings.Join(logs.all(), "\n")), 0o644)
		t.Logf("failure artifacts in %s", dir)
	})
	return ctx, logs
}

// consoleLog collects browser console output and exceptions; CSP violations
// show up here, so the journey can assert there were none.
type consoleLog struct {
	mu    sync.Mutex
	lines []string
}

func (c *consoleLog) record(ev any) {
	var line string
	switch e := ev.(type) {
	case *cdplog.EventEntryAdded:
		line = string(e.Entry.Level) + ": " + e.Entry.Text
	case *runtime.EventExceptionThrown:
		line = "exception: " + e.ExceptionDetails.Text
		if e.ExceptionDetails.Exception != nil {
			line += " " + e.ExceptionDetails.Exception.Description
		}
	case *runtime.EventConsoleAPICalled:
		line = "console." + string(e.Type)
		for _, a := range e.Args {
			line += " " + string(a.Value) + a.Description
		}
	default:
		return
	}
	c.mu.Lock()
	c.lines = append(c.lines, line)
	c.mu.Unlock()
}

func (c *consoleLog) all() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.lines...)
}

func tid(id string) chromedp.CSS { return chromedp.CSS(`[data-testid="` + id + `"]`) }

// TestJourneyLanceBucketToConnect signs in, creates a Lance bucket through its
// format card, a namespace and a declared table, sees the table listed with
// its format, and copies a Connect snippet.
func TestJourneyLanceBucketToConnect(t *testing.T) {
	if testing.Short() {
		t.Skip("browser journey skipped in -short mode")
	}
	execPath := chromium(t)
	srv, store := startConsole(t)
	ctx, logs := browserContext(t, execPath)

	step := func(name string, actions ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(ctx, actions...); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}

	step("sign in",
		chromedp.Navigate(srv.URL+"/buckets"),
		chromedp.WaitVisible(tid("login-form")),
		chromedp.SendKeys(chromedp.CSS(`#username`), "admin"),
		chromedp.SendKeys(chromedp.CSS(`#password`), adminPassword),
		chromedp.Click(tid("login-submit")),
		chromedp.WaitVisible(tid("open-create-bucket")),
	)
	step("open the create dialog and pick the Lance card",
		chromedp.Click(tid("open-create-bucket")),
		chromedp.WaitVisible(tid("create-bucket-dialog")),
		chromedp.SendKeys(tid("bucket-name-input"), "e2e-vectors"),
		chromedp.Click(tid("format-card-LANCE")),
		// The hint is an htmx partial: it proves htmx runs under the CSP.
		chromedp.WaitVisible(tid("endpoint-hint-url")),
	)
	hint, err := chromedp.Run(ctx, chromedp.Text(tid("endpoint-hint-url")))
	if err != nil || hint != "http://127.0.0.1:9101" {
		t.Fatalf("endpoint hint %q, %v", hint, err)
	}
	step("create the bucket",
		chromedp.Click(tid("create-bucket-submit")),
		chromedp.WaitVisible(tid("create-namespace-form")),
	)
	if b, err := store.GetBucket(context.Background(), "e2e-vectors"); err != nil || b.Format != catalog.FormatLance {
		t.Fatalf("bucket after the journey: %+v %v", b, err)
	}
	step("create a namespace",
		chromedp.SendKeys(tid("namespace-input"), "prod"),
		chromedp.Click(tid("create-namespace-submit")),
		chromedp.WaitVisible(tid("declare-table-form")),
	)
	step("declare a table",
		chromedp.SendKeys(tid("table-name-input"), "items"),
		chromedp.Click(tid("declare-table-submit")),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="table-row"][data-table="items"]`)),
	)
	format, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-table="items"] [data-testid="format-badge"]`)))
	if err != nil || format != "Lance" {
		t.Fatalf("listed format %q, %v", format, err)
	}

	// Let the page's clipboard write succeed without a permission prompt.
	if _, err := chromedp.CallBrowser(ctx, browser.SetPermission, browser.SetPermissionParams{
		Permission: &browser.PermissionDescriptor{Name: "clipboard-write", AllowWithoutSanitization: true},
		Setting:    browser.PermissionSettingGranted,
		Origin:     srv.URL,
	}); err != nil {
		t.Logf("clipboard permission not granted (the page falls back to execCommand): %v", err)
	}
	step("copy a Connect snippet",
		chromedp.Click(tid("nav-connect")),
		chromedp.WaitVisible(tid("copy-lancedb-js")),
		chromedp.Click(tid("copy-lancedb-js")),
	)
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`document.querySelector('[data-testid="copy-lancedb-js"]').textContent === "Copied"`)); err != nil {
		label, _ := chromedp.Run(ctx, chromedp.Text(tid("copy-lancedb-js")))
		t.Fatalf("copy button shows %q, want Copied: %v", label, err)
	}
	for _, l := range logs.all() {
		t.Logf("browser: %s", l)
		if strings.Contains(l, "Content Security Policy") || strings.HasPrefix(l, "exception:") {
			t.Errorf("browser reported: %s", l)
		}
	}
}
