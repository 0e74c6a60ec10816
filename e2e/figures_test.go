package e2e

import (
	"context"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// figuresAgreeWithin is the promise: after a write, the namespace
// list, the table page and Browse Data agree this soon.
const figuresAgreeWithin = 10 * time.Second

// TestJourneyFiguresAgree: once the worker described the seeded table, a
// client appends through floe's Lance REST (straight to storage, as LanceDB
// writes). Opening the table page then shows the observed version with
// "updating to version N…", a worker observes the table at once, and within
// 10 s the table page, Browse Data and the namespace list show the same
// rows — the count LanceDB itself reports — without waiting for a sweep.
func TestJourneyFiguresAgree(t *testing.T) {
	if testing.Short() {
		t.Skip("browser journey skipped in -short mode")
	}
	execPath := chromium(t)
	fp := startFloeWithWorker(t)
	ctx, _ := browserContext(t, execPath)
	ctx, cancel := context.WithTimeout(ctx, maintenanceJourneyTimeout)
	defer cancel()
	step := func(name string, actions ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(ctx, actions...); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	ns := fp.url + "/buckets/jrny/namespaces/docs"
	table := ns + "/tables/items"
	step("sign in", signIn(fp.url)...)
	text := func(id string) string {
		s, _ := chromedp.Run(ctx, chromedp.Text(tid(id)))
		return strings.Join(strings.Fields(s), " ")
	}
	count := func(id string) int {
		n, _ := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('[data-testid="`+id+`"]').length`))
		return n
	}
	// The worker observes the table when it connects (its first sweep).
	for deadline := time.Now().Add(2 * time.Minute); ; {
		_ = chromedp.Do(ctx, chromedp.Navigate(table))
		if chromedp.Do(ctx, chromedp.WaitVisible(tid("table-name"))) == nil && count("obs-rows") > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the worker never described the seeded table")
		}
		time.Sleep(time.Second)
	}

	out, err := appendCmd(fp.node, "e2e/testdata/append.mjs", fp.lance, fp.apiKey, "jrny", "docs", "items", "3").Output()
	if err != nil {
		t.Fatalf("append: %v", err)
	}
	f := strings.Fields(string(out))
	want, err := strconv.Atoi(f[len(f)-1])
	if err != nil {
		t.Fatalf("append printed %q", out)
	}
	wantRows := groupDigits(want)
	wrote := time.Now()

	step("open the table page after the write", chromedp.Navigate(table), chromedp.WaitVisible(tid("table-name")))
	for {
		if text("meta-rows") == wantRows && text("obs-rows") == wantRows && count("meta-updating") == 0 {
			break
		}
		if time.Since(wrote) > figuresAgreeWithin {
			t.Fatalf("table page after %s: rows %q (panel %q), version %q; want %s rows like LanceDB",
				figuresAgreeWithin, text("meta-rows"), text("obs-rows"), text("meta-version"), wantRows)
		}
		time.Sleep(200 * time.Millisecond)
	}
	version := text("obs-version")
	if head := text("meta-version"); head != version {
		t.Errorf("header version %q, panel version %q: one table, two versions", head, version)
	}

	step("Browse Data", chromedp.Navigate(table+"/data"), chromedp.WaitVisible(tid("data-form")))
	if count("grid-footer") == 0 {
		step("read rows", chromedp.Click(tid("data-submit")), chromedp.WaitVisible(tid("grid-footer")))
	}
	if footer := text("grid-footer"); !strings.Contains(footer, "out of "+wantRows) {
		t.Errorf("Browse Data footer %q, want out of %s", footer, wantRows)
	}

	step("namespace list", chromedp.Navigate(ns), chromedp.WaitVisible(tid("table-rows")))
	if got := text("table-rows"); got != wantRows {
		t.Errorf("namespace list rows %q, want %s", got, wantRows)
	}
	if time.Since(wrote) > figuresAgreeWithin+5*time.Second {
		t.Logf("note: the three pages were read %s after the write (browser steps included)", time.Since(wrote).Round(time.Millisecond))
	}
	t.Logf("all pages agree on %s rows, version %s, %s after the write", wantRows, version, time.Since(wrote).Round(time.Millisecond))
}

// groupDigits writes n as the console does: 1,400.
func groupDigits(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// appendCmd runs a node script from the repository root, like seed.mjs.
func appendCmd(node string, args ...string) *exec.Cmd {
	c := exec.Command(node, args...)
	c.Dir = ".."
	return c
}
