package s3tables_test

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"

	"github.com/floe/floe/s3tables"
)

// BenchmarkServe is the surface's own cost per request, in process (no
// network, no SDK): a signed GetTableBucket and a signed ListTables page of
// 100 (from the page cache) replayed through the handler, so the edge, the
// signature check and the operation are all that is timed. ns/op and
// allocs/op compare one build of the surface with another.
func BenchmarkServe(b *testing.B) {
	e := newTestEnv(b)
	e.makeTables("bench", []string{"ns"}, 1000)
	h := s3tables.New(s3tables.Config{Store: e.store, Region: testRegion, Account: testAccount,
		Logger: slog.New(slog.NewTextHandler(io.Discard, &slog.HandlerOptions{Level: slog.LevelWarn}))})
	barn := url.PathEscape(arnPrefix + "bucket/bench")
	for _, tc := range []struct{ name, path string }{
		{"GetTableBucket", "/buckets/" + barn},
		{"ListTables100", "/tables/" + barn + "?namespace=ns&maxTables=100"},
	} {
		b.Run(tc.name, func(b *testing.B) {
			req := httptest.NewRequest("GET", "http://127.0.0.1:9102"+tc.path, nil)
			signRequest(b, req, e.ro, nil, testRegion)
			b.ReportAllocs()
			for b.Loop() {
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, req)
				if rec.Code != http.StatusOK {
					b.Fatalf("%d %s", rec.Code, rec.Body)
				}
			}
		})
	}
}
