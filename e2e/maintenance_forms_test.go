package e2e

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/observe"
)

// TestJourneyMaintenanceForms: on a table whose schema a worker described,
// the scalar index form offers its columns, the index types follow the
// chosen column's type, and the FTS options show only for FTS.
func TestJourneyMaintenanceForms(t *testing.T) {
	if testing.Short() {
		t.Skip("browser journey skipped in -short mode")
	}
	execPath := chromium(t)
	c := startLayoutConsole(t)
	schema := `{"rows": 3, "schema": [{"name": "title", "type": "Utf8", "nullable": true},
	  {"name": "tags", "type": "List<Utf8>", "nullable": true}, {"name": "vector", "type": "FixedSizeList[8]<Float32>", "nullable": true}]}`
	if _, err := c.obs.Put(observe.Observation{ObjectID: c.lanceTbl.ID, Format: catalog.FormatLance, WorkerID: "w",
		ObservedAt: time.Now(), Attributes: json.RawMessage(schema)}); err != nil {
		t.Fatal(err)
	}
	ctx, logs := browserContext(t, execPath)
	form := `[data-testid="form-create_scalar_index-form"]`
	enabled := `[...document.querySelectorAll('` + form + ` select[name="index_type"] option')].filter(o => !o.disabled && o.value).map(o => o.value).join(" ")`
	visible := `!document.querySelector('[data-testid="field-create_scalar_index-stem"]').hidden`
	pick := func(sel, value string) chromedp.Action[chromedp.Void] {
		return chromedp.Evaluate[chromedp.Void](`(() => { const s = document.querySelector('` + form + ` select[name="` + sel + `"]'); s.value = "` + value + `"; s.dispatchEvent(new Event("change", {bubbles: true})); })()`)
	}
	if err := chromedp.Do(ctx,
		chromedp.Navigate(c.url+"/login"),
		chromedp.WaitVisible(tid("login-form")),
		chromedp.SendKeys(chromedp.CSS(`#username`), "admin"),
		chromedp.SendKeys(chromedp.CSS(`#password`), adminPassword),
		chromedp.Click(tid("login-submit")),
		chromedp.WaitVisible(tid("nav-buckets")),
		chromedp.Navigate(c.url+"/buckets/"+longBucket+"/namespaces/docs/tables/"+longTable+"/maintenance"),
		chromedp.WaitVisible(tid("form-create_scalar_index")),
	); err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		column, kind string
		types        string
		fts          bool
	}{
		{"tags", "", "LABEL_LIST", false},
		{"title", "", "BTREE BITMAP FTS", false},
		{"title", "FTS", "BTREE BITMAP FTS", true},
		{"tags", "", "LABEL_LIST", false}, // the FTS choice is dropped with the column that allowed it
	}
	for _, s := range steps {
		actions := []chromedp.Action[chromedp.Void]{pick("column", s.column)}
		if s.kind != "" {
			actions = append(actions, pick("index_type", s.kind))
		}
		if err := chromedp.Do(ctx, actions...); err != nil {
			t.Fatal(err)
		}
		types, err := chromedp.Run(ctx, chromedp.Evaluate[string](enabled))
		if err != nil {
			t.Fatal(err)
		}
		fts, err := chromedp.Run(ctx, chromedp.Evaluate[bool](visible))
		if err != nil {
			t.Fatal(err)
		}
		if types != s.types || fts != s.fts {
			t.Errorf("column %s, type %q: offered %q (want %q), FTS options shown %v (want %v)", s.column, s.kind, types, s.types, fts, s.fts)
		}
	}
	for _, l := range logs.all() {
		if strings.Contains(l, "Content Security Policy") || strings.Contains(l, "Uncaught") {
			t.Errorf("browser console: %s", l)
		}
	}
}
