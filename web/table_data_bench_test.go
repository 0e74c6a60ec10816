package web

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/plugin"
	"github.com/floe/floe/plugin/pluginpb"
	"github.com/floe/floe/plugin/plugintest"
)

// BenchmarkBrowseDataLance200x10 serves Browse Data for 200 rows × 10
// columns, one a 768-dim float32 vector, straight into the handler stack
// (no network on the browser side): session, catalog reads, the preview
// round trip to a scripted worker over bufconn gRPC (about 0.6 MB of Arrow
// IPC), decoding, and rendering the page. The target is ≤ 5 ms per page.
func BenchmarkBrowseDataLance200x10(b *testing.B) {
	e := newWorkerEnv(b, plugin.Options{})
	tbl := e.lanceTable("vec", "prod", "docs")
	ipc := docsIPC(b, 200)
	chunks := plugintest.Split(ipc, 256<<10)
	e.worker(plugintest.Config{WorkerID: "w-lance", PreviewFormats: []string{"LANCE"},
		OnPreview: func(ctx context.Context, p *pluginpb.Preview) ([][]byte, *pluginpb.PreviewDone) {
			return chunks, &pluginpb.PreviewDone{TotalRows: 20000, RowsSent: 200}
		}})
	e.observeDocs(tbl, "w-lance")
	h := e.server.Handler()
	cookie := e.sessionCookie("admin", catalog.RoleAdmin)
	path := "/buckets/vec/namespaces/prod/tables/docs/data?limit=200"
	var size int
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		req := httptest.NewRequest(http.MethodGet, path, nil)
		req.AddCookie(cookie)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			b.Fatalf("status %d: %s", rec.Code, rec.Body.String())
		}
		size = rec.Body.Len()
	}
	b.ReportMetric(float64(size)/1024, "KiB/page")
}
