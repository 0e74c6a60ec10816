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
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/edge"
	"github.com/floe/floe/internal/idptest"
	"github.com/floe/floe/oidc"
)

// BenchmarkDescribeIdPToken is DescribeTable's server path (as
// BenchmarkDescribeHandler) authenticated by the identity provider's
// access token — a JWT verified against Hydra's published key on every
// request — beside the same request with an API key (verified once, then
// from the key cache), alternating in one run. idp/apikey is the price of
// verifying the token's signature and claims per request.
func BenchmarkDescribeIdPToken(b *testing.B) {
	ctx := context.Background()
	idp := idptest.Start(b)
	idp.ServiceClient(b, idptest.Service{ID: "engine", Secret: "engine-secret-1", Audiences: []string{"floe"}, Groups: []string{"platform"}})
	tok := idp.ClientCredentials(b, "engine", "engine-secret-1", "floe")
	dir := b.TempDir()
	st, err := catalog.Open(ctx, catalog.Options{Path: filepath.Join(dir, "catalog.db"), Warehouse: filepath.Join(dir, "warehouse")})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	st.CacheReads(nil)
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
	p, err := oidc.New(oidc.Config{Issuer: idp.Issuer, Audience: "floe", Rights: oidc.Rights{AdminGroup: "platform"}})
	if err != nil {
		b.Fatal(err)
	}
	h := New(Config{Store: st, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Metrics: edge.NewMetrics(prometheus.NewRegistry()), IdP: p}).Handler()
	body := []byte(`{"id":["bench","ns","t0000"]}`)
	serve := func(header, value string) {
		req := httptest.NewRequest(http.MethodPost, "/v1/table/bench$ns$t0000/describe?delimiter=%24", bytes.NewReader(body))
		req.Header.Set(header, value)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			b.Fatalf("describe with %s: %d %s", header, rec.Code, rec.Body)
		}
	}
	withKey := func() { serve("x-api-key", key) }
	withToken := func() { serve("Authorization", "Bearer "+tok) }
	withKey()
	withToken() // the first discovers the provider and fetches its keys
	var tKey, tTok time.Duration
	n := 0
	timed := func(f func(), into *time.Duration) {
		t0 := time.Now()
		f()
		*into += time.Since(t0)
	}
	b.ReportAllocs()
	for b.Loop() {
		if n%2 == 0 {
			timed(withKey, &tKey)
			timed(withToken, &tTok)
		} else {
			timed(withToken, &tTok)
			timed(withKey, &tKey)
		}
		n++
	}
	b.ReportMetric(float64(tKey.Microseconds())/float64(n), "apikey-µs")
	b.ReportMetric(float64(tTok.Microseconds())/float64(n), "idp-µs")
	b.ReportMetric(tTok.Seconds()/tKey.Seconds(), "idp/apikey")
}
