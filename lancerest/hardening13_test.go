package lancerest

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/internal/s3test"
	"github.com/floe/floe/warehouse"
)

// Hardening item 13, on a real SeaweedFS: deregistering a Lance table on an
// S3 warehouse leaves the table's objects exactly as they were — the same
// keys, sizes and contents, and no marker added. The table stays hidden
// (the state is the catalog's) and a declare brings it back.
func TestHardening13DeregisterOnS3LeavesObjectsExactly(t *testing.T) {
	store := s3test.New(t)
	ctx := t.Context()
	bucket := store.Bucket(t)
	root, _ := warehouse.Parse("s3://" + bucket + "/wh")
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
	post := func(op string) (int, string) {
		res, err := http.Post(srv.URL+"/v1/table/s3b$ns$kept/"+op, "application/json", strings.NewReader(`{"id":["s3b","ns","kept"]}`))
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		body, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(body)
	}
	if code, body := post("declare"); code != http.StatusOK {
		t.Fatalf("declare = %d %s", code, body)
	}
	// A table's worth of objects, as a Lance writer leaves them.
	admin := store.Client()
	prefix := root.MustJoin("s3b", "ns", "kept.lance").Path() + "/"
	for k, v := range map[string]string{
		"_versions/1.manifest": "manifest one", "_versions/2.manifest": "manifest two",
		"_transactions/0-a.txn": "txn", "data/frag-1.lance": "rows 0..99", "data/frag-2.lance": "rows 100..199",
		"_indices/idx/index.idx": "index",
	} {
		if _, err := admin.PutObject(ctx, &s3.PutObjectInput{Bucket: &bucket, Key: aws.String(prefix + k), Body: bytes.NewReader([]byte(v))}); err != nil {
			t.Fatal(err)
		}
	}
	// objects maps every key under the table's prefix to its size and the
	// SHA-256 of its contents, read back from the store.
	objects := func() map[string]string {
		out := map[string]string{}
		p := s3.NewListObjectsV2Paginator(admin, &s3.ListObjectsV2Input{Bucket: &bucket, Prefix: aws.String(prefix)})
		for p.HasMorePages() {
			page, err := p.NextPage(ctx)
			if err != nil {
				t.Fatal(err)
			}
			for _, o := range page.Contents {
				g, err := admin.GetObject(ctx, &s3.GetObjectInput{Bucket: &bucket, Key: o.Key})
				if err != nil {
					t.Fatal(err)
				}
				body, err := io.ReadAll(g.Body)
				g.Body.Close()
				if err != nil {
					t.Fatal(err)
				}
				sum := sha256.Sum256(body)
				out[strings.TrimPrefix(*o.Key, prefix)] = hex.EncodeToString(sum[:])
			}
		}
		return out
	}
	before := objects()
	if code, body := post("deregister"); code != http.StatusOK {
		t.Fatalf("deregister = %d %s", code, body)
	}
	after := objects()
	if !maps.Equal(before, after) {
		t.Fatalf("deregister changed the table's objects:\nbefore %d %v\nafter  %d %v",
			len(before), slices.Sorted(maps.Keys(before)), len(after), slices.Sorted(maps.Keys(after)))
	}
	if code, _ := post("exists"); code != http.StatusNotFound {
		t.Errorf("exists after deregister = %d, want 404", code)
	}
	if code, body := post("declare"); code != http.StatusOK {
		t.Fatalf("declare after deregister = %d %s", code, body)
	}
	// The declare rewrites its own .lance-reserved (it carries the time);
	// the data is untouched.
	got := objects()
	delete(got, ".lance-reserved")
	delete(before, ".lance-reserved")
	if !maps.Equal(before, got) {
		t.Errorf("the revived table's objects differ: %v", slices.Sorted(maps.Keys(got)))
	}
}
