package web

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/floe/floe/audit"
	"github.com/floe/floe/catalog"
)

func activityEnv(t *testing.T) (*env, *audit.Store) {
	t.Helper()
	var st *audit.Store
	e := newEnv(t, Surfaces{}, func(c *Config) {
		st = audit.NewStore(c.DB)
		c.Audit = st
	})
	return e, st
}

var actT0 = time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)

func seedActivity(t *testing.T, st *audit.Store) {
	t.Helper()
	var in []audit.Entry
	add := func(i int, principal, surface, op, bucket, ns, table string, status int, refused bool) {
		in = append(in, audit.Entry{Type: audit.TypeRequest, Time: actT0.Add(time.Duration(i) * time.Minute), Surface: surface, Operation: op,
			Write: !refused, Refused: refused, Principal: principal, Via: "x-api-key", Bucket: bucket, Namespace: ns, Table: table,
			Status: status, RequestID: fmt.Sprintf("req-%03d", i), Client: "192.0.2.1:5000"})
	}
	add(0, "apikey:k1", "lance", "CreateNamespace", "vec", "ns", "", 200, false)
	add(1, "apikey:k1", "lance", "DeclareTable", "vec", "ns", "items", 200, false)
	add(2, "apikey:k2", "lance", "DropTable", "vec", "ns", "items", 403, true)
	add(3, "user:admin", "console", "DropTable", "lake", "raw", "orders", 404, false)
	for i := 4; i < 64; i++ { // enough for more than one page
		add(i, "apikey:k3", "iceberg", "updateTable", "lake", "raw", "events", 200, false)
	}
	in = append(in, audit.Entry{Type: audit.TypeTableCreated, Time: actT0.Add(2 * time.Hour), Principal: "-", Bucket: "vec", Namespace: "ns", Table: "items"})
	if _, err := st.Insert(context.Background(), in); err != nil {
		t.Fatal(err)
	}
}

func rowIDs(r response) []string {
	var ids []string
	r.doc.Find(`[data-testid="activity-request-id"]`).Each(func(_ int, s *goquery.Selection) { ids = append(ids, s.Text()) })
	return ids
}

func TestActivityPageFilters(t *testing.T) {
	e, st := activityEnv(t)
	seedActivity(t, st)
	admin := e.admin()
	cases := []struct {
		name  string
		query url.Values
		want  []string // request ids shown, newest first (first page)
	}{
		{"principal", url.Values{"principal": {"apikey:k1"}}, []string{"req-001", "req-000"}},
		{"resource table", url.Values{"resource": {"vec/ns/items"}}, []string{"req-002", "req-001"}},
		{"resource namespace", url.Values{"resource": {"vec/ns"}}, []string{"req-002", "req-001", "req-000"}},
		{"refused", url.Values{"outcome": {"refused"}}, []string{"req-002"}},
		{"failed", url.Values{"outcome": {"failed"}}, []string{"req-003"}},
		{"time", url.Values{"since": {"2026-11-30T09:01"}, "until": {"2026-11-30T09:03"}}, []string{"req-002", "req-001"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := e.get(admin, "/activity?"+tc.query.Encode())
			if r.status != http.StatusOK {
				t.Fatalf("status %d:\n%s", r.status, r.body)
			}
			if got := rowIDs(r); strings.Join(got, ",") != strings.Join(tc.want, ",") {
				t.Fatalf("rows %v, want %v", got, tc.want)
			}
			// the form shows the filter it applied, so a reload keeps it
			for k, v := range tc.query {
				if got, _ := r.doc.Find(`[name="` + k + `"]`).Attr("value"); k != "outcome" && got != v[0] {
					t.Errorf("field %s shows %q, want %q", k, got, v[0])
				}
			}
		})
	}
	t.Run("refused rows say so", func(t *testing.T) {
		r := e.get(admin, "/activity?outcome=refused")
		if r.text("activity-principal") != "apikey:k2 x-api-key" || !strings.Contains(r.text("activity-outcome"), "403") {
			t.Fatalf("row: principal %q outcome %q", r.text("activity-principal"), r.text("activity-outcome"))
		}
	})
	t.Run("bad filters are 422 with the reason", func(t *testing.T) {
		for _, q := range []string{"outcome=maybe", "since=yesterday", "resource=a/b/c/d", "before=-3"} {
			if r := e.get(admin, "/activity?"+q); r.status != http.StatusUnprocessableEntity {
				t.Errorf("%s: status %d, want 422", q, r.status)
			}
		}
	})
}

func TestActivityPagesAreLinksThatSurviveReload(t *testing.T) {
	e, st := activityEnv(t)
	seedActivity(t, st)
	admin := e.admin()
	first := e.get(admin, "/activity?principal=apikey:k3")
	if n := len(rowIDs(first)); n != 50 {
		t.Fatalf("first page has %d rows, want 50", n)
	}
	next, ok := first.doc.Find(`[data-testid="activity-next"]`).Attr("href")
	if !ok || !strings.Contains(next, "principal=apikey%3Ak3") || !strings.Contains(next, "before=") {
		t.Fatalf("next link %q keeps neither the filter nor the position", next)
	}
	second := e.get(admin, next)
	again := e.get(admin, next) // a reload of the same link shows the same page
	if got := rowIDs(second); len(got) != 10 || got[0] != "req-013" || got[9] != "req-004" {
		t.Fatalf("second page %v", got)
	}
	if strings.Join(rowIDs(again), ",") != strings.Join(rowIDs(second), ",") {
		t.Fatal("reloading the second page showed other rows")
	}
	if second.has("activity-next") || !second.has("activity-first") {
		t.Fatal("the last page offers Older, or no way back to Newest")
	}
}

func TestActivityTableTabAndAccess(t *testing.T) {
	e, st := activityEnv(t)
	seedActivity(t, st)
	e.seed("vec", catalog.FormatLance, "ns", "items")
	tab := e.get(e.admin(), "/buckets/vec/namespaces/ns/tables/items/activity")
	if tab.status != http.StatusOK || strings.Join(rowIDs(tab), ",") != "req-002,req-001" {
		t.Fatalf("table tab: %d %v", tab.status, rowIDs(tab))
	}
	withEvents := e.get(e.admin(), "/buckets/vec/namespaces/ns/tables/items/activity?events=1")
	if !strings.Contains(withEvents.body, "table.created") {
		t.Fatal("with events=1 the tab does not show the table's creation")
	}
	page := e.get(e.admin(), "/buckets/vec/namespaces/ns/tables/items")
	if !page.has("activity-link") || !page.has("nav-activity") {
		t.Fatal("an admin's table page has no Activity tab or nav entry")
	}
	// a read-only user sees neither, and is refused the pages
	rp := e.get(e.reader(), "/buckets/vec/namespaces/ns/tables/items")
	if rp.has("activity-link") || rp.has("nav-activity") {
		t.Fatal("a read-only user is offered the audit trail")
	}
	for _, p := range []string{"/activity", "/buckets/vec/namespaces/ns/tables/items/activity"} {
		if r := e.get(e.reader(), p); r.status != http.StatusForbidden {
			t.Errorf("reader GET %s: %d, want 403", p, r.status)
		}
	}
	if r := e.get(e.anon(), "/activity"); r.status != http.StatusSeeOther {
		t.Errorf("anonymous GET /activity: %d, want the sign-in redirect", r.status)
	}
}
