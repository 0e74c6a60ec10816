package lancerest

import (
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/fault"
	"github.com/floe/floe/internal/s3test"
	"github.com/floe/floe/warehouse"
)

// With the store stopped, a declare that needs storage answers 503 with a
// sentence and leaves no catalog row; with the store back, the same
// request succeeds without restarting anything.
func TestStoreOutageDuringDeclare(t *testing.T) {
	store := s3test.New(t)
	ctx := t.Context()
	root, _ := warehouse.Parse("s3://" + store.Bucket(t) + "/wh")
	b, err := warehouse.OpenS3(ctx, root, warehouse.S3Config{Endpoint: store.Endpoint, Region: s3test.Region, PathStyle: true,
		AccessKey: store.AccessKey, SecretKey: store.SecretKey})
	if err != nil {
		t.Fatal(err)
	}
	st, err := catalog.Open(ctx, catalog.Options{Path: filepath.Join(t.TempDir(), "catalog.db"), Warehouse: root.String(), Backend: b})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if _, err := st.CreateBucket(ctx, catalog.CreateBucketInput{Name: "s3b", Format: catalog.FormatLance, Owner: "t"}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.CreateNamespace(ctx, "s3b", []string{"ns"}, nil); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(New(Config{Store: st, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Anonymous: true,
		Storage: warehouse.ClientAccess{S3: b, Mode: warehouse.VendOff}}).Handler())
	defer srv.Close()
	declare := func() (int, string) {
		res, err := http.Post(srv.URL+"/v1/table/s3b$ns$t/declare", "application/json", strings.NewReader(`{"id":["s3b","ns","t"]}`))
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		body, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(body)
	}
	ref := catalog.TableRef{Bucket: "s3b", Namespace: []string{"ns"}, Name: "t"}
	marker := root.MustJoin("s3b", "ns", "t.lance", ".lance-reserved")

	store.Stop()
	code, body := declare()
	if code != http.StatusServiceUnavailable || !strings.Contains(body, `"code":17`) || !strings.Contains(body, "object store does not answer") {
		t.Fatalf("declare with the store down = %d %s; want 503 code 17 with a sentence", code, body)
	}
	if _, err := st.GetTable(ctx, ref); !errors.Is(err, fault.NotFound) {
		t.Fatalf("after the failed declare the catalog has the table (err %v); want no row", err)
	}

	if err := store.Start(); err != nil {
		t.Fatal(err)
	}
	if code, body := declare(); code != http.StatusOK {
		t.Fatalf("declare with the store back = %d %s", code, body)
	}
	if ok, err := b.Exists(ctx, marker); !ok || err != nil {
		t.Fatalf("marker %s after declare: %v, %v", marker, ok, err)
	}
}
