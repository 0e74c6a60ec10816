package web

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/plugin"
)

func TestJobsList(t *testing.T) {
	e := newLiveEnv(t)
	ctx := context.Background()
	e.seed("lbk", catalog.FormatLance, "ns", "docs")
	tb, _ := e.table("lbk", "ns", "docs")
	compact, err := e.p.SubmitJob(ctx, plugin.JobSpec{Type: "lance_compact", ObjectID: tb.ID, Lane: "lance"})
	if err != nil {
		t.Fatal(err)
	}
	cleanup, err := e.p.SubmitJob(ctx, plugin.JobSpec{Type: "lance_cleanup", ObjectID: "not-a-table", Lane: "lance"})
	if err != nil {
		t.Fatal(err)
	}
	other, err := e.p.SubmitJob(ctx, plugin.JobSpec{Type: "iceberg_expire", Lane: "iceberg"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.p.CancelJob(ctx, other.ID); err != nil {
		t.Fatal(err)
	}
	admin := e.admin()
	for _, tc := range []struct {
		name, query string
		want, not   []string
	}{
		{"all", "", []string{compact.ID, cleanup.ID, other.ID}, nil},
		{"by type", "?type=lance_cleanup", []string{cleanup.ID}, []string{compact.ID, other.ID}},
		{"by lane", "?lane=iceberg", []string{other.ID}, []string{compact.ID, cleanup.ID}},
		{"by state", "?state=canceled", []string{other.ID}, []string{compact.ID, cleanup.ID}},
		{"no match", "?lane=lance&state=succeeded", nil, []string{compact.ID, cleanup.ID, other.ID}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := e.get(admin, "/jobs"+tc.query)
			if r.status != http.StatusOK {
				t.Fatalf("status %d", r.status)
			}
			rows := map[string]bool{}
			r.doc.Find(`[data-testid="job-row"]`).Each(func(_ int, s *goquery.Selection) { rows[s.AttrOr("data-job", "")] = true })
			for _, id := range tc.want {
				if !rows[id] {
					t.Errorf("row %s missing", id)
				}
			}
			for _, id := range tc.not {
				if rows[id] {
					t.Errorf("row %s should be filtered out", id)
				}
			}
			if len(tc.want) == 0 && !r.has("jobs-empty") {
				t.Error("no empty state")
			}
		})
	}
	t.Run("filters survive in the form and the object links to its table", func(t *testing.T) {
		r := e.get(admin, "/jobs?type=lance_compact")
		if v, _ := r.doc.Find(`[data-testid="filter-type"] option[selected]`).Attr("value"); v != "lance_compact" {
			t.Errorf("selected type %q", v)
		}
		href, _ := r.doc.Find(`[data-job="` + compact.ID + `"] [data-testid="job-object-link"]`).Attr("href")
		if href != "/buckets/lbk/namespaces/ns/tables/docs" {
			t.Errorf("object link %q", href)
		}
		if ws, _ := r.doc.Find(`[data-testid="jobs-live"]`).Attr("ws-connect"); !strings.Contains(ws, compact.ID) {
			t.Errorf("ws-connect %q does not follow the row", ws)
		}
	})
	t.Run("unknown state is refused", func(t *testing.T) {
		if r := e.get(admin, "/jobs?state=bogus"); r.status != http.StatusUnprocessableEntity {
			t.Errorf("status %d", r.status)
		}
	})
}

func TestJobsPagination(t *testing.T) {
	e := newLiveEnv(t)
	ctx := context.Background()
	for range plugin.DefaultJobPage + 3 {
		if _, err := e.p.SubmitJob(ctx, plugin.JobSpec{Type: "lance_compact", ObjectID: "x"}); err != nil {
			t.Fatal(err)
		}
	}
	admin := e.admin()
	r := e.get(admin, "/jobs?type=lance_compact")
	if n := r.doc.Find(`[data-testid="job-row"]`).Length(); n != plugin.DefaultJobPage {
		t.Fatalf("first page has %d rows", n)
	}
	next, ok := r.doc.Find(`[data-testid="jobs-next"]`).Attr("href")
	if !ok || !strings.Contains(next, "type=lance_compact") {
		t.Fatalf("next link %q keeps no filter", next)
	}
	r = e.get(admin, next)
	if n := r.doc.Find(`[data-testid="job-row"]`).Length(); n != 3 {
		t.Errorf("second page has %d rows", n)
	}
	if r.has("jobs-next") || !r.has("jobs-first") {
		t.Error("last page links wrong")
	}
}

func TestJobPage(t *testing.T) {
	e := newLiveEnv(t)
	ctx := context.Background()
	j, err := e.p.SubmitJob(ctx, plugin.JobSpec{Type: "lance_compact", ObjectID: "x", Parameters: map[string]string{"target_rows_per_fragment": "1000"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Run("shows parameters, state and actions for admins", func(t *testing.T) {
		r := e.get(e.admin(), "/jobs/"+j.ID)
		if r.status != http.StatusOK {
			t.Fatalf("status %d", r.status)
		}
		for _, want := range []string{"target_rows_per_fragment", "1000", "created (submitted)"} {
			if !strings.Contains(r.body, want) {
				t.Errorf("page lacks %q", want)
			}
		}
		if r.doc.Find(`#job-`+j.ID).AttrOr("data-state", "") != "pending" {
			t.Error("no pending progress element")
		}
		if !r.has("job-cancel") || !r.has("job-expire") {
			t.Error("admin sees no Cancel/Expire")
		}
	})
	t.Run("readonly sees no actions", func(t *testing.T) {
		if r := e.get(e.reader(), "/jobs/"+j.ID); r.has("job-cancel") || r.has("job-expire") {
			t.Error("reader sees write controls")
		}
	})
	t.Run("unknown id is 404", func(t *testing.T) {
		r := e.get(e.admin(), "/jobs/job_nope")
		if r.status != http.StatusNotFound || !r.has("error-page") {
			t.Errorf("status %d", r.status)
		}
	})
}

func TestJobActions(t *testing.T) {
	e := newLiveEnv(t)
	ctx := context.Background()
	for _, tc := range []struct{ action, state string }{{"cancel", "canceled"}, {"expire", "expired"}} {
		t.Run(tc.action, func(t *testing.T) {
			j, err := e.p.SubmitJob(ctx, plugin.JobSpec{Type: "lance_compact", ObjectID: "x"})
			if err != nil {
				t.Fatal(err)
			}
			if r := e.post(e.reader(), "/jobs/"+j.ID+"/"+tc.action, nil); r.status != http.StatusForbidden {
				t.Fatalf("reader: status %d", r.status)
			}
			if got, _ := e.p.GetJob(ctx, j.ID); got.State != plugin.JobPending {
				t.Fatalf("reader changed the job: %s", got.State)
			}
			r := e.post(e.admin(), "/jobs/"+j.ID+"/"+tc.action, nil)
			if r.status != http.StatusSeeOther || r.header.Get("Location") != "/jobs/"+j.ID {
				t.Fatalf("admin: status %d location %q", r.status, r.header.Get("Location"))
			}
			if got, _ := e.p.GetJob(ctx, j.ID); string(got.State) != tc.state {
				t.Errorf("state %s, want %s", got.State, tc.state)
			}
		})
	}
	t.Run("unknown job", func(t *testing.T) {
		if r := e.post(e.admin(), "/jobs/job_nope/cancel", nil); r.status != http.StatusNotFound {
			t.Errorf("status %d", r.status)
		}
	})
}
