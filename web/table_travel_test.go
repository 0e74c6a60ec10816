package web

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/internal/lancetest"
	"github.com/floe/floe/lancecommit"
	"github.com/floe/floe/plugin"
	"github.com/floe/floe/plugin/pluginpb"
	"github.com/floe/floe/plugin/plugintest"
)

// writeVersions writes manifests 1..n into a Lance table's _versions/ as
// LanceDB names them.
func writeVersions(t *testing.T, tbl catalog.Table, n uint64) {
	t.Helper()
	dir := filepath.Join(strings.TrimPrefix(tbl.Location, "file://"), "_versions")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for v := uint64(1); v <= n; v++ {
		if err := os.WriteFile(filepath.Join(dir, catalog.ManifestName(v, true)), lancetest.Manifest(v, 100*v), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// Lance Browse Data reads an older version or a tag's version (the worker
// is asked for that number), pages past the first rows by offset, and
// refuses a version or tag the table lacks before asking any worker.
func TestBrowseDataLanceTimeTravel(t *testing.T) {
	e := newWorkerEnv(t, plugin.Options{})
	tbl := e.lanceTable("vec", "prod", "docs")
	writeVersions(t, tbl, 3)
	if err := lancecommit.New(e.store).CreateTag(context.Background(), tbl, "prod", 2); err != nil {
		t.Fatal(err)
	}
	ipc := docsIPC(t, 100)
	var mu sync.Mutex
	var asked []*pluginpb.Preview
	e.worker(plugintest.Config{WorkerID: "w-lance", PreviewFormats: []string{"LANCE"},
		OnPreview: func(ctx context.Context, p *pluginpb.Preview) ([][]byte, *pluginpb.PreviewDone) {
			mu.Lock()
			asked = append(asked, p)
			mu.Unlock()
			return plugintest.Split(ipc, 64<<10), &pluginpb.PreviewDone{TotalRows: 300, RowsSent: 100, Truncated: true}
		}})
	e.observeDocs(tbl, "w-lance")
	c := e.admin()
	page := "/buckets/vec/namespaces/prod/tables/docs/data"
	last := func() *pluginpb.Preview {
		mu.Lock()
		defer mu.Unlock()
		if len(asked) == 0 {
			return nil
		}
		return asked[len(asked)-1]
	}

	r := e.get(c, page+"?version=1&limit=100")
	if r.status != http.StatusOK || last().GetVersion() != 1 {
		t.Fatalf("version 1: %d, worker asked %v", r.status, last())
	}
	if sel := r.doc.Find(`[data-testid="version-picker"] option[selected]`).AttrOr("value", ""); sel != "1" {
		t.Errorf("picker shows %q", sel)
	}
	var opts []string
	for _, n := range r.doc.Find(`[data-testid="version-picker"] option`).Nodes {
		for _, a := range n.Attr {
			if a.Key == "value" {
				opts = append(opts, a.Val)
			}
		}
	}
	if strings.Join(opts, ",") != "latest,3,2,1,tag:prod" {
		t.Errorf("picker options %v", opts)
	}
	if f := r.text("grid-footer"); !strings.HasPrefix(f, "Version 1: ") {
		t.Errorf("footer %q", f)
	}

	for _, q := range []string{"?tag=prod", "?version=tag:prod"} {
		r = e.get(c, page+q)
		if r.status != http.StatusOK || last().GetVersion() != 2 || !strings.Contains(r.text("grid-footer"), "(tag prod)") {
			t.Errorf("%s: %d, asked version %d, footer %q", q, r.status, last().GetVersion(), r.text("grid-footer"))
		}
	}
	if r = e.get(c, page); last().GetVersion() != 0 {
		t.Errorf("no version: asked %d", last().GetVersion())
	}

	n := len(asked)
	for q, want := range map[string]int{"?version=9": 404, "?tag=nope": 404, "?version=abc": 422, "?version=2&tag=prod": 422, "?offset=-5": 422} {
		if r := e.get(c, page+q); r.status != want || !r.has("data-failure") {
			t.Errorf("%s: %d, want %d with a sentence", q, r.status, want)
		}
	}
	if len(asked) != n {
		t.Error("a refused link still asked the worker")
	}

	r = e.get(c, page+"?limit=100&offset=100&filter=id+%3E+1")
	if last().GetOffset() != 100 || last().GetFilter() != "id > 1" {
		t.Fatalf("offset page asked %v", last())
	}
	if got := r.text("rows-range"); got != "Rows 101–200" {
		t.Errorf("range %q", got)
	}
	prev := r.doc.Find(`[data-testid="rows-prev"]`).AttrOr("href", "")
	next := r.doc.Find(`[data-testid="rows-next"]`).AttrOr("href", "")
	if strings.Contains(prev, "offset") || !strings.Contains(prev, "filter=id") || !strings.Contains(next, "offset=200") || !strings.Contains(next, "limit=100") {
		t.Errorf("prev %q next %q", prev, next)
	}
}
