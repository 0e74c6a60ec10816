package e2e

import (
	_ "embed"
	"encoding/json"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
)

//go:embed testdata/layout_check.js
var layoutCheckJS string

// minContrast is WCAG 2 AA for normal text (1.4.3); every console text is
// held to it, badges included, whatever their size.
const minContrast = 4.5

type layoutReport struct {
	ScrollWidth int      `json:"scrollWidth"`
	InnerWidth  int      `json:"innerWidth"`
	Fails       []string `json:"fails"`
	Badges      []string `json:"badges"`
	Wide        []string `json:"wide"`
	Misaligned  []string `json:"misaligned"` // headers of numeric columns not aligned right
	Bands       []string `json:"bands"`      // bars stretched into blank bands
	Dark        bool     `json:"dark"`
}

// TestJourneyLayout visits every console page (27 signed in, and the sign-in
// page) at a desktop (1,440 px) and a phone (390 px) width, in the light
// and the dark color scheme, and fails when a page is wider than the
// viewport, a text (every badge variant included) is below 4.5:1 against
// its background, a numeric column's header is not right-aligned like its
// cells, or a bar is stretched into a blank band on a short page.
func TestJourneyLayout(t *testing.T) {
	if testing.Short() {
		t.Skip("browser journey skipped in -short mode")
	}
	execPath := chromium(t)
	c := startLayoutConsole(t)
	ctx, logs := browserContext(t, execPath)

	tbl := "/buckets/" + longBucket + "/namespaces/docs/tables/" + longTable
	pages := []string{
		"/buckets",
		"/buckets/" + longBucket,
		"/buckets/" + longBucket + "/namespaces/docs",
		tbl,
		tbl + "/data",
		tbl + "/maintenance",
		tbl + "/connect",
		"/buckets/layout-lake",
		"/buckets/layout-lake/namespaces/sales",
		"/buckets/layout-lake/namespaces/sales/tables/events",
		"/buckets/layout-lake/namespaces/sales/tables/events/data",
		"/buckets/layout-lake/namespaces/sales/tables/events/maintenance",
		"/buckets/layout-lake/namespaces/sales/tables/events/connect",
		"/buckets/layout-lake/namespaces/sales/tables/events/schema",
		"/buckets/layout-lake/namespaces/sales/tables/events/activity",
		"/buckets/layout-lake/namespaces/sales/tables/events/access",
		"/buckets/layout-lake/namespaces/sales/access",
		"/buckets/layout-lake/access",
		"/search?q=events",
		"/activity",
		"/connect",
		"/api-keys",
		"/users",
		"/workers",
		"/job-types/lance_compact",
		"/jobs",
		"/jobs/" + c.longJob,
	}
	if err := chromedp.Do(ctx,
		chromedp.Navigate(c.url+"/login"),
		chromedp.WaitVisible(tid("login-form")),
		chromedp.SendKeys(chromedp.CSS(`#username`), "admin"),
		chromedp.SendKeys(chromedp.CSS(`#password`), adminPassword),
		chromedp.Click(tid("login-submit")),
		chromedp.WaitVisible(tid("nav-buckets")),
	); err != nil {
		t.Fatalf("sign in: %v", err)
	}
	// The badge variants the pages above must show, so the contrast check
	// cannot pass by finding none.
	wantBadges := map[string]bool{"job-succeeded": false, "job-failed": false, "job-running": false, "job-canceled": false,
		"job-pending": false, "job-completed": false, "lance": false, "iceberg": false, "role": false, "worker-connected": false}
	// measure checks the page the browser is on.
	measure := func(p string, width int64, scheme string) {
		t.Helper()
		raw, err := chromedp.Run(ctx, chromedp.Evaluate[string](layoutCheckJS))
		if err != nil {
			t.Fatalf("%s: measure: %v", p, err)
		}
		var r layoutReport
		if err := json.Unmarshal([]byte(raw), &r); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		where := p + " at " + itoa(int(width)) + " px, " + scheme
		if r.Dark != (scheme == "dark") {
			t.Fatalf("%s: color scheme not applied", where)
		}
		// A phone widens its layout viewport (innerWidth) to fit a
		// page that does not fit, so both count against the width.
		if r.ScrollWidth > int(width) || r.InnerWidth > int(width) {
			t.Errorf("%s: page is %d px wide (innerWidth %d) in a %d px viewport; sticking out: %v", where, r.ScrollWidth, r.InnerWidth, width, r.Wide)
		}
		if len(r.Bands) > 0 {
			t.Errorf("%s: blank band: %v", where, r.Bands)
		}
		if len(r.Misaligned) > 0 {
			t.Errorf("%s: numeric column headers not right-aligned: %v", where, r.Misaligned)
		}
		if len(r.Fails) > 0 {
			t.Errorf("%s: text below %.1f:1:\n  %s", where, minContrast, strings.Join(r.Fails, "\n  "))
		}
		for _, b := range r.Badges {
			for _, class := range strings.Fields(strings.SplitN(b, " [", 2)[0]) {
				if _, ok := wantBadges[class]; ok {
					wantBadges[class] = true
				}
			}
		}
	}
	emulate := func(width int64, scheme string) {
		t.Helper()
		if _, err := chromedp.Call(ctx, emulation.SetDeviceMetricsOverride,
			emulation.SetDeviceMetricsOverrideParams{Width: width, Height: 900, DeviceScaleFactor: 1, Mobile: width < 600}); err != nil {
			t.Fatalf("emulate %d px: %v", width, err)
		}
		if _, err := chromedp.Call(ctx, emulation.SetEmulatedMedia,
			emulation.SetEmulatedMediaParams{Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme}}}); err != nil {
			t.Fatalf("emulate %s: %v", scheme, err)
		}
	}
	for _, width := range []int64{1440, 390} {
		for _, scheme := range []string{"light", "dark"} {
			emulate(width, scheme)
			for _, p := range pages {
				if err := chromedp.Do(ctx, chromedp.Navigate(c.url+p), chromedp.WaitReady(tid("nav-buckets"))); err != nil {
					t.Fatalf("%s at %d px %s: %v", p, width, scheme, err)
				}
				measure(p, width, scheme)
			}
		}
	}
	// The new panels were measured with content, not their empty states.
	for p, ids := range map[string][]string{tbl: {"trend-rows", "trend-bytes", "tag-row"}, "/buckets/layout-lake/namespaces/sales/tables/events/schema": {"schema-diff-table"}} {
		if err := chromedp.Do(ctx, chromedp.Navigate(c.url+p), chromedp.WaitReady(tid("nav-buckets"))); err != nil {
			t.Fatal(err)
		}
		for _, id := range ids {
			if n, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('[data-testid="`+id+`"]').length`)); err != nil || n == 0 {
				t.Errorf("%s: no %s (%v)", p, id, err)
			}
		}
	}
	// The one page seen signed out.
	if err := chromedp.Do(ctx, chromedp.Click(tid("sign-out")), chromedp.WaitVisible(tid("login-form"))); err != nil {
		t.Fatalf("sign out: %v", err)
	}
	for _, width := range []int64{1440, 390} {
		for _, scheme := range []string{"light", "dark"} {
			emulate(width, scheme)
			if err := chromedp.Do(ctx, chromedp.Navigate(c.url+"/login"), chromedp.WaitVisible(tid("login-form"))); err != nil {
				t.Fatalf("/login at %d px %s: %v", width, scheme, err)
			}
			measure("/login", width, scheme)
		}
	}
	for class, seen := range wantBadges {
		if !seen {
			t.Errorf("no %q badge on any page: the journey no longer covers that variant", class)
		}
	}
	for _, l := range logs.all() {
		if strings.Contains(l, "Content Security Policy") {
			t.Errorf("CSP violation: %s", l)
		}
	}
}
