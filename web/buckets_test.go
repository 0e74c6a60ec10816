package web

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/floe/floe/catalog"
)

func TestCreateBucketEachFormat(t *testing.T) {
	e := newEnv(t, allSurfaces)
	c := e.admin()
	cases := []struct {
		name, format string
		htmx         bool
		want         catalog.Format
	}{
		{"vectors", "LANCE", false, catalog.FormatLance},
		{"lakehouse", "ICEBERG", false, catalog.FormatIceberg},
		{"vectors-htmx", "LANCE", true, catalog.FormatLance},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			hdr := map[string]string{}
			if tc.htmx {
				hdr["HX-Request"] = "true"
			}
			r := e.do(c, "POST", "/buckets", url.Values{"name": {tc.name}, "format": {tc.format}}, hdr)
			if tc.htmx {
				if r.status != http.StatusNoContent || r.header.Get("HX-Redirect") != "/buckets/"+tc.name {
					t.Fatalf("htmx create: %d HX-Redirect %q", r.status, r.header.Get("HX-Redirect"))
				}
			} else if r.status != http.StatusSeeOther || r.header.Get("Location") != "/buckets/"+tc.name {
				t.Fatalf("create: %d %q %s", r.status, r.header.Get("Location"), r.body)
			}
			b, err := e.store.GetBucket(context.Background(), tc.name)
			if err != nil || b.Format != tc.want || b.Owner != "admin" {
				t.Fatalf("stored bucket %+v, %v", b, err)
			}
			page := e.get(c, "/buckets/"+tc.name)
			if got := page.text("flash"); got != "Bucket "+tc.name+" created" {
				t.Fatalf("flash after the redirect %q", got)
			}
			if e.get(c, "/buckets/"+tc.name).has("flash") {
				t.Fatal("flash shown twice")
			}
		})
	}
	list := e.get(c, "/buckets")
	rows := list.doc.Find(`[data-testid="bucket-row"]`)
	if rows.Length() != 3 {
		t.Fatalf("%d bucket rows", rows.Length())
	}
	lake := list.doc.Find(`[data-bucket="lakehouse"]`)
	if got := strings.TrimSpace(lake.Find(`[data-testid="bucket-endpoint"]`).Text()); got != "http://127.0.0.1:8181/v1/lakehouse" {
		t.Errorf("iceberg endpoint %q", got)
	}
	if f, _ := lake.Find(`[data-testid="format-badge"]`).Attr("data-format"); f != "ICEBERG" {
		t.Errorf("iceberg badge %q", f)
	}
	vec := list.doc.Find(`[data-bucket="vectors"]`)
	if got := strings.TrimSpace(vec.Find(`[data-testid="bucket-endpoint"]`).Text()); got != "http://127.0.0.1:9101" {
		t.Errorf("lance endpoint %q", got)
	}
	if r := e.post(c, "/buckets", url.Values{"name": {"vectors"}, "format": {"ICEBERG"}}); r.status != http.StatusConflict || r.text("error-name") == "" {
		t.Fatalf("duplicate name: %d %q", r.status, r.text("error-name"))
	}
}

func TestUnsetBucketBadge(t *testing.T) {
	e := newEnv(t, allSurfaces)
	e.seed("legacy", catalog.FormatUnset, "")
	r := e.get(e.admin(), "/buckets")
	badge := r.doc.Find(`[data-bucket="legacy"] [data-testid="format-badge"]`)
	title, _ := badge.Attr("title")
	if strings.TrimSpace(badge.Text()) != "unset" || !strings.Contains(badge.AttrOr("class", ""), "unset") || !strings.Contains(title, "before") {
		t.Fatalf("unset badge: text %q class %q title %q", badge.Text(), badge.AttrOr("class", ""), title)
	}
}

func TestFormatCards(t *testing.T) {
	cases := []struct {
		name           string
		surfaces       Surfaces
		lanceDisabled  bool
		icebergDisable bool
		checked        string
	}{
		{"both served, none preselected", allSurfaces, false, false, ""},
		{"only lance served", Surfaces{Console: "x", Lance: "127.0.0.1:9101"}, false, true, "LANCE"},
		{"only iceberg served", Surfaces{Console: "x", Iceberg: "127.0.0.1:8181"}, true, false, "ICEBERG"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, tc.surfaces)
			c := e.admin()
			r := e.get(c, "/buckets")
			for f, dis := range map[string]bool{"LANCE": tc.lanceDisabled, "ICEBERG": tc.icebergDisable} {
				radio := r.doc.Find(`[data-testid="format-radio-` + f + `"]`)
				_, isDis := radio.Attr("disabled")
				if isDis != dis {
					t.Errorf("%s disabled=%v, want %v", f, isDis, dis)
				}
				if dis && !strings.Contains(r.text("format-reason-"+f), "not running") {
					t.Errorf("%s card gives no reason", f)
				}
				_, checked := radio.Attr("checked")
				if checked != (tc.checked == f) {
					t.Errorf("%s checked=%v", f, checked)
				}
			}
			if tc.lanceDisabled {
				p := e.post(c, "/buckets", url.Values{"name": {"sneaky"}, "format": {"LANCE"}})
				if p.status != http.StatusUnprocessableEntity || !strings.Contains(p.text("error-format"), "--lance") {
					t.Fatalf("lance bucket with lance off: %d %q", p.status, p.text("error-format"))
				}
			}
		})
	}
}

func TestBucketNameRules(t *testing.T) {
	e := newEnv(t, allSurfaces)
	c := e.admin()
	cases := []struct{ name, input, rule string }{
		{"dollar", "bad$name", "lower-case letters, digits and hyphens"},
		{"slash", "a/b-c", "lower-case letters, digits and hyphens"},
		{"dots", "a..b", "lower-case letters, digits and hyphens"},
		{"upper case", "MyBucket", "lower-case letters, digits and hyphens"},
		{"unicode", "bücket", "lower-case letters, digits and hyphens"},
		{"too long", strings.Repeat("a", 64), "3–63 characters"},
		{"too short", "ab", "3–63 characters"},
		{"leading hyphen", "-abc", "start and end"},
		{"empty", "", "3–63"},
		{"xss", `<img src=x onerror=alert(1)>`, "lower-case"},
	}
	for _, tc := range cases {
		for _, htmx := range []bool{false, true} {
			t.Run(tc.name+map[bool]string{true: " htmx", false: ""}[htmx], func(t *testing.T) {
				hdr := map[string]string{}
				if htmx {
					hdr["HX-Request"] = "true"
				}
				r := e.do(c, "POST", "/buckets", url.Values{"name": {tc.input}, "format": {"LANCE"}}, hdr)
				if r.status != http.StatusUnprocessableEntity {
					t.Fatalf("status %d, want 422", r.status)
				}
				if msg := r.text("error-name"); !strings.Contains(msg, tc.rule) {
					t.Fatalf("message at name field %q lacks rule %q", msg, tc.rule)
				}
				if v, _ := r.doc.Find(`[data-testid="bucket-name-input"]`).Attr("value"); v != tc.input {
					t.Fatalf("typed name not kept: %q", v)
				}
				if !htmx {
					if _, open := r.doc.Find(`[data-testid="create-bucket-dialog"]`).Attr("open"); !open {
						t.Fatal("dialog not reopened on a refused plain POST")
					}
				}
				if strings.Contains(r.body, "<img src=x") {
					t.Fatal("typed name rendered as markup")
				}
			})
		}
	}
	if items, _, err := e.store.ListBuckets(context.Background(), catalog.ListOptions{}); err != nil || len(items) != 0 {
		t.Fatalf("refused names created buckets: %v %v", items, err)
	}
}

func TestEndpointHint(t *testing.T) {
	e := newEnv(t, allSurfaces)
	c := e.admin()
	cases := []struct {
		name, query string
		want        []string
		notWant     []string
	}{
		{"lance", "name=vec&format=LANCE", []string{"http://127.0.0.1:9101"}, nil},
		{"iceberg", "name=lake&format=ICEBERG", []string{"http://127.0.0.1:8181/v1/lake"}, nil},
		{"no format", "name=lake", []string{"Pick a format"}, nil},
		{"no name", "format=LANCE", []string{"Type a name"}, nil},
		{"xss stays text", "format=LANCE&name=" + url.QueryEscape(`<img src=x onerror=alert(1)>`),
			[]string{"&lt;img src=x onerror=alert(1)&gt;", "lower-case"}, []string{"<img"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := e.do(c, "GET", "/fragments/endpoint-hint?"+tc.query, nil, map[string]string{"HX-Request": "true"})
			if r.status != 200 || !r.has("endpoint-hint") {
				t.Fatalf("status %d body %s", r.status, r.body)
			}
			for _, w := range tc.want {
				if !strings.Contains(r.body, w) {
					t.Errorf("hint lacks %q: %s", w, r.body)
				}
			}
			for _, w := range tc.notWant {
				if strings.Contains(r.body, w) {
					t.Errorf("hint contains %q: %s", w, r.body)
				}
			}
			if strings.Contains(r.body, "<html") {
				t.Error("fragment rendered a whole page")
			}
		})
	}
}

func TestDeleteBucket(t *testing.T) {
	e := newEnv(t, allSurfaces)
	e.seed("full", catalog.FormatLance, "ns", "t1")
	c := e.admin()
	r := e.post(c, "/buckets/full/delete", url.Values{})
	if r.status != http.StatusConflict || !r.has("error-page") || r.doc.Find(`[data-testid="error-back"]`).AttrOr("href", "") != "/buckets/full" {
		t.Fatalf("non-empty delete: %d %s", r.status, r.body)
	}
	if r := e.post(c, "/buckets/full/delete", url.Values{"cascade": {"true"}}); r.status != http.StatusSeeOther {
		t.Fatalf("cascade delete: %d %s", r.status, r.body)
	}
	if _, err := e.store.GetBucket(context.Background(), "full"); err == nil {
		t.Fatal("bucket still there")
	}
	if got := e.get(c, "/buckets").text("flash"); got != "Bucket full deleted" {
		t.Fatalf("delete flash %q", got)
	}
}
