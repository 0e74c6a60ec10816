package e2e

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestJourneyJobTypeFormVisibility: on a job type's settings page, a field
// shown only for some values of another hides AND disables its inputs
// while hidden, so saving with the field hidden sends nothing for it (the
// server refuses a value sent for a hidden field) and the settings save.
func TestJourneyJobTypeFormVisibility(t *testing.T) {
	if testing.Short() {
		t.Skip("browser journey skipped in -short mode")
	}
	execPath := chromium(t)
	c := startLayoutConsole(t)
	ctx, logs := browserContext(t, execPath)
	state := `(() => { const f = document.querySelector('[data-testid="field-s_language"]');
		const ins = [...f.querySelectorAll("input")]; return (f.hidden ? "hidden" : "shown") + " " + (ins.every(i => i.disabled) ? "disabled" : ins.some(i => i.disabled) ? "mixed" : "enabled"); })()`
	pick := func(value string) chromedp.Action[chromedp.Void] {
		return chromedp.Evaluate[chromedp.Void](`(() => { const s = document.querySelector('select[name="s_index_type"]'); s.value = "` + value + `"; s.dispatchEvent(new Event("change", {bubbles: true})); })()`)
	}
	if err := chromedp.Do(ctx,
		chromedp.Navigate(c.url+"/login"),
		chromedp.WaitVisible(tid("login-form")),
		chromedp.SendKeys(chromedp.CSS(`#username`), "admin"),
		chromedp.SendKeys(chromedp.CSS(`#password`), adminPassword),
		chromedp.Click(tid("login-submit")),
		chromedp.WaitVisible(tid("nav-buckets")),
		chromedp.Navigate(c.url+"/job-types/lance_scalar_index"),
		chromedp.WaitVisible(tid("settings-form")),
	); err != nil {
		t.Fatal(err)
	}
	for _, step := range []struct{ pick, want string }{
		{"", "hidden disabled"},
		{"FTS", "shown enabled"},
		{"BTREE", "hidden disabled"},
	} {
		if step.pick != "" {
			if err := chromedp.Do(ctx, pick(step.pick)); err != nil {
				t.Fatal(err)
			}
		}
		got, err := chromedp.Run(ctx, chromedp.Evaluate[string](state))
		if err != nil {
			t.Fatal(err)
		}
		if got != step.want {
			t.Errorf("index type %q: the FTS language field is %s, want %s", step.pick, got, step.want)
		}
	}
	if err := chromedp.Do(ctx,
		chromedp.Click(tid("settings-submit")),
		chromedp.WaitVisible(tid("settings-saved")),
	); err != nil {
		t.Fatalf("saving with the FTS fields hidden: %v", err)
	}
	for _, l := range logs.all() {
		if strings.Contains(l, "Content Security Policy") || strings.Contains(l, "Uncaught") {
			t.Errorf("browser console: %s", l)
		}
	}
}
