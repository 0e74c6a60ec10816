package lancerest

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
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

// TestUnmanagedRiskWithoutConditionalPut measures what the README warns of:
// eight LanceDB 0.39 writers commit straight to storage on an unmanaged
// bucket. On weed itself (If-None-Match honoured) nothing is lost; on the
// same store behind the stripping proxy, with a floe that believes the
// store honours it (so the bucket stays unmanaged), it logs how many
// acknowledged appends the table lost, asserting only that no more appear
// than were acknowledged (whether a race replaces a version is up to the
// scheduler).
func TestUnmanagedRiskWithoutConditionalPut(t *testing.T) {
	root, node := nodeWithLanceDB(t)
	store := s3test.Require(t)
	proxy := store.NoConditionProxy(t)
	honoured := runRisk(t, root, node, newManagedS3On(t, store, warehouse.S3Config{Endpoint: store.Endpoint}))
	if honoured.Lost != 0 || honoured.Present != float64(honoured.Acknowledged) {
		t.Fatalf("on a store that honours If-None-Match the unmanaged table lost appends: %+v", honoured)
	}
	ignored := runRisk(t, root, node, newManagedS3On(t, store, warehouse.S3Config{Endpoint: proxy.Endpoint}))
	if ignored.Present > float64(ignored.Acknowledged) {
		t.Fatalf("the table holds %v appends, more than the %d acknowledged", ignored.Present, ignored.Acknowledged)
	}
	t.Logf("unmanaged table, 8 writers: If-None-Match honoured: %d acknowledged, %v present; ignored: %d acknowledged, %d failed, %v present, %v lost (%d conditions stripped)",
		honoured.Acknowledged, honoured.Present, ignored.Acknowledged, ignored.Failed, ignored.Present, ignored.Lost, proxy.Stripped())
}

// riskResult is the JSON line test/lancedb-managed/risk.mjs prints.
type riskResult struct {
	Acknowledged int     `json:"acknowledged"`
	Failed       int     `json:"failed"`
	Present      float64 `json:"appends_present"`
	Lost         float64 `json:"lost"`
}

func runRisk(t *testing.T, root, node string, f managedS3) riskResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), realClientTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "test/lancedb-managed/risk.mjs")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "FLOE_LANCE_URL="+f.url, "FLOE_API_KEY="+f.key,
		"AWS_ACCESS_KEY_ID=", "AWS_SECRET_ACCESS_KEY=", "AWS_ENDPOINT_URL=")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("risk.mjs: %v\n%s", err, out)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	var res riskResult
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &res); err != nil {
		t.Fatalf("risk.mjs printed %q: %v", out, err)
	}
	return res
}
