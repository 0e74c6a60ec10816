package lancerest

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/internal/s3test"
	"github.com/floe/floe/warehouse"
)

// BenchmarkDescribeS3VsLocal: DescribeTable with storage options on an S3
// warehouse against the same on a local one, alternating request by
// request on one machine; s3/local is throughput on S3 over throughput on
// disk (target ≥ 0.8).
func BenchmarkDescribeS3VsLocal(b *testing.B) {
	store := s3test.Require(b)
	ctx := b.Context()
	root, _ := warehouse.Parse("s3://" + store.Bucket(b) + "/wh")
	s3b, err := warehouse.OpenS3(ctx, root, warehouse.S3Config{Endpoint: store.Endpoint, Region: s3test.Region, PathStyle: true,
		AccessKey: store.AccessKey, SecretKey: store.SecretKey})
	if err != nil {
		b.Fatal(err)
	}
	serve := func(opts catalog.Options, storage StorageOptioner) string {
		opts.Path = filepath.Join(b.TempDir(), "catalog.db")
		st, err := catalog.Open(ctx, opts)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { st.Close() })
		if _, err := st.CreateBucket(ctx, catalog.CreateBucketInput{Name: "s3b", Format: catalog.FormatLance, Owner: "t"}); err != nil {
			b.Fatal(err)
		}
		if _, err := st.CreateNamespace(ctx, "s3b", []string{"ns"}, nil); err != nil {
			b.Fatal(err)
		}
		cfg := Config{Store: st, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Anonymous: true}
		if storage != nil {
			cfg.Storage = storage
		}
		srv := httptest.NewServer(New(cfg).Handler())
		b.Cleanup(srv.Close)
		if code := postBench(b, srv.URL+"/v1/table/s3b$ns$t/declare", `{"id":["s3b","ns","t"]}`); code != 200 {
			b.Fatalf("declare: %d", code)
		}
		// A table with data: a declared one is stat-ed on every read until
		// its first version appears, which is not the steady state measured.
		ref := catalog.TableRef{Bucket: "s3b", Namespace: []string{"ns"}, Name: "t"}
		t, err := st.GetTable(ctx, ref)
		if err != nil {
			b.Fatal(err)
		}
		loc, _ := warehouse.Parse(t.Location)
		if err := st.Storage().WriteFile(ctx, loc.MustJoin("_versions", "1.manifest"), []byte("m")); err != nil {
			b.Fatal(err)
		}
		if t, _ := st.GetTable(ctx, ref); t.State != catalog.StateCreated {
			b.Fatalf("table state %s after its first version, want created", t.State)
		}
		return srv.URL + "/v1/table/s3b$ns$t/describe"
	}
	local := serve(catalog.Options{Warehouse: filepath.Join(b.TempDir(), "wh")}, nil)
	onS3 := serve(catalog.Options{Warehouse: root.String(), Backend: s3b}, warehouse.ClientAccess{S3: s3b, Mode: warehouse.VendStatic})

	var tLocal, tS3 time.Duration
	for b.Loop() {
		for _, c := range []struct {
			url string
			acc *time.Duration
		}{{local, &tLocal}, {onS3, &tS3}} {
			t0 := time.Now()
			if code := postBench(b, c.url, `{}`); code != 200 {
				b.Fatalf("describe: %d", code)
			}
			*c.acc += time.Since(t0)
		}
	}
	b.ReportMetric(tLocal.Seconds()/tS3.Seconds(), "s3/local")
}

func postBench(b *testing.B, url, body string) int {
	res, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		b.Fatal(err)
	}
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
	return res.StatusCode
}
