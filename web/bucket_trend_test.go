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

// The bucket page charts its tables' total rows and size from the kept
// observations, explaining itself until there are two.
func TestBucketTrendCharts(t *testing.T) {
	e := newWorkerEnv(t, plugin.Options{})
	a := e.lanceTable("vec", "prod", "docs")
	e.seed2("vec", "prod", "chunks")
	b, err := e.table("vec", "prod", "chunks")
	if err != nil {
		t.Fatal(err)
	}
	c := e.admin()
	page := "/buckets/vec"
	put := func(id string, ago time.Duration, attrs string) {
		t.Helper()
		if _, err := e.obs.Put(observe.Observation{ObjectID: id, Format: catalog.FormatLance, WorkerID: "w",
			ObservedAt: time.Now().Add(-ago), Attributes: json.RawMessage(attrs)}); err != nil {
			t.Fatal(err)
		}
		if err := e.obs.Flush(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	if r := e.get(c, page); !strings.Contains(r.text("trend-empty"), "No observations kept yet") || r.has("trend-rows") {
		t.Fatalf("no observation: %q", r.text("bucket-trends"))
	}
	put(a.ID, 2*time.Hour, `{"rows": 1000, "bytes": 3145728}`)
	put(b.ID, time.Hour, `{"rows": 19000, "bytes": 59768832}`)
	r := e.get(c, page)
	if r.status != http.StatusOK || r.has("trend-empty") {
		t.Fatalf("status %d: %q", r.status, r.text("bucket-trends"))
	}
	if note := r.text("trend-note"); !strings.Contains(note, "2 observed tables") {
		t.Errorf("note %q", note)
	}
	for id, want := range map[string]string{"trend-rows": "rows", "trend-bytes": "bytes"} {
		chart := r.doc.Find(`[data-testid="bucket-trends"] [data-testid="` + id + `"]`)
		if n, _ := chart.Attr("data-points"); n != "2" {
			t.Errorf("%s draws %q points", id, n)
		}
		if unit := chart.Find(`[data-testid="trend-unit"]`).Text(); unit != want {
			t.Errorf("%s y-axis unit %q", id, unit)
		}
	}
	// 3 MiB + 57 MiB: the total's axis tops at 60 MiB, the latest is the sum.
	if got := r.doc.Find(`[data-testid="trend-bytes"] [data-testid="trend-ytick"]`).Last().Text(); got != "60 MiB" {
		t.Errorf("size axis tops at %q", got)
	}
	if got := r.doc.Find(`[data-testid="trend-rows"] figcaption`).Text(); !strings.Contains(got, "20,000 rows") {
		t.Errorf("rows caption %q", got)
	}

	t.Run("a reader of one namespace", func(t *testing.T) {
		// Sums over the whole bucket would tell of tables this reader
		// may not see; job counts span every job.
		g := catalog.Grant{Grantee: catalog.Grantee{Kind: catalog.GranteeUser, ID: "nsreader"}, Bucket: "vec", Namespace: []string{"prod"}, Privilege: "read"}
		if _, _, err := e.store.AddGrant(context.Background(), g); err != nil {
			t.Fatal(err)
		}
		nc := e.signedIn("nsreader", catalog.RoleNone)
		r := e.get(nc, page)
		if r.status != http.StatusOK || !strings.Contains(r.text("trend-error"), "those who may read all of it") || r.has("trend-rows") {
			t.Errorf("bucket page %d: %q", r.status, r.text("bucket-trends"))
		}
		if r := e.get(nc, "/jobs"); r.status != http.StatusOK || !r.has("job-rates-hidden") || r.has("job-rates-table") {
			t.Errorf("jobs page: %q", r.text("job-rates"))
		}
	})

	t.Run("history off", func(t *testing.T) {
		e.obs.SetHistoryRetention(0)
		defer e.obs.SetHistoryRetention(observe.DefaultHistoryRetention)
		if r := e.get(c, page); !r.has("trend-off") || r.has("trend-rows") {
			t.Errorf("history off: %q", r.text("bucket-trends"))
		}
	})
}
