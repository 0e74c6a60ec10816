package e2e

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestJourneyHealthFix: the seeded Lance table's small fragments show on
// its health badge, Fix runs the compaction, and the badge turns healthy
// without a reload. The table has journeyFragments (7) small fragments:
// "attention" under the default min_fragments 8. The journey then turns
// scheduled compaction off and lowers min_fragments to 7 on the job type's
// settings page — the badge follows the setting to "needs maintenance"
// while no detection can compact the table before Fix is pressed.
func TestJourneyHealthFix(t *testing.T) {
	if testing.Short() {
		t.Skip("browser journey skipped in -short mode")
	}
	execPath := chromium(t)
	url := startFloeWithWorker(t).url
	ctx, logs := browserContext(t, execPath)
	ctx, cancel := context.WithTimeout(ctx, maintenanceJourneyTimeout)
	defer cancel()
	step := func(name string, actions ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(ctx, actions...); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	table := url + "/buckets/jrny/namespaces/docs/tables/items"
	badge := `#health-panel [data-testid="health-badge"]`
	step("sign in", signIn(url)...)
	// The worker observes the table when it connects; reload until the badge says so.
	state := ""
	for deadline := time.Now().Add(2 * time.Minute); state != "attention"; {
		_ = chromedp.Do(ctx, chromedp.Navigate(table))
		if err := chromedp.Do(ctx, chromedp.WaitVisible(tid("table-name"))); err == nil {
			state, _ = chromedp.Run(ctx, chromedp.Evaluate[string](`(document.querySelector('`+badge+`') || {dataset: {}}).dataset.health || ""`))
		}
		if state == "attention" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the badge never said attention (last %q)", state)
		}
		time.Sleep(time.Second)
	}
	reason, _ := chromedp.Run(ctx, chromedp.Text(tid("health-reason")))
	if !strings.Contains(reason, "small fragments") {
		t.Fatalf("reason %q", reason)
	}
	step("lower min_fragments to 7 with scheduled detection off",
		chromedp.Navigate(url+"/job-types/lance_compact"),
		chromedp.WaitVisible(tid("settings-form")),
		chromedp.Evaluate[chromedp.Void](`document.getElementById("in-rt_enabled").checked = false; document.getElementById("in-s_min_fragments").value = "7"; undefined`),
		chromedp.Click(tid("settings-submit")),
		chromedp.WaitVisible(tid("settings-saved")),
	)
	for deadline := time.Now().Add(30 * time.Second); state != "needs-maintenance"; {
		_ = chromedp.Do(ctx, chromedp.Navigate(table))
		if err := chromedp.Do(ctx, chromedp.WaitVisible(tid("table-name"))); err == nil {
			state, _ = chromedp.Run(ctx, chromedp.Evaluate[string](`(document.querySelector('`+badge+`') || {dataset: {}}).dataset.health || ""`))
		}
		if state == "needs-maintenance" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the badge never said needs maintenance after the setting changed (last %q)", state)
		}
		time.Sleep(500 * time.Millisecond)
	}
	if shots := os.Getenv("FLOE_E2E_SHOTS"); shots != "" {
		if png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot()); err == nil {
			_ = os.WriteFile(filepath.Join(shots, "health-table-before.png"), png, 0o644)
		}
	}
	// Fix swaps the panel out; a socket closed while still connecting makes
	// the browser report an error event, so the press waits for the open.
	step("mark the page so a reload would show, then press Fix once the panel is live",
		chromedp.Evaluate[chromedp.Void](`window.floeNoReload = "kept"; undefined`),
		chromedp.WaitVisible(tid("health-fix-button")),
		chromedp.WaitReady(chromedp.CSS(`#health-fix[data-live="open"]`)),
		chromedp.Click(tid("health-fix-button")),
		chromedp.WaitVisible(chromedp.CSS(`#health-fix [data-testid="job-progress"]`)),
	)
	step("the badge turns healthy live",
		chromedp.WaitVisible(chromedp.CSS(badge+`[data-health="healthy"]`)),
	)
	marker, err := chromedp.Run(ctx, chromedp.Evaluate[string](`window.floeNoReload || ""`))
	if err != nil {
		t.Fatal(err)
	}
	if marker != "kept" {
		t.Fatalf("the page reloaded (marker %q)", marker)
	}
	for _, l := range logs.all() {
		if strings.Contains(l, "Content Security Policy") || strings.Contains(l, "exception") || strings.HasPrefix(l, "console.error") || strings.HasPrefix(l, "error") {
			t.Errorf("browser console: %s", l)
		}
	}
	shots := os.Getenv("FLOE_E2E_SHOTS") // a directory: save what the journey saw, for a look
	if shots == "" {
		return
	}
	for _, page := range []struct{ name, url, wait string }{
		{"health-table", table, "health-panel"},
		{"health-namespace", url + "/buckets/jrny/namespaces/docs", "tables-table"},
		{"health-buckets", url + "/buckets", "buckets-table"},
	} {
		step("screenshot "+page.name, chromedp.Navigate(page.url), chromedp.WaitVisible(tid(page.wait)))
		png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
		if err != nil {
			t.Fatal(err)
		}
		_ = os.WriteFile(filepath.Join(shots, page.name+".png"), png, 0o644)
	}
}

// TestJourneyHealthFixAsksBeforeDeleting: with version cleanup due (retention
// 0 h, keep 1, scheduled detection off), Fix asks before it runs a job that
// deletes old versions; declining submits nothing, accepting runs the jobs
// and the badge leaves "needs maintenance" without a reload. (Compaction
// and cleanup run side by side; whichever ends last decides whether one
// version made in between is left reclaimable, so "attention" is accepted.)
func TestJourneyHealthFixAsksBeforeDeleting(t *testing.T) {
	if testing.Short() {
		t.Skip("browser journey skipped in -short mode")
	}
	execPath := chromium(t)
	url := startFloeWithWorker(t).url
	ctx, logs := browserContext(t, execPath)
	ctx, cancel := context.WithTimeout(ctx, maintenanceJourneyTimeout)
	defer cancel()
	step := func(name string, actions ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(ctx, actions...); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	table := url + "/buckets/jrny/namespaces/docs/tables/items"
	badge := `#health-panel [data-testid="health-badge"]`
	step("sign in", signIn(url)...)
	// The worker observes the table when it connects (and has described its
	// job types by then): wait for the badge, then open the settings form.
	state := ""
	for deadline := time.Now().Add(2 * time.Minute); state == "" || state == "unknown"; {
		_ = chromedp.Do(ctx, chromedp.Navigate(table))
		if err := chromedp.Do(ctx, chromedp.WaitVisible(tid("table-name"))); err == nil {
			state, _ = chromedp.Run(ctx, chromedp.Evaluate[string](`(document.querySelector('`+badge+`') || {dataset: {}}).dataset.health || ""`))
		}
		if state != "" && state != "unknown" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the table was never observed (badge %q)", state)
		}
		time.Sleep(time.Second)
	}
	step("open the cleanup settings", chromedp.Navigate(url+"/job-types/lance_cleanup"), chromedp.WaitVisible(tid("settings-form")))
	step("retention 0 h, keep 1, scheduled detection off",
		chromedp.Evaluate[chromedp.Void](`document.getElementById("in-rt_enabled").checked = false; document.getElementById("in-s_retain_hours").value = "0"; document.getElementById("in-s_min_versions_to_keep").value = "1"; undefined`),
		chromedp.Click(tid("settings-submit")),
		chromedp.WaitVisible(tid("settings-saved")),
	)
	for deadline := time.Now().Add(2 * time.Minute); state != "needs-maintenance"; {
		_ = chromedp.Do(ctx, chromedp.Navigate(table))
		if err := chromedp.Do(ctx, chromedp.WaitVisible(tid("table-name"))); err == nil {
			state, _ = chromedp.Run(ctx, chromedp.Evaluate[string](`(document.querySelector('`+badge+`') || {dataset: {}}).dataset.health || ""`))
		}
		if state == "needs-maintenance" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the badge never said needs maintenance (last %q)", state)
		}
		time.Sleep(time.Second)
	}
	step("decline the question",
		chromedp.Evaluate[chromedp.Void](`window.floeNoReload = "kept"; window.confirm = function (q) { window.floeAsked = q; return false; }; undefined`),
		chromedp.WaitVisible(tid("health-fix-button")),
		chromedp.Click(tid("health-fix-button")),
	)
	time.Sleep(2 * time.Second) // a request, had one gone, would have swapped in its jobs by now
	asked, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`window.floeAsked || ""`))
	if !strings.Contains(asked, "lance_cleanup") || !strings.Contains(asked, "deletes data") {
		t.Fatalf("Fix asked %q", asked)
	}
	if n, _ := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('#health-fix [data-testid="job-progress"]').length`)); n != 0 {
		t.Fatalf("declining still ran %d jobs", n)
	}
	step("accept, and the badge leaves needs maintenance live",
		chromedp.Evaluate[chromedp.Void](`window.confirm = function () { return true; }; undefined`),
		chromedp.Click(tid("health-fix-button")),
		chromedp.WaitVisible(chromedp.CSS(`#health-fix [data-testid="job-progress"]`)),
		chromedp.WaitVisible(chromedp.CSS(badge+`:not([data-health="needs-maintenance"])`)),
	)
	// The panels refresh after each job; let the last one land.
	final := ""
	for deadline := time.Now().Add(time.Minute); ; {
		final, _ = chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector('`+badge+`').dataset.health`))
		running, _ := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('#health-fix [data-testid="job-progress"]').length`))
		if running == 0 && (final == "healthy" || final == "attention") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after Fix: badge %q, %d jobs still shown", final, running)
		}
		time.Sleep(300 * time.Millisecond)
	}
	if marker, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`window.floeNoReload || ""`)); marker != "kept" {
		t.Fatalf("the page reloaded (marker %q)", marker)
	}
	for _, l := range logs.all() {
		if strings.Contains(l, "Content Security Policy") || strings.Contains(l, "exception") || strings.HasPrefix(l, "console.error") || strings.HasPrefix(l, "error") {
			t.Errorf("browser console: %s", l)
		}
	}
	t.Logf("badge after Fix: %s", final)
}
