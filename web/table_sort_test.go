package web

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/plugin"
)

func rowNames(r response) []string {
	var out []string
	r.doc.Find(`[data-testid="table-row"]`).Each(func(_ int, s *goquery.Selection) { out = append(out, s.AttrOr("data-table", "")) })
	return out
}

// A table list sorts by rows, size, last change and health both ways; the
// order lives in the URL (a reload or a link keeps it), the headers link
// to the other direction, and the keyset pages walk the sorted order
// exactly once, filtered too.
func TestTableListSort(t *testing.T) {
	e := newWorkerEnv(t, plugin.Options{})
	var names []string
	for i := range 60 {
		names = append(names, fmt.Sprintf("t%02d", i))
	}
	e.seed("vec", catalog.FormatLance, "prod", names...)
	for i, n := range names {
		tb, _ := e.table("vec", "prod", n)
		if i == 59 {
			continue // never observed: last in either direction
		}
		small := 1
		if i%10 == 3 {
			small = 12 // needs maintenance
		}
		e.observeTable(tb, map[string]any{"rows": (i * 7) % 61, "bytes": i * 1000, "fragments": small, "small_fragments": small, "version": 2})
	}
	c := e.admin()
	base := "/buckets/vec/namespaces/prod"
	walk := func(link string) []string {
		t.Helper()
		var got []string
		for range 5 {
			r := e.get(c, link)
			if r.status != http.StatusOK {
				t.Fatalf("%s: %d", link, r.status)
			}
			got = append(got, rowNames(r)...)
			next, ok := r.doc.Find(`[data-testid="page-next"]`).Attr("href")
			if !ok {
				return got
			}
			link = next
		}
		t.Fatalf("%s never ends", link)
		return nil
	}
	byRowsDesc := slices.Clone(names[:59])
	slices.SortStableFunc(byRowsDesc, func(a, b string) int {
		var i, j int
		fmt.Sscanf(a, "t%d", &i)
		fmt.Sscanf(b, "t%d", &j)
		return (j*7)%61 - (i*7)%61
	})
	byRowsDesc = append(byRowsDesc, "t59")
	if got := walk(base + "?sort=rows&dir=desc"); !slices.Equal(got, byRowsDesc) {
		t.Errorf("rows descending:\n%v\nwant\n%v", got, byRowsDesc)
	}
	bySizeAsc := append(slices.Clone(names[:59]), "t59")
	if got := walk(base + "?sort=size"); !slices.Equal(got, bySizeAsc) {
		t.Errorf("size ascending: %v", got)
	}
	if got := walk(base + "?sort=name&dir=desc"); got[0] != "t59" || got[59] != "t00" || len(got) != 60 {
		t.Errorf("name descending: %v", got)
	}
	if got := walk(base + "?sort=health&dir=desc"); !slices.Equal(got[:6], []string{"t03", "t13", "t23", "t33", "t43", "t53"}) || got[59] != "t59" {
		t.Errorf("health, worst first: %v", got)
	}
	if got := walk(base + "?sort=rows&dir=desc&health=attention"); !slices.Equal(got, []string{"t43", "t33", "t23", "t13", "t03", "t53"}) {
		t.Errorf("needs attention by rows: %v", got)
	}
	if got := walk(base + "?sort=rows&q=t5"); len(got) != 10 || got[9] != "t59" {
		t.Errorf("filtered by name, by rows: %v", got)
	}

	r := e.get(c, base+"?sort=rows&dir=desc")
	head := r.doc.Find(`[data-testid="sort-rows"]`)
	if head.AttrOr("aria-sort", "") != "descending" {
		t.Errorf("rows header aria-sort %q", head.AttrOr("aria-sort", ""))
	}
	if href := head.Find("a").AttrOr("href", ""); href != base+"?sort=rows" {
		t.Errorf("the current column links to %q, want the other direction", href)
	}
	if href := r.doc.Find(`[data-testid="sort-link-size"]`).AttrOr("href", ""); href != base+"?dir=desc&sort=size" {
		t.Errorf("a figure column first sorts descending: %q", href)
	}
	if href := r.doc.Find(`[data-testid="health-filter-attention"]`).AttrOr("href", ""); !strings.Contains(href, "sort=rows") {
		t.Errorf("the attention filter drops the order: %q", href)
	}
	if v := r.doc.Find(`[data-testid="table-filter-form"] input[name="sort"]`).AttrOr("value", ""); v != "rows" {
		t.Errorf("the name filter drops the order: %q", v)
	}
	if r := e.get(c, base+"?sort=rows&after=oops"); r.status != http.StatusUnprocessableEntity {
		t.Errorf("a made-up cursor: %d", r.status)
	}
	if r := e.get(c, base+"?sort=bogus"); r.status != http.StatusOK || rowNames(r)[0] != "t00" {
		t.Errorf("an unknown column falls back to names: %d", r.status)
	}
}

// Bulk Fix submits each ticked table's jobs, asking first when one deletes
// data; bulk Drop always asks and drops through the catalog; readers may
// not; nothing ticked does nothing.
func TestTableListBulk(t *testing.T) {
	e := newWorkerEnv(t, plugin.Options{})
	e.seed("vec", catalog.FormatLance, "prod", "a", "b", "c", "d", "old")
	ctx := context.Background()
	for _, n := range []string{"a", "b", "c"} {
		tb, _ := e.table("vec", "prod", n)
		e.observeTable(tb, map[string]any{"rows": 12, "fragments": 12, "small_fragments": 12, "version": 12})
	}
	old, _ := e.table("vec", "prod", "old")
	var hist []map[string]any
	for v := 1; v <= 20; v++ {
		hist = append(hist, map[string]any{"version": v, "timestamp": time.Now().Add(-30 * 24 * time.Hour).Add(time.Duration(v) * time.Minute).Format(time.RFC3339)})
	}
	e.observeTable(old, map[string]any{"rows": 1, "fragments": 1, "small_fragments": 1, "version": 20, "versions": 20, "history": hist})
	c := e.admin()
	base := "/buckets/vec/namespaces/prod"
	list := e.get(c, base+"?sort=rows&dir=desc")
	if !list.has("bulk-form") || list.doc.Find(`[data-testid="table-pick"]`).Length() != 5 {
		t.Fatal("no bulk bar or checkboxes for an admin")
	}
	back := list.doc.Find(`#bulk-form input[name="back"]`).AttrOr("value", "")
	if back != base+"?sort=rows&dir=desc" {
		t.Errorf("back %q", back)
	}
	if r := e.get(e.reader(), base); r.has("bulk-form") || r.has("table-pick") {
		t.Error("a reader gets the bulk bar")
	}
	if r := e.post(e.reader(), base+"/bulk", url.Values{"action": {"drop"}, "table": {"a"}}); r.status != http.StatusForbidden {
		t.Errorf("a reader's bulk drop: %d", r.status)
	}

	r := e.post(c, base+"/bulk", url.Values{"action": {"fix"}, "table": {"a", "b", "c"}, "back": {back}})
	if r.status != http.StatusSeeOther || r.header.Get("Location") != back {
		t.Fatalf("bulk fix: %d to %q: %s", r.status, r.header.Get("Location"), r.text("error-message"))
	}
	if got := e.get(c, back).text("flash"); got != "Fix submitted 3 jobs for 3 tables; follow them on the Jobs page." {
		t.Errorf("flash %q", got)
	}
	jobs, _, _ := e.p.ListJobs(ctx, plugin.JobFilter{Type: "lance_compact"})
	if len(jobs) != 3 {
		t.Errorf("%d compactions, want 3", len(jobs))
	}

	// Cleanup deletes versions: the server asks first.
	r = e.post(c, base+"/bulk", url.Values{"action": {"fix"}, "table": {"old", "d"}})
	if r.status != http.StatusOK || !r.has("bulk-confirm") || !strings.Contains(r.doc.Find(`[data-table="old"]`).Text(), "lance_cleanup deletes") {
		t.Fatalf("a deleting fix: %d, confirm %v", r.status, r.has("bulk-confirm"))
	}
	if jobs, _, _ := e.p.ListJobs(ctx, plugin.JobFilter{Type: "lance_cleanup"}); len(jobs) != 0 {
		t.Fatal("cleanup submitted before the confirmation")
	}
	form := url.Values{}
	r.doc.Find(`[data-testid="bulk-confirm-form"] input`).Each(func(_ int, s *goquery.Selection) {
		form.Add(s.AttrOr("name", ""), s.AttrOr("value", ""))
	})
	if r := e.post(c, base+"/bulk", form); r.status != http.StatusSeeOther {
		t.Fatalf("confirmed fix: %d", r.status)
	}
	if jobs, _, _ := e.p.ListJobs(ctx, plugin.JobFilter{Type: "lance_cleanup"}); len(jobs) != 1 {
		t.Errorf("%d cleanups after confirming", len(jobs))
	}

	r = e.post(c, base+"/bulk", url.Values{"action": {"drop"}, "table": {"c", "d"}})
	if !r.has("bulk-confirm") || r.text("bulk-confirm-submit") != "Drop 2 tables" {
		t.Fatalf("drop asks first: %v %q", r.has("bulk-confirm"), r.text("bulk-confirm-submit"))
	}
	if _, err := e.table("vec", "prod", "c"); err != nil {
		t.Fatal("dropped before the confirmation")
	}
	r = e.post(c, base+"/bulk", url.Values{"action": {"drop"}, "table": {"c", "d"}, "confirm": {"yes"}})
	if r.status != http.StatusSeeOther {
		t.Fatalf("confirmed drop: %d", r.status)
	}
	for _, n := range []string{"c", "d"} {
		if _, err := e.table("vec", "prod", n); err == nil {
			t.Errorf("%s not dropped", n)
		}
	}
	if got := e.get(c, base).text("flash"); got != "2 tables dropped with their data." {
		t.Errorf("flash %q", got)
	}

	if r := e.post(c, base+"/bulk", url.Values{"action": {"fix"}}); r.status != http.StatusSeeOther {
		t.Errorf("nothing ticked: %d", r.status)
	}
	if r := e.post(c, base+"/bulk", url.Values{"action": {"explode"}, "table": {"a"}}); r.status != http.StatusUnprocessableEntity {
		t.Errorf("unknown action: %d", r.status)
	}
	if r := e.post(c, base+"/bulk", url.Values{"action": {"drop"}, "table": {"nope"}, "confirm": {"yes"}}); r.status != http.StatusNotFound {
		t.Errorf("a missing table: %d", r.status)
	}
	if r := e.post(c, base+"/bulk", url.Values{"action": {"fix"}, "table": {"a"}, "back": {"https://evil.example/"}}); r.header.Get("Location") != base {
		t.Errorf("back to elsewhere: %q", r.header.Get("Location"))
	}
}

// Buckets sort by tables, rows, size, tables needing attention and age;
// API keys by name, age and last use; jobs by type, creation and update.
// Each keeps its order in the URL and links the other direction.
func TestOtherListsSort(t *testing.T) {
	e := newWorkerEnv(t, plugin.Options{})
	e.seed("few", catalog.FormatLance, "ns", "a")
	e.seed("many", catalog.FormatLance, "ns", "a", "b", "c")
	e.seed("mid", catalog.FormatIceberg, "ns")
	for _, n := range []string{"a", "b"} {
		tb, _ := e.table("many", "ns", n)
		e.observeTable(tb, map[string]any{"rows": 10, "bytes": 100, "fragments": 12, "small_fragments": 12})
	}
	tb, _ := e.table("few", "ns", "a")
	e.observeTable(tb, map[string]any{"rows": 1000, "bytes": 10, "fragments": 1, "small_fragments": 1})
	c := e.admin()
	bucketNames := func(link string) []string {
		var out []string
		e.get(c, link).doc.Find(`[data-testid="bucket-row"]`).Each(func(_ int, s *goquery.Selection) { out = append(out, s.AttrOr("data-bucket", "")) })
		return out
	}
	for link, want := range map[string][]string{
		"/buckets":                         {"few", "many", "mid"},
		"/buckets?sort=tables&dir=desc":    {"many", "few", "mid"},
		"/buckets?sort=rows&dir=desc":      {"few", "many", "mid"}, // mid observed nothing: last
		"/buckets?sort=size&dir=desc":      {"many", "few", "mid"},
		"/buckets?sort=health&dir=desc":    {"many", "few", "mid"},
		"/buckets?sort=name&dir=desc":      {"mid", "many", "few"},
		"/buckets?sort=created&dir=desc":   {"mid", "many", "few"},
		"/buckets?sort=tables&after=1~few": {"many"},
	} {
		if got := bucketNames(link); !slices.Equal(got, want) {
			t.Errorf("%s: %v, want %v", link, got, want)
		}
	}
	if href := e.get(c, "/buckets?sort=rows&dir=desc").doc.Find(`[data-testid="sort-link-rows"]`).AttrOr("href", ""); href != "/buckets?sort=rows" {
		t.Errorf("rows header %q", href)
	}

	ctx := context.Background()
	for _, n := range []string{"zeta", "alpha", "mu"} {
		if _, _, err := e.store.CreateAPIKey(ctx, n, catalog.RoleReadonly, "", 0); err != nil {
			t.Fatal(err)
		}
	}
	keyNames := func(link string) []string {
		var out []string
		e.get(c, link).doc.Find(`[data-testid="key-row"] td:first-child`).Each(func(_ int, s *goquery.Selection) {
			out = append(out, strings.Fields(s.Text())[0])
		})
		return out
	}
	if got := keyNames("/api-keys?sort=name"); !slices.Equal(got, []string{"alpha", "mu", "zeta"}) {
		t.Errorf("keys by name: %v", got)
	}
	if got := keyNames("/api-keys?sort=created&dir=desc"); !slices.Equal(got, []string{"mu", "alpha", "zeta"}) {
		t.Errorf("keys newest first: %v", got)
	}

	for _, typ := range []string{"lance_compact", "custom_a", "lance_cleanup"} {
		if _, err := e.p.SubmitJob(ctx, plugin.JobSpec{Type: typ, ObjectID: "x", DedupeKey: typ}); err != nil {
			t.Fatal(err)
		}
	}
	jobs := e.get(c, "/jobs?sort=type")
	var types []string
	jobs.doc.Find(`[data-testid="job-row"] [data-testid="job-type"]`).Each(func(_ int, s *goquery.Selection) { types = append(types, strings.TrimSpace(s.Text())) })
	if !slices.Equal(types, []string{"custom_a", "lance_cleanup", "lance_compact"}) {
		t.Errorf("jobs by type: %v\n%s", types, jobs.text("jobs-table"))
	}
	if href := jobs.doc.Find(`[data-testid="sort-link-type"]`).AttrOr("href", ""); href != "/jobs?dir=desc&sort=type" {
		t.Errorf("type header %q", href)
	}
	if v := jobs.doc.Find(`[data-testid="jobs-filter"] input[name="sort"]`).AttrOr("value", ""); v != "type" {
		t.Errorf("the filter form drops the order: %q", v)
	}
}
