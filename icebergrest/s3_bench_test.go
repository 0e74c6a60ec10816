package icebergrest

import (
	"context"
	"io"
	"log/slog"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	_ "github.com/apache/iceberg-go/io/gocloud/s3" // iceberg-go writes the S3 table, as an engine embedding it would
	"github.com/floe/floe/catalog"
	"github.com/floe/floe/internal/s3test"
	"github.com/floe/floe/warehouse"
)

// newS3Env is newEnv with the warehouse in a real S3 store of its own
// (SeaweedFS on loopback); iceberg-go gets the endpoint and floe's keys
// from LoadTable's config.
func newS3Env(t testing.TB) *testEnv {
	t.Helper()
	st := s3test.New(t)
	ctx := context.Background()
	root, err := warehouse.Parse("s3://" + st.Bucket(t) + "/wh")
	if err != nil {
		t.Fatal(err)
	}
	b, err := warehouse.OpenS3(ctx, root, warehouse.S3Config{Endpoint: st.Endpoint, Region: s3test.Region, PathStyle: true,
		AccessKey: st.AccessKey, SecretKey: st.SecretKey})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	store, err := catalog.Open(ctx, catalog.Options{Path: filepath.Join(dir, "catalog.db"), Warehouse: root.String(), Backend: b})
	if err != nil {
		t.Fatalf("open catalog: %v", err)
	}
	t.Cleanup(func() { store.Close() })
	srv := New(Config{Store: store, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Anonymous: true,
		Storage: warehouse.ClientAccess{S3: b, Mode: warehouse.VendStatic}})
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(hs.Close)
	return &testEnv{store: store, srv: srv, http: hs, dir: dir}
}

// BenchmarkReadRowsFirstPageS3VsLocal reads the first Browse Data page of
// the same 1M-row, 100-file table on local disk and on a real S3 store
// (SeaweedFS on loopback), interleaved in one run so machine load hits
// both alike. Target: S3 at most 3× local. Metrics: ms/page-local,
// ms/page-s3 and s3/local.
func BenchmarkReadRowsFirstPageS3VsLocal(b *testing.B) {
	ctx := context.Background()
	local := newEnv(b, true)
	localEntry := writeBigTable(b, local)
	remote := newS3Env(b)
	remoteEntry := writeBigTable(b, remote)
	// One read each before timing: the first read of a table warms the
	// metadata cache on both sides alike.
	readFirstPage(b, ctx, local.store, localEntry)
	readFirstPage(b, ctx, remote.store, remoteEntry)
	var tLocal, tS3 time.Duration
	n := 0
	for b.Loop() {
		t0 := time.Now()
		readFirstPage(b, ctx, local.store, localEntry)
		t1 := time.Now()
		readFirstPage(b, ctx, remote.store, remoteEntry)
		tS3 += time.Since(t1)
		tLocal += t1.Sub(t0)
		n++
	}
	b.ReportMetric(float64(tLocal.Microseconds())/1000/float64(n), "ms/page-local")
	b.ReportMetric(float64(tS3.Microseconds())/1000/float64(n), "ms/page-s3")
	b.ReportMetric(float64(tS3)/float64(tLocal), "s3/local")
}
