package web

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/observe"
	"github.com/floe/floe/plugin"
)

// The table page's Trends panel draws rows and size over time from the
// kept observations, once there are two; before that it says how many.
func TestTableTrendCharts(t *testing.T) {
	e := newWorkerEnv(t, plugin.Options{})
	tbl := e.lanceTable("vec", "prod", "docs")
	c := e.admin()
	page := "/buckets/vec/namespaces/prod/tables/docs"
	put := func(ago time.Duration, attrs string) {
		t.Helper()
		if _, err := e.obs.Put(observe.Observation{ObjectID: tbl.ID, Format: catalog.FormatLance, WorkerID: "w",
			ObservedAt: time.Now().Add(-ago), Attributes: json.RawMessage(attrs)}); err != nil {
			t.Fatal(err)
		}
		if err := e.obs.Flush(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	if r := e.get(c, page); !strings.Contains(r.text("trend-empty"), "0 kept so far") || r.has("trend-rows") {
		t.Fatalf("no observation: %q", r.text("trend-panel"))
	}
	put(2*time.Hour, `{"rows": 1000, "bytes": 3145728, "version": 1}`)
	if r := e.get(c, page); !strings.Contains(r.text("trend-empty"), "1 kept so far") {
		t.Fatalf("one observation: %q", r.text("trend-panel"))
	}
	put(time.Hour, `{"rows": 20000, "bytes": 62914560, "version": 2}`)
	r := e.get(c, page)
	if r.status != http.StatusOK || r.has("trend-empty") {
		t.Fatalf("status %d: %q", r.status, r.text("trend-panel"))
	}
	for id, want := range map[string]string{"trend-rows": "rows", "trend-bytes": "bytes"} {
		chart := r.doc.Find(`[data-testid="` + id + `"]`)
		if n, _ := chart.Attr("data-points"); n != "2" {
			t.Errorf("%s draws %q points", id, n)
		}
		if unit := chart.Find(`[data-testid="trend-unit"]`).Text(); unit != want {
			t.Errorf("%s y-axis unit %q", id, unit)
		}
		if chart.Find(`[data-testid="trend-ytick"]`).Length() < 2 || chart.Find("polyline").Length() != 1 || chart.Find("circle title").Length() != 2 {
			t.Errorf("%s lacks its axis, line or dots", id)
		}
	}
	if got := r.doc.Find(`[data-testid="trend-bytes"] [data-testid="trend-ytick"]`).Last().Text(); got != "60 MiB" {
		t.Errorf("size axis tops at %q", got)
	}
	if strings.Contains(r.text("trend-panel"), "<script") {
		t.Error("script in the chart")
	}

	t.Run("history off", func(t *testing.T) {
		e.obs.SetHistoryRetention(0)
		defer e.obs.SetHistoryRetention(observe.DefaultHistoryRetention)
		if r := e.get(c, page); !r.has("trend-off") || r.has("trend-rows") {
			t.Errorf("history off: %q", r.text("trend-panel"))
		}
	})
}
