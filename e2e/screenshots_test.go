package e2e

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
)

// screenshotsTimeout covers the bundled worker seeding the 20,000-row demo
// table and observing it before the pages are shot.
const screenshotsTimeout = 6 * time.Minute

// TestScreenshots captures the README's screenshots from a real floe with
// its bundled workers (demo data seeded by them, an Iceberg table by
// iceberg-go). It runs only when FLOE_SCREENSHOTS names the directory to
// write into:
//
//	FLOE_SCREENSHOTS=$PWD/docs/screenshots go test ./e2e -run TestScreenshots -count=1
func TestScreenshots(t *testing.T) {
	out := os.Getenv("FLOE_SCREENSHOTS")
	if out == "" {
		t.Skip("set FLOE_SCREENSHOTS to a directory to capture the README's screenshots")
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	execPath := chromium(t)
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("skipping: node is not on PATH (the bundled Lance worker is a Node program)")
	}
	f := startFloeForSnippets(t, node, snippetFloeOptions{withWorker: true})
	ctx, _ := browserContext(t, execPath)
	ctx, cancel := context.WithTimeout(ctx, screenshotsTimeout)
	defer cancel()
	step := func(name string, actions ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(ctx, actions...); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	step("sign in",
		chromedp.Navigate(f.url+"/login"),
		chromedp.WaitVisible(tid("login-form")),
		chromedp.SendKeys(chromedp.CSS(`#username`), "admin"),
		chromedp.SendKeys(chromedp.CSS(`#password`), adminPassword),
		chromedp.Click(tid("login-submit")),
		chromedp.WaitVisible(tid("nav-buckets")),
	)
	demo := f.url + "/buckets/demo/namespaces/docs/tables/docs"
	// The bundled worker seeds the demo table in 12 appends (version 12);
	// Compact now then gives the pages a finished job and a fresh
	// observation to show.
	for deadline := time.Now().Add(3 * time.Minute); ; {
		_ = chromedp.Do(ctx, chromedp.Navigate(demo))
		v, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`(document.querySelector('[data-testid="meta-version"]') || {}).textContent || ""`))
		if strings.TrimSpace(v) == "12" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the demo table never reached version 12 (last %q)", v)
		}
		time.Sleep(2 * time.Second)
	}
	step("compact the demo table",
		chromedp.WaitVisible(tid("compact-now-button")),
		chromedp.Click(tid("compact-now-button")),
		chromedp.WaitVisible(chromedp.CSS(`#compact-now [data-testid="job-progress"][data-state="succeeded"]`)),
	)
	for deadline := time.Now().Add(time.Minute); ; {
		txt, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`(document.querySelector('[data-testid="obs-rows"]') || {}).textContent || ""`))
		if strings.Contains(txt, "20,000") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the demo table was never observed with 20,000 rows (last %q)", txt)
		}
		time.Sleep(time.Second)
		_ = chromedp.Do(ctx, chromedp.Navigate(demo))
	}
	shots := []struct {
		name, url, wait, scheme, js string
	}{
		{"buckets", f.url + "/buckets", "nav-buckets", "light", ""},
		{"lance-table", demo, "table-metadata", "light", ""},
		{"browse-data", demo + "/data", "nav-buckets", "light", ""},
		// The scalar index form open: its column select comes from the schema.
		{"maintenance", demo + "/maintenance", "task-history", "light",
			`document.querySelector('[data-testid="form-create_scalar_index"]').open = true; document.querySelector('[data-testid="form-create_scalar_index"]').scrollIntoView(); undefined`},
		{"connect", demo + "/connect", "snippets", "light", ""},
		{"iceberg-table", f.url + "/buckets/snip-lake/namespaces/sales/tables/events", "table-metadata", "light", ""},
		{"jobs", f.url + "/jobs", "nav-jobs", "light", ""},
		{"lance-table-dark", demo, "table-metadata", "dark", ""},
	}
	for _, s := range shots {
		if _, err := chromedp.Call(ctx, emulation.SetDeviceMetricsOverride,
			emulation.SetDeviceMetricsOverrideParams{Width: 1280, Height: 860, DeviceScaleFactor: 1}); err != nil {
			t.Fatal(err)
		}
		if _, err := chromedp.Call(ctx, emulation.SetEmulatedMedia,
			emulation.SetEmulatedMediaParams{Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: s.scheme}}}); err != nil {
			t.Fatal(err)
		}
		step("open "+s.name, chromedp.Navigate(s.url), chromedp.WaitVisible(tid(s.wait)), chromedp.Sleep(time.Second)) // htmx fragments settle
		if s.js != "" {
			step("arrange "+s.name, chromedp.Evaluate[chromedp.Void](s.js))
		}
		png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(out, s.name+".png"), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
