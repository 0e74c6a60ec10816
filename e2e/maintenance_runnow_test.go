package e2e

import (
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// runNowJourneyTimeout covers building floe, the bundled workers seeding
// the demo table, and two maintenance jobs on a loaded machine.
const runNowJourneyTimeout = 8 * time.Minute

// TestJourneyMaintenanceRunNow: on an Iceberg table's Maintenance tab, Run
// now of a job that deletes asks first (declining submits nothing); a job
// started there ends with its outcome on the same tab — the live refresh
// reloads the Maintenance tab, never the table page into it; a task
// submitted on a Lance table's Maintenance tab completes in place. No step
// logs a CSP violation, an exception, a console error or an htmx error
// (htmx:oobErrorNoTarget among them).
func TestJourneyMaintenanceRunNow(t *testing.T) {
	if testing.Short() {
		t.Skip("browser journey skipped in -short mode")
	}
	execPath := chromium(t)
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("skipping: node is not on PATH (the bundled Lance worker is a Node program)")
	}
	f := startFloeForSnippets(t, node, snippetFloeOptions{withWorker: true})
	ctx, logs := browserContext(t, execPath)
	ctx, cancel := context.WithTimeout(ctx, runNowJourneyTimeout)
	defer cancel()
	step := func(name string, actions ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(ctx, actions...); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	eval := func(js string) string {
		t.Helper()
		s, err := chromedp.Run(ctx, chromedp.Evaluate[string](js))
		if err != nil {
			t.Fatalf("%s: %v", js, err)
		}
		return s
	}
	step("sign in", signIn(f.url)...)

	ice := f.url + "/buckets/snip-lake/namespaces/sales/tables/events/maintenance"
	for deadline := time.Now().Add(3 * time.Minute); ; {
		step("open the Iceberg Maintenance tab", chromedp.Navigate(ice), chromedp.WaitVisible(tid("iceberg-actions")))
		if eval(`document.querySelector('[data-testid="no-iceberg-worker"]') ? "waiting" : "ready"`) == "ready" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the bundled Iceberg worker never connected")
		}
		time.Sleep(time.Second)
	}
	jobsBefore := eval(`String(document.querySelectorAll('[data-testid="iceberg-job-row"]').length)`)
	step("decline Expire snapshots",
		chromedp.Evaluate[chromedp.Void](`window.confirm = function (q) { window.floeAsked = q; return false; }; undefined`),
		chromedp.Click(chromedp.CSS(`[data-testid="run-iceberg_expire_snapshots"] button`)),
	)
	if asked := eval(`window.floeAsked || ""`); !strings.Contains(asked, "Expire snapshots now?") {
		t.Fatalf("Expire snapshots asked %q", asked)
	}
	step("decline Remove orphan files",
		chromedp.Click(chromedp.CSS(`[data-testid="run-iceberg_remove_orphans"] button`)),
	)
	if asked := eval(`window.floeAsked || ""`); !strings.Contains(asked, "Remove orphan files now?") {
		t.Fatalf("Remove orphan files asked %q", asked)
	}
	step("reload", chromedp.Navigate(ice), chromedp.WaitVisible(tid("iceberg-actions")))
	if got := eval(`String(document.querySelectorAll('[data-testid="iceberg-job-row"]').length)`); got != jobsBefore {
		t.Fatalf("declining still started a job: %s rows, %s before", got, jobsBefore)
	}

	step("run Rewrite manifests (no question: it deletes nothing)",
		chromedp.Click(chromedp.CSS(`[data-testid="run-iceberg_rewrite_manifests"] button`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="iceberg-job-row"]`)),
	)
	job := eval(`document.querySelector('[data-testid="iceberg-job-row"]').dataset.job`)
	step("mark the page as loaded", chromedp.Evaluate[chromedp.Void](`document.getElementById("main").dataset.mark = "loaded"; undefined`))
	row := `[data-testid="iceberg-job-row"][data-job="` + job + `"]`
	// After the job the worker observes the table again, and the live
	// channel reloads the tab's panels (a fresh #main, without the mark):
	// the job's end, or the observation after it, whichever comes after the
	// page loaded. Wait for that reload, then look at what it put there.
	refreshed := false
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); {
		if eval(`document.getElementById("main").dataset.mark || ""`) == "" {
			refreshed = true
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	if !refreshed {
		t.Fatal("the tab never refreshed after the job ended and the table was observed again")
	}
	time.Sleep(1500 * time.Millisecond) // a second refresh (300 ms after its push) would have landed by now
	if h1 := eval(`document.querySelector("#main h1").textContent.trim()`); h1 != "Maintenance" {
		t.Fatalf("after the job the tab shows %q, not the Maintenance tab", h1)
	}
	if crumbs := eval(`document.querySelector('[data-testid="breadcrumb"]').textContent`); !strings.Contains(crumbs, "Maintenance") {
		t.Fatalf("breadcrumb %q lacks Maintenance", crumbs)
	}
	if st := eval(`(document.querySelector('` + row + `') || {dataset: {}}).dataset.state || ""`); st != "succeeded" {
		t.Fatalf("the job's row says %q, want succeeded", st)
	}
	if out := eval(`document.querySelector('` + row + ` [data-testid="iceberg-job-outcome"]').textContent.trim()`); out == "" {
		t.Fatal("the finished job shows no outcome")
	}

	lance := f.url + "/buckets/snip/namespaces/docs/tables/items/maintenance"
	step("submit a compact task on the Lance Maintenance tab",
		chromedp.Navigate(lance),
		chromedp.WaitVisible(tid("form-compact")),
		chromedp.Click(chromedp.CSS(`[data-testid="form-compact"] summary`)),
		chromedp.WaitVisible(tid("submit-compact")),
		chromedp.Click(tid("submit-compact")),
		chromedp.WaitVisible(tid("task-row")),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="task-row"][data-status="completed"]`)),
	)
	time.Sleep(1500 * time.Millisecond) // fragments pushed after the task ended land by now
	if h1 := eval(`document.querySelector("#main h1").textContent.trim()`); h1 != "Maintenance" {
		t.Fatalf("after the task the Lance tab shows %q", h1)
	}
	for _, l := range logs.all() {
		if strings.Contains(l, "Content Security Policy") || strings.Contains(l, "exception") || strings.HasPrefix(l, "console.error") ||
			strings.HasPrefix(l, "error") || strings.Contains(l, "htmx:") {
			t.Errorf("browser console: %s", l)
		}
	}
}
