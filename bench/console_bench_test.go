// Package bench holds benchmarks that measure floe's surfaces against a
// baseline in the same run, so the ratios mean something on any machine.
package bench

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/persist/persisttest"
	"github.com/floe/floe/web"
)

// consoleTables is how many tables the benchmark namespace holds: enough that
// a page which read them all instead of one page would show it.
const consoleTables = 10_000

// BenchmarkConsolePages measures server time of the tables page (first and a
// middle page) and the buckets page through the real router with 10,000
// tables, against an empty handler measured in the same run, on each
// backend (PostgreSQL's target: tables page p50 ≤ 10 ms).
func BenchmarkConsolePages(b *testing.B) {
	for _, be := range backends {
		b.Run(be.name, func(b *testing.B) { consolePages(b, be.path(b)) })
	}
}

func consolePages(b *testing.B, dbPath string) {
	ctx := context.Background()
	dir := b.TempDir()
	pdb := persisttest.OpenAt(b, dbPath)
	st, err := catalog.New(ctx, pdb, catalog.Options{Warehouse: filepath.Join(dir, "wh")})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	if _, err := st.CreateUser(ctx, "bench", "bench-password", catalog.RoleAdmin); err != nil {
		b.Fatal(err)
	}
	if _, err := st.CreateBucket(ctx, catalog.CreateBucketInput{Name: "bench", Format: catalog.FormatLance}); err != nil {
		b.Fatal(err)
	}
	if _, err := st.CreateNamespace(ctx, "bench", []string{"docs"}, nil); err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	for i := range consoleTables {
		ref := catalog.TableRef{Bucket: "bench", Namespace: []string{"docs"}, Name: fmt.Sprintf("table_%05d", i)}
		if _, _, err := st.CreateTable(ctx, catalog.CreateTableInput{TableRef: ref, Format: catalog.FormatLance}); err != nil {
			b.Fatal(err)
		}
	}
	b.Logf("filled %d tables in %s", consoleTables, time.Since(start).Round(time.Millisecond))

	srv, err := web.New(web.Config{DB: pdb, Store: st, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Surfaces: web.Surfaces{Console: "127.0.0.1:9400", Lance: "127.0.0.1:9101"}})
	if err != nil {
		b.Fatal(err)
	}
	h := srv.Handler()
	cookies := login(b, h)
	empty := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") })

	pages := []struct{ name, path string }{
		{"tables_first", "/buckets/bench/namespaces/docs"},
		{"tables_middle", "/buckets/bench/namespaces/docs?page=100"},
		{"buckets", "/buckets"},
	}
	for _, p := range pages {
		b.Run(p.name, func(b *testing.B) {
			base := measure(b, empty, "/", cookies)
			got := measure(b, h, p.path, cookies)
			b.ReportMetric(float64(got.p50.Microseconds())/1000, "p50-ms")
			b.ReportMetric(float64(got.p99.Microseconds())/1000, "p99-ms")
			b.ReportMetric(float64(got.bytes)/1024, "page-KB")
			b.ReportMetric(float64(got.p50)/float64(base.p50), "x-empty-p50")
			b.Logf("%s: p50 %s p99 %s, %.1f KB, %.0f× an empty handler's p50 (%s)", p.path, got.p50, got.p99, float64(got.bytes)/1024, float64(got.p50)/float64(base.p50), base.p50)
		})
	}
}

type sample struct {
	p50, p99 time.Duration
	bytes    int
}

// measure serves path b.N times (at least 200) and returns server-time
// percentiles; every response must be 200.
func measure(b *testing.B, h http.Handler, path string, cookies []*http.Cookie) sample {
	n := max(b.N, 200)
	times := make([]time.Duration, 0, n)
	size := 0
	for range n {
		req := httptest.NewRequest(http.MethodGet, path, nil)
		for _, c := range cookies {
			req.AddCookie(c)
		}
		rec := httptest.NewRecorder()
		t0 := time.Now()
		h.ServeHTTP(rec, req)
		times = append(times, time.Since(t0))
		if rec.Code != http.StatusOK {
			b.Fatalf("GET %s: %d %s", path, rec.Code, rec.Body.String())
		}
		size = rec.Body.Len()
	}
	slices.Sort(times)
	return sample{p50: times[len(times)/2], p99: times[len(times)*99/100], bytes: size}
}

func login(b *testing.B, h http.Handler) []*http.Cookie {
	form := url.Values{"username": {"bench"}, "password": {"bench-password"}}
	req := httptest.NewRequest(http.MethodPost, "/login", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code >= 400 {
		b.Fatalf("login: %d %s", rec.Code, rec.Body.String())
	}
	cookies := rec.Result().Cookies()
	if len(cookies) == 0 {
		b.Fatal("login set no session cookie")
	}
	return cookies
}
