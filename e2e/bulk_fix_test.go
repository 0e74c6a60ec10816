package e2e

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// bulkTables are the bulk Fix journey's tables: three appends each, so
// three versions and three small fragments — too few for compaction
// (worth a look from four under the default min_fragments 8), and with
// cleanup set to keep one version of any age, two reclaimable versions:
// one job each, and one that deletes data.
var bulkTables = []string{"alpha", "beta", "gamma"}

// TestJourneyBulkFix: on a namespace list, three Lance tables that need
// their old versions cleaned up are ticked and fixed at once; the console
// asks first because cleanup deletes data, the answer submits one job per
// table (none doubled), and the list's badges turn healthy without a
// reload as the real Lance worker runs the jobs — with no CSP violation or
// console error.
func TestJourneyBulkFix(t *testing.T) {
	if testing.Short() {
		t.Skip("browser journey skipped in -short mode")
	}
	execPath := chromium(t)
	began := time.Now()
	p := startFloe(t, floeOptions{seed: func(p floeProc) {
		for _, name := range bulkTables {
			seedTable(t, p, "bulk", "ops", name, 3)
		}
	}})
	ctx, logs := browserContext(t, execPath)
	ctx, cancel := context.WithTimeout(ctx, maintenanceJourneyTimeout)
	defer cancel()
	step := func(name string, actions ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(ctx, actions...); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	list := p.url + "/buckets/bulk/namespaces/ops"
	// badges reads the list's health badges by table.
	badges := func() map[string]string {
		got, _ := chromedp.Run(ctx, chromedp.Evaluate[map[string]string](`Object.fromEntries([...document.querySelectorAll('[data-testid="table-row"]')].map(r =>
			[r.dataset.table, (r.querySelector('[data-testid="health-badge"]') || {dataset: {}}).dataset.health || ""]))`))
		return got
	}
	all := func(b map[string]string, state string) bool {
		for _, name := range bulkTables {
			if b[name] != state {
				return false
			}
		}
		return true
	}
	// waitList opens the list until every badge says state (the worker
	// observes the tables when it connects; settings reach the badges on
	// the next look).
	waitList := func(state string) {
		t.Helper()
		var b map[string]string
		for deadline := time.Now().Add(2 * time.Minute); ; {
			_ = chromedp.Do(ctx, chromedp.Navigate(list), chromedp.WaitVisible(tid("tables-table")))
			if b = badges(); all(b, state) {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("the list's badges never all said %s: %v", state, b)
			}
			time.Sleep(time.Second) // polling interval, not an assertion
		}
	}
	t.Logf("floe built, started and seeded in %v", time.Since(began).Round(time.Second))
	step("sign in", signIn(p.url)...)
	waitList("healthy")
	t.Logf("tables observed at %v", time.Since(began).Round(time.Second))
	step("cleanup keeps one version of any age, scheduled detection off",
		chromedp.Navigate(p.url+"/job-types/lance_cleanup"),
		chromedp.WaitVisible(tid("settings-form")),
		chromedp.Evaluate[chromedp.Void](`document.getElementById("in-rt_enabled").checked = false; document.getElementById("in-s_retain_hours").value = "0"; document.getElementById("in-s_min_versions_to_keep").value = "1"; undefined`),
		chromedp.Click(tid("settings-submit")),
		chromedp.WaitVisible(tid("settings-saved")),
	)
	waitList("needs-maintenance")
	t.Logf("the setting reached the badges at %v", time.Since(began).Round(time.Second))

	step("tick the three tables and press Fix",
		chromedp.Evaluate[chromedp.Void](`document.querySelectorAll('[data-testid="table-pick"]').forEach(c => { c.checked = true; }); undefined`),
		chromedp.Click(tid("bulk-fix")),
		chromedp.WaitVisible(tid("bulk-confirm")),
	)
	question, _ := chromedp.Run(ctx, chromedp.Text(tid("bulk-question")))
	if !strings.Contains(question, "Fix 3 tables?") || !strings.Contains(question, "delete data") {
		t.Errorf("the console asked %q", question)
	}
	asked, _ := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll('[data-testid="bulk-confirm-table"]')].map(e => e.dataset.table + ": " + e.textContent.trim())`))
	if len(asked) != len(bulkTables) {
		t.Fatalf("the question lists %v", asked)
	}
	for _, a := range asked {
		if !strings.Contains(a, "lance_cleanup") || !strings.Contains(a, "deletes") {
			t.Errorf("the question says %q", a)
		}
	}
	step("accept: back on the list",
		chromedp.Click(tid("bulk-confirm-submit")),
		chromedp.WaitVisible(tid("flash")),
		chromedp.WaitVisible(tid("tables-table")),
		chromedp.Evaluate[chromedp.Void](`window.floeNoReload = "kept"; undefined`),
	)
	flash, _ := chromedp.Run(ctx, chromedp.Text(tid("flash")))
	if !strings.Contains(flash, "Fix submitted 3 jobs for 3 tables") {
		t.Errorf("flash %q", flash)
	}
	// The badges turn healthy as each job ends: wait on the page, never reload it.
	var b map[string]string
	for deadline := time.Now().Add(2 * time.Minute); !all(b, "healthy"); {
		if time.Now().After(deadline) {
			t.Fatalf("the list's badges after Fix: %v", b)
		}
		time.Sleep(300 * time.Millisecond) // polling interval, not an assertion
		b = badges()
	}
	t.Logf("badges healthy after Fix at %v", time.Since(began).Round(time.Second))
	if marker, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`window.floeNoReload || ""`)); marker != "kept" {
		t.Fatalf("the list reloaded (marker %q)", marker)
	}
	if f, _ := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('[data-testid="flash"]').length`)); f != 1 {
		t.Errorf("the list's refresh took the flash away (%d shown)", f)
	}

	step("the jobs page", chromedp.Navigate(p.url+"/jobs"), chromedp.WaitVisible(tid("jobs-table")))
	jobs, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll('[data-testid="job-row"]')].map(r =>
		r.querySelector('[data-testid="job-type"]').textContent.trim() + " " + r.querySelector('[data-testid="job-object"]').textContent.trim())`))
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(jobs)
	want := []string{"lance_cleanup bulk / ops / alpha", "lance_cleanup bulk / ops / beta", "lance_cleanup bulk / ops / gamma"}
	if !slices.Equal(jobs, want) {
		t.Errorf("jobs %v, want one cleanup per table %v", jobs, want)
	}
	failOnBrowserErrors(t, logs)
}
