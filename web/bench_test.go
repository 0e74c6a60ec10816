package web

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/floe/floe/catalog"
)

// BenchmarkConsolePages reports each page's cost as a ratio to /healthz served
// by the same handler stack in the same run (x-healthz), so the figure means
// the same on a laptop and a CI box. Requests go straight to the handler, so
// the ratio is rendering + catalog reads + session lookup, not the network.
func BenchmarkConsolePages(b *testing.B) {
	e := newEnv(b, allSurfaces)
	names := make([]string, 200)
	for i := range names {
		names[i] = fmt.Sprintf("t%03d", i)
	}
	e.seed("vec", catalog.FormatLance, "prod", names...)
	e.seed("lake", catalog.FormatIceberg, "raw")
	h := e.server.Handler()
	cookie := e.sessionCookie("admin", catalog.RoleAdmin)

	serve := func(path string) {
		req := httptest.NewRequest(http.MethodGet, path, nil)
		req.AddCookie(cookie)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			b.Fatalf("%s: status %d", path, rec.Code)
		}
	}
	perOp := func(path string, n int) time.Duration {
		start := time.Now()
		for range n {
			serve(path)
		}
		return time.Since(start) / time.Duration(n)
	}
	for _, path := range []string{
		"/buckets",
		"/buckets/vec",
		"/buckets/vec/namespaces/prod",
		"/buckets/vec/namespaces/prod?page=4",
		"/buckets/vec/namespaces/prod/tables/t150",
		"/connect",
	} {
		b.Run(path, func(b *testing.B) {
			const baselineRuns = 200 // enough to average out scheduler noise
			base := perOp("/healthz", baselineRuns)
			b.ResetTimer()
			for b.Loop() {
				serve(path)
			}
			b.StopTimer()
			page := b.Elapsed() / time.Duration(max(b.N, 1))
			b.ReportMetric(float64(page)/float64(max(base, 1)), "x-healthz")
		})
	}
}
