package web

import (
	"context"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/floe/floe/lancecommit"
	"github.com/floe/floe/plugin"
)

// The table page lists a Lance table's tags and branches and lets a
// writer create, move and delete tags through the lancecommit service the
// Lance REST uses: what the page writes is what that service (and so
// LanceDB) reads back. Refused input comes back beside its field.
func TestTableLanceTags(t *testing.T) {
	e := newWorkerEnv(t, plugin.Options{})
	tbl := e.lanceTable("vec", "prod", "docs")
	writeVersions(t, tbl, 3)
	commits := lancecommit.New(e.store)
	ctx := context.Background()
	c := e.admin()
	page := "/buckets/vec/namespaces/prod/tables/docs"

	r := e.get(c, page)
	if r.status != http.StatusOK || !r.has("tags-empty") || !r.has("branches-empty") || !r.has("tag-create-form") {
		t.Fatalf("status %d: %q", r.status, r.text("tags-panel"))
	}

	r = e.post(c, page+"/tags", url.Values{"name": {"release-1"}, "version": {"2"}})
	if r.status != http.StatusSeeOther || r.header.Get("Location") != page+"#tags" {
		t.Fatalf("create: %d %q", r.status, r.header.Get("Location"))
	}
	if tg, err := commits.Tag(ctx, tbl, "release-1"); err != nil || tg.Version != 2 {
		t.Fatalf("service reads %+v, %v", tg, err)
	}
	r = e.get(c, page)
	row := r.doc.Find(`[data-testid="tag-row"][data-tag="release-1"]`)
	if row.Length() != 1 || row.Find(`[data-testid="tag-version"]`).Text() != "2" {
		t.Fatalf("tag not listed: %q", r.text("tags-panel"))
	}
	if href, _ := row.Find(`[data-testid="tag-browse"]`).Attr("href"); href != page+"/data?tag=release-1" {
		t.Errorf("browse link %q", href)
	}
	if !strings.Contains(r.body, "Tag release-1 now names version 2.") {
		t.Error("no confirmation after the redirect")
	}

	t.Run("refusals beside the field", func(t *testing.T) {
		for _, tc := range []struct {
			name, version string
			status        int
			field, want   string
		}{
			{"release-1", "3", http.StatusConflict, "name", "already has tag"},
			{"../escape", "1", http.StatusUnprocessableEntity, "name", "not a valid tag name"},
			{"v9", "9", http.StatusUnprocessableEntity, "version", "no version 9"},
			{"v0", "zero", http.StatusUnprocessableEntity, "version", "not a version number"},
		} {
			r := e.post(c, page+"/tags", url.Values{"name": {tc.name}, "version": {tc.version}})
			if r.status != tc.status || !strings.Contains(r.doc.Find("#err-"+tc.field).Text(), tc.want) {
				t.Errorf("%s@%s: %d, %s error %q", tc.name, tc.version, r.status, tc.field, r.doc.Find("#err-"+tc.field).Text())
			}
			if got, _ := r.doc.Find(`[data-testid="tag-name-input"]`).Attr("value"); got != tc.name {
				t.Errorf("%s: form lost the name (%q)", tc.name, got)
			}
		}
	})

	r = e.post(c, page+"/tags/release-1/move", url.Values{"version": {"3"}})
	if r.status != http.StatusSeeOther {
		t.Fatalf("move: %d %s", r.status, r.body)
	}
	if tg, _ := commits.Tag(ctx, tbl, "release-1"); tg.Version != 3 {
		t.Errorf("moved tag names %d", tg.Version)
	}
	if r := e.post(c, page+"/tags/nope/move", url.Values{"version": {"1"}}); r.status != http.StatusNotFound {
		t.Errorf("move of a missing tag: %d", r.status)
	}

	// A branch a Lance writer made is listed with its newest version.
	brDir := filepath.Join(strings.TrimPrefix(tbl.Location, "file://"), "_refs", "branches")
	if err := os.MkdirAll(brDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(brDir, "exp.json"), []byte(`{"parentBranch":null,"parentVersion":2,"createAt":1764547200,"manifestSize":10,"metadata":{}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	r = e.get(c, page)
	if br := r.doc.Find(`[data-testid="branch-row"][data-branch="exp"]`); br.Length() != 1 || !strings.Contains(br.Text(), "main at version 2") {
		t.Errorf("branch not listed: %q", r.text("tags-panel"))
	}

	t.Run("readers see tags, not the forms", func(t *testing.T) {
		r := e.get(e.reader(), page)
		if r.doc.Find(`[data-testid="tag-row"]`).Length() != 1 || r.has("tag-create-form") || r.has("tag-delete-form") {
			t.Errorf("reader's panel: %q", r.text("tags-panel"))
		}
		if r := e.post(e.reader(), page+"/tags/release-1/delete", nil); r.status != http.StatusForbidden {
			t.Errorf("reader's delete: %d", r.status)
		}
	})

	r = e.post(c, page+"/tags/release-1/delete", nil)
	if r.status != http.StatusSeeOther {
		t.Fatalf("delete: %d", r.status)
	}
	if _, err := commits.Tag(ctx, tbl, "release-1"); err == nil {
		t.Error("the tag survived its delete")
	}
	if r := e.post(c, page+"/tags/release-1/delete", nil); r.status != http.StatusNotFound {
		t.Errorf("second delete: %d", r.status)
	}
}
