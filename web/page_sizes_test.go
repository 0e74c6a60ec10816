package web

import (
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/plugin"
)

// TestTablesPageSizes: the namespace page shows 50, 200 or 1,000 rows a
// page (?per=); every link it makes (next, first, sort headers, the health
// filter, the filter form) keeps the size, anything else is the default,
// and a longer page says it is a snapshot instead of opening a live list
// it cannot follow.
func TestTablesPageSizes(t *testing.T) {
	e := newWorkerEnv(t, plugin.Options{})
	names := make([]string, 250)
	for i := range names {
		names[i] = fmt.Sprintf("t%03d", i)
	}
	e.seed("big", catalog.FormatLance, "ns", names...)
	c := e.admin()
	base := "/buckets/big/namespaces/ns"

	cases := []struct {
		query       string
		rows        int
		first, last string
		next        string
		current     string
	}{
		{"", 50, "t000", "t049", base + "?after=t049", "50"},
		{"?per=200", 200, "t000", "t199", base + "?after=t199&per=200", "200"},
		{"?per=200&after=t199", 50, "t200", "t249", "", "200"},
		{"?per=1000", 250, "t000", "t249", "", "1000"},
		{"?per=50", 50, "t000", "t049", base + "?after=t049", "50"},
		{"?per=7", 50, "t000", "t049", base + "?after=t049", "50"},      // not an offered size: the default
		{"?per=100000", 50, "t000", "t049", base + "?after=t049", "50"}, // never past the catalog's page bound
		{"?per=-1", 50, "t000", "t049", base + "?after=t049", "50"},
		{"?per=200&page=2", 50, "t200", "t249", "", "200"}, // an old numbered link counts in the chosen size
	}
	for _, tc := range cases {
		t.Run(tc.query, func(t *testing.T) {
			r := e.get(c, base+tc.query)
			rows := r.doc.Find(`[data-testid="table-row"]`)
			if rows.Length() != tc.rows {
				t.Fatalf("%d rows, want %d", rows.Length(), tc.rows)
			}
			if f, l := rows.First().AttrOr("data-table", ""), rows.Last().AttrOr("data-table", ""); f != tc.first || l != tc.last {
				t.Errorf("rows %s…%s, want %s…%s", f, l, tc.first, tc.last)
			}
			if next := r.doc.Find(`[data-testid="page-next"]`).AttrOr("href", ""); next != tc.next {
				t.Errorf("next link %q, want %q", next, tc.next)
			}
			if cur := strings.TrimSpace(r.text("page-size-current")); cur != tc.current {
				t.Errorf("current size %q, want %q", cur, tc.current)
			}
			long := tc.current != "50"
			if r.has("list-live") == long {
				t.Errorf("live list shown %v on a page of %s", r.has("list-live"), tc.current)
			}
			if snap := strings.Contains(r.text("tables-total"), "do not update live"); snap != long {
				t.Errorf("snapshot note %v on a page of %s: %q", snap, tc.current, r.text("tables-total"))
			}
		})
	}

	r := e.get(c, base+"?per=200&after=t010")
	for _, size := range []string{"50", "1000"} {
		href := r.doc.Find(`[data-testid="page-size-`+size+`"]`).AttrOr("href", "")
		u, err := url.Parse(href)
		if err != nil || u.Path != base || u.Query().Get("after") != "t010" {
			t.Errorf("size %s link %q does not keep the page's place", size, href)
		}
		if want := map[string]string{"50": "", "1000": "1000"}[size]; u.Query().Get("per") != want {
			t.Errorf("size %s link %q: per=%q", size, href, u.Query().Get("per"))
		}
	}
	if first := r.doc.Find(`[data-testid="page-first"]`).AttrOr("href", ""); first != base+"?per=200" {
		t.Errorf("first link %q keeps no size", first)
	}
	if att := r.doc.Find(`[data-testid="health-filter-attention"]`).AttrOr("href", ""); !strings.Contains(att, "per=200") {
		t.Errorf("the health filter %q drops the size", att)
	}
	heads := r.doc.Find(`th a`)
	if heads.Length() == 0 {
		t.Fatal("no sortable header")
	}
	heads.Each(func(_ int, s *goquery.Selection) {
		if href := s.AttrOr("href", ""); !strings.Contains(href, "per=200") {
			t.Errorf("sort header %q drops the size", href)
		}
	})
	if v, ok := r.doc.Find(`[data-testid="table-filter-form"] input[name="per"]`).Attr("value"); !ok || v != "200" {
		t.Errorf("the filter form keeps per=%q", v)
	}
	// A sorted long page pages in its size too.
	s := e.get(c, base+"?sort=rows&dir=desc&per=200")
	if n := s.doc.Find(`[data-testid="table-row"]`).Length(); n != 200 {
		t.Errorf("a sorted page of 200 shows %d rows", n)
	}
	if next := s.doc.Find(`[data-testid="page-next"]`).AttrOr("href", ""); !strings.Contains(next, "per=200") || !strings.Contains(next, "sort=rows") {
		t.Errorf("a sorted page's next link %q", next)
	}
}
