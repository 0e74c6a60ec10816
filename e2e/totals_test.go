package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/observe"
	"github.com/floe/floe/persist"
	"github.com/floe/floe/plugin"
)

// TestJourneyBucketTotalsAndJobRates opens a bucket whose two tables have
// kept observations and sees its total rows and size charted, then the
// Jobs page's per-type throughput and failure rate — in light and dark,
// with no CSP violation or console error.
func TestJourneyBucketTotalsAndJobRates(t *testing.T) {
	if testing.Short() {
		t.Skip("browser journey skipped in -short mode")
	}
	execPath := chromium(t)
	srv, store, obs, db := startObservedConsoleDB(t)
	ctx := context.Background()

	if _, err := store.CreateBucket(ctx, catalog.CreateBucketInput{Name: "totals", Format: catalog.FormatLance}); err != nil {
		t.Fatal(err)
	}
	if _, err := store.CreateNamespace(ctx, "totals", []string{"prod"}, nil); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, name := range []string{"docs", "chunks"} {
		tbl, _, err := store.CreateTable(ctx, catalog.CreateTableInput{TableRef: catalog.TableRef{Bucket: "totals", Namespace: []string{"prod"}, Name: name}, Format: catalog.FormatLance})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, tbl.ID)
	}
	for i, o := range []struct {
		id    string
		attrs string
	}{{ids[0], `{"rows": 1000, "bytes": 3145728}`}, {ids[1], `{"rows": 5000, "bytes": 15728640}`}, {ids[0], `{"rows": 15000, "bytes": 47185920}`}} {
		if _, err := obs.Put(observe.Observation{ObjectID: o.id, Format: catalog.FormatLance, WorkerID: "w",
			ObservedAt: time.Now().Add(time.Duration(i-3) * time.Hour), Attributes: json.RawMessage(o.attrs)}); err != nil {
			t.Fatal(err)
		}
		if err := obs.Flush(ctx); err != nil {
			t.Fatal(err)
		}
	}
	// Four compactions finished in the last day, one of them failed.
	for i, j := range []struct {
		state plugin.JobState
		ago   time.Duration
	}{{plugin.JobSucceeded, 5 * time.Minute}, {plugin.JobSucceeded, 2 * time.Hour}, {plugin.JobFailed, 2 * time.Hour}, {plugin.JobSucceeded, 20 * time.Hour}} {
		at := persist.Micros(time.Now().Add(-j.ago))
		if _, err := db.ExecContext(ctx, `INSERT INTO plugin_jobs(id, job_type, lane, state, created_at, updated_at, finished_at) VALUES (?,?,?,?,?,?,?)`,
			fmt.Sprintf("journey-rate-%d", i), "lance_compaction", "lance", string(j.state), at, at, at); err != nil {
			t.Fatal(err)
		}
	}

	bctx, logs := browserContext(t, execPath)
	if err := chromedp.Do(bctx, signIn(srv.URL)...); err != nil {
		t.Fatalf("sign in: %v", err)
	}
	for _, scheme := range []string{"light", "dark"} {
		if _, err := chromedp.Call(bctx, emulation.SetEmulatedMedia,
			emulation.SetEmulatedMediaParams{Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme}}}); err != nil {
			t.Fatal(err)
		}
		if err := chromedp.Do(bctx, chromedp.Navigate(srv.URL+"/buckets/totals"),
			chromedp.WaitVisible(tid("bucket-trends")), chromedp.WaitVisible(tid("trend-rows")), chromedp.WaitVisible(tid("trend-bytes"))); err != nil {
			t.Fatalf("%s: bucket page: %v", scheme, err)
		}
		for _, id := range []string{"trend-rows", "trend-bytes"} {
			sel := `[data-testid="bucket-trends"] [data-testid="` + id + `"]`
			points, err := chromedp.Run(bctx, chromedp.Evaluate[string](`document.querySelector('`+sel+`').dataset.points`))
			if err != nil || points != "3" {
				t.Errorf("%s %s: %q points (%v)", scheme, id, points, err)
			}
			width, err := chromedp.Run(bctx, chromedp.Evaluate[float64](`document.querySelector('`+sel+` polyline').getBBox().width`))
			if err != nil || width < 0.8*560 {
				t.Errorf("%s %s: line %.0f wide (%v)", scheme, id, width, err)
			}
			ticks, err := chromedp.Run(bctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll('`+sel+` [data-testid="trend-ytick"]')].map(e => e.textContent)`))
			if err != nil || len(ticks) < 2 {
				t.Errorf("%s %s: y-axis %v (%v)", scheme, id, ticks, err)
			}
		}
		caption, err := chromedp.Run(bctx, chromedp.Evaluate[string](`document.querySelector('[data-testid="bucket-trends"] [data-testid="trend-rows"] figcaption').textContent`))
		if err != nil || !strings.Contains(caption, "20,000 rows") {
			t.Errorf("%s: total rows caption %q (%v), want the sum 20,000", scheme, caption, err)
		}

		row := `[data-testid="job-rate-row"][data-type="lance_compaction"]`
		if err := chromedp.Do(bctx, chromedp.Navigate(srv.URL+"/jobs"), chromedp.WaitVisible(row)); err != nil {
			t.Fatalf("%s: jobs page: %v", scheme, err)
		}
		figures, err := chromedp.Run(bctx, chromedp.Evaluate[[]string](`['job-rate-finished','job-rate-failed','job-rate-failure','job-rate-per-hour'].map(id => document.querySelector('`+row+` [data-testid="' + id + '"]').textContent.trim())`))
		if err != nil || strings.Join(figures, "|") != "4|1|25 %|0.17 jobs/h" {
			t.Errorf("%s: rates %v (%v)", scheme, figures, err)
		}
		bars, err := chromedp.Run(bctx, chromedp.Evaluate[int](`document.querySelectorAll('`+row+` [data-testid="job-rate-bar"]').length`))
		if err != nil || bars != 3 {
			t.Errorf("%s: %d bars (%v), want 3 hours with finished jobs", scheme, bars, err)
		}
		fill, err := chromedp.Run(bctx, chromedp.Evaluate[string](`getComputedStyle(document.querySelector('`+row+` rect.rate-bar-failed')).fill`))
		if err != nil || fill == "" || fill == "rgb(0, 0, 0)" {
			t.Errorf("%s: failed bar fill %q (%v)", scheme, fill, err)
		}
	}
	failOnBrowserErrors(t, logs)
}
