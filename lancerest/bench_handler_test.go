package lancerest

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/edge"
)

// BenchmarkDescribeHandler is DescribeTable's server path alone, no
// network: the edge (request id, authentication, access log to a discarding
// text handler, metrics), routing, the body, the cached table read, the
// answer. Its allocs/op and ns/op are what the cross-process benchmark's
// server CPU per request is made of, measured without a load generator.
func BenchmarkDescribeHandler(b *testing.B) {
	ctx := context.Background()
	dir := b.TempDir()
	st, err := catalog.Open(ctx, catalog.Options{Path: filepath.Join(dir, "catalog.db"), Warehouse: filepath.Join(dir, "warehouse")})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	st.CacheReads(nil) // as floe serve does: on SQLite the change stamp validates
	if _, err := st.CreateBucket(ctx, catalog.CreateBucketInput{Name: "bench", Format: catalog.FormatLance}); err != nil {
		b.Fatal(err)
	}
	if _, err := st.CreateNamespace(ctx, "bench", []string{"ns"}, nil); err != nil {
		b.Fatal(err)
	}
	ref := catalog.TableRef{Bucket: "bench", Namespace: []string{"ns"}, Name: "t0000"}
	loc := strings.TrimPrefix(st.DefaultLocation(ref, catalog.FormatLance), "file://")
	if err := os.MkdirAll(filepath.Join(loc, "_versions"), 0o755); err != nil {
		b.Fatal(err)
	}
	if _, _, err := st.CreateTable(ctx, catalog.CreateTableInput{TableRef: ref, Format: catalog.FormatLance}); err != nil {
		b.Fatal(err)
	}
	_, key, err := st.CreateAPIKey(ctx, "bench", catalog.RoleReadWrite, "", 0)
	if err != nil {
		b.Fatal(err)
	}
	h := New(Config{Store: st, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Metrics: edge.NewMetrics(prometheus.NewRegistry())}).Handler()
	body := []byte(`{"id":["bench","ns","t0000"]}`)
	serve := func() *httptest.ResponseRecorder {
		req := httptest.NewRequest(http.MethodPost, "/v1/table/bench$ns$t0000/describe?delimiter=%24", bytes.NewReader(body))
		req.Header.Set("x-api-key", key)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec
	}
	if rec := serve(); rec.Code != http.StatusOK {
		b.Fatalf("describe: %d %s", rec.Code, rec.Body)
	}
	b.ReportAllocs()
	for b.Loop() {
		serve()
	}
}
