package e2e

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestJourneyLanceTimeTravel: a Lance table written by the real LanceDB
// client in five versions (testdata/travel.mjs) and tagged at version 3
// through floe's Lance REST. In Browse Data the version picker reads
// version 3 — its eight rows with their first titles, not the latest six
// retitled ones — the URL carries ?version=3 and a reload keeps it; the tag
// reads the same rows; "Latest version" reads the latest again — with no
// CSP violation or console error.
func TestJourneyLanceTimeTravel(t *testing.T) {
	if testing.Short() {
		t.Skip("browser journey skipped in -short mode")
	}
	execPath := chromium(t)
	began := time.Now()
	p := startFloe(t, floeOptions{seed: func(p floeProc) {
		c := exec.Command(p.node, "e2e/testdata/travel.mjs", p.lance, p.apiKey, "travel", "prod", "docs")
		c.Dir = ".."
		out, err := c.CombinedOutput()
		if err != nil {
			t.Fatalf("travel.mjs: %v\n%s", err, out)
		}
		t.Logf("seeded: %s", strings.TrimSpace(string(out)))
		body := []byte(`{"id": ["travel", "prod", "docs"], "tag": "release", "version": 3}`)
		req, _ := http.NewRequestWithContext(context.Background(), http.MethodPost, p.lance+"/v1/table/travel%24prod%24docs/tags/create", bytes.NewReader(body))
		req.Header.Set("x-api-key", p.apiKey)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("CreateTableTag: %d %s", resp.StatusCode, b)
		}
	}})
	bctx, logs := browserContext(t, execPath)
	step := func(name string, actions ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(bctx, actions...); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	// rows reads the grid as "id=title" pairs, sorted (the ids are one digit).
	rows := func() []string {
		t.Helper()
		got, err := chromedp.Run(bctx, chromedp.Evaluate[[]string](`(() => {
			const cols = [...document.querySelectorAll('[data-testid="grid-column"]')].map(c => c.dataset.column);
			const id = cols.indexOf("id"), title = cols.indexOf("title");
			return [...document.querySelectorAll('[data-testid="grid-row"]')].map(r => r.children[id].textContent + "=" + r.children[title].textContent);
		})()`))
		if err != nil {
			t.Fatal(err)
		}
		slices.Sort(got)
		return got
	}
	atV3 := []string{"0=first 0", "1=first 1", "2=first 2", "3=first 3", "4=first 4", "5=first 5", "6=first 6", "7=first 7"}
	latest := []string{"0=changed", "1=changed", "2=changed", "3=changed", "4=first 4", "5=first 5"}
	data := p.url + "/buckets/travel/namespaces/prod/tables/docs/data"

	step("sign in", signIn(p.url)...)
	// The worker reads Browse Data and connects after the seed: wait on the
	// table page until it has described the table (Browse Data before
	// that answers 503, which the browser logs as an error).
	table := p.url + "/buckets/travel/namespaces/prod/tables/docs"
	badge := `#health-panel [data-testid="health-badge"]`
	for deadline := time.Now().Add(time.Minute); ; {
		state := ""
		if err := chromedp.Do(bctx, chromedp.Navigate(table), chromedp.WaitVisible(tid("table-name"))); err == nil {
			state, _ = chromedp.Run(bctx, chromedp.Evaluate[string](`(document.querySelector('`+badge+`') || {dataset: {}}).dataset.health || ""`))
		}
		if state != "" && state != "unknown" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the worker never described the table (badge %q)", state)
		}
		time.Sleep(500 * time.Millisecond) // polling interval, not an assertion
	}
	t.Logf("floe built, started, seeded and the table described in %v", time.Since(began).Round(time.Second))
	step("open Browse Data", chromedp.Navigate(data), chromedp.WaitVisible(tid("grid-footer")))
	if got := rows(); !slices.Equal(got, latest) {
		t.Fatalf("latest rows %v, want %v", got, latest)
	}
	opts, err := chromedp.Run(bctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll('[data-testid="version-picker"] option')].map(o => o.value)`))
	if err != nil || !slices.Contains(opts, "3") || !slices.Contains(opts, "tag:release") {
		t.Fatalf("the version picker offers %v (%v), want version 3 and the tag", opts, err)
	}
	// An <option> has no box of its own, so the picks wait for the new
	// page's selected option to exist, not to be visible.
	step("pick version 3",
		chromedp.SetValue(tid("version-picker"), "3"),
		chromedp.Click(tid("data-submit")),
		chromedp.WaitReady(chromedp.CSS(`[data-testid="version-picker"] option[value="3"][selected]`)),
	)
	loc, err := chromedp.Run(bctx, chromedp.Location())
	if err != nil || !strings.Contains(loc, "version=3") {
		t.Fatalf("URL %q does not carry the version (%v)", loc, err)
	}
	if got := rows(); !slices.Equal(got, atV3) {
		t.Fatalf("rows at version 3 %v, want %v", got, atV3)
	}
	footer, _ := chromedp.Run(bctx, chromedp.Text(tid("grid-footer")))
	if !strings.HasPrefix(footer, "Version 3") || !strings.Contains(footer, "out of 8") {
		t.Errorf("footer at version 3: %q", footer)
	}
	step("reload", chromedp.Reload(), chromedp.WaitVisible(tid("grid-footer")))
	if sel, _ := chromedp.Run(bctx, chromedp.Evaluate[string](`document.querySelector('[data-testid="version-picker"]').value`)); sel != "3" {
		t.Errorf("after a reload the picker reads at %q", sel)
	}
	if got := rows(); !slices.Equal(got, atV3) {
		t.Fatalf("rows at version 3 after a reload %v, want %v", got, atV3)
	}
	step("pick the tag",
		chromedp.SetValue(tid("version-picker"), "tag:release"),
		chromedp.Click(tid("data-submit")),
		chromedp.WaitReady(chromedp.CSS(`[data-testid="version-picker"] option[value="tag:release"][selected]`)),
	)
	if got := rows(); !slices.Equal(got, atV3) {
		t.Fatalf("rows at tag release %v, want those of version 3 %v", got, atV3)
	}
	if footer, _ := chromedp.Run(bctx, chromedp.Text(tid("grid-footer"))); !strings.HasPrefix(footer, "Version 3") || !strings.Contains(footer, "release") {
		t.Errorf("footer at the tag: %q", footer)
	}
	step("back to the latest",
		chromedp.SetValue(tid("version-picker"), "latest"),
		chromedp.Click(tid("data-submit")),
		chromedp.WaitReady(chromedp.CSS(`[data-testid="version-picker"] option[value="latest"][selected]`)),
	)
	if got := rows(); !slices.Equal(got, latest) {
		t.Fatalf("rows back at the latest %v, want %v", got, latest)
	}
	t.Logf("journey done at %v", time.Since(began).Round(time.Second))
	failOnBrowserErrors(t, logs)
}
