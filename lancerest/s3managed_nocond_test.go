package lancerest

import (
	"errors"
	"strings"
	"testing"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/fault"
	"github.com/floe/floe/internal/s3test"
	"github.com/floe/floe/warehouse"
)

// TestLanceDBManagedOnS3WithoutConditionalPut is TestLanceDBManagedOnS3 on
// a store that ignores If-None-Match: SeaweedFS behind s3test's proxy,
// which strips the conditions from every write (floe's and LanceDB's, whose
// vended static keys name the proxy) and signs again. floe runs as
// --s3-conditional-put absent does: the database decides every commit, so
// the eight concurrent appenders lose nothing and the catalog's version
// list is still exactly _versions/. Buckets on such a store are managed
// and stay so.
func TestLanceDBManagedOnS3WithoutConditionalPut(t *testing.T) {
	root, node := nodeWithLanceDB(t)
	store := s3test.Require(t)
	proxy := store.NoConditionProxy(t)
	ctx := t.Context()

	// floe's own start-up check sees a store without conditional PUT.
	probeRoot, _ := warehouse.Parse("s3://" + store.Bucket(t) + "/probe")
	probe, err := warehouse.OpenS3(ctx, probeRoot, warehouse.S3Config{Endpoint: proxy.Endpoint, Region: s3test.Region, PathStyle: true,
		AccessKey: store.AccessKey, SecretKey: store.SecretKey})
	if err != nil {
		t.Fatal(err)
	}
	if err := probe.Check(ctx); !errors.Is(err, warehouse.ErrNoConditionalPut) {
		t.Fatalf("floe's start-up check through the proxy = %v, want ErrNoConditionalPut", err)
	}

	f := newManagedS3On(t, store, warehouse.S3Config{Endpoint: proxy.Endpoint, NoConditionalPut: true})
	if f.st.Storage().ConditionalWrites() {
		t.Fatal("the warehouse says its store honours conditional writes")
	}
	b, err := f.st.CreateBucket(ctx, catalog.CreateBucketInput{Name: "plain", Format: catalog.FormatLance})
	if err != nil || !b.ManagedVersioning {
		t.Fatalf("a new Lance bucket on a store without conditional PUT: managed %v, %v; want managed", b.ManagedVersioning, err)
	}
	err = f.st.SetManagedVersioning(ctx, "plain", false)
	if !errors.Is(err, fault.Invalid) || !strings.Contains(err.Error(), "If-None-Match") {
		t.Fatalf("turning managed versioning off there = %v; want a refusal naming If-None-Match", err)
	}

	runManagedJourney(t, root, node, f)

	// The journey's writes went through the proxy, and their conditions
	// (floe's final manifests at least) were stripped on the way.
	if n := proxy.Count("PUT", "/data/"); n == 0 {
		t.Fatal("no write of the table went through the proxy")
	}
	if proxy.Stripped() == 0 {
		t.Fatal("the proxy stripped no condition during the journey")
	}
	t.Logf("through the proxy: %d PUTs of data files, %d conditions stripped", proxy.Count("PUT", "/data/"), proxy.Stripped())
}
