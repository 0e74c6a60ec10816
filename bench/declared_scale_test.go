package bench

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/edge"
	"github.com/floe/floe/internal/dbschema"
	"github.com/floe/floe/lancerest"
	"github.com/floe/floe/persist/persisttest"
	"github.com/floe/floe/warehouse"
	"github.com/floe/floe/web"
)

// countedDisk is the local warehouse counting Exists calls: on S3 each is
// one store request, so they are the figure that grows with the namespace.
type countedDisk struct {
	*warehouse.Local
	exists atomic.Int64
}

func (d *countedDisk) Exists(ctx context.Context, loc warehouse.Location) (bool, error) {
	d.exists.Add(1)
	return d.Local.Exists(ctx, loc)
}

// declaredSizes are the namespaces the benchmark compares (issue 27: the
// costs that grew with them must not).
var declaredSizes = []int{1_000, 10_000}

// BenchmarkDeclaredScale measures, with namespaces of 1,000 and 10,000
// Lance tables only declared (one in a hundred written), what grew with the
// namespace (issue 27): Lance ListTables(1000) with include_declared=false,
// DescribeTable of a declared table (with a flag in the body, so it is
// decoded), and the console's namespace page of declared rows; each as p50
// server time and storage checks per request, and the 10,000 / 1,000 ratio
// from the same run. The store caches reads, as floe serve does.
func BenchmarkDeclaredScale(b *testing.B) {
	ctx := context.Background()
	dir := b.TempDir()
	wdir := filepath.Join(dir, "wh")
	if err := os.MkdirAll(wdir, 0o755); err != nil {
		b.Fatal(err)
	}
	local, err := warehouse.OpenLocal(wdir)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { local.Close() })
	disk := &countedDisk{Local: local}
	pdb := persisttest.OpenAt(b, filepath.Join(dir, "catalog.db"), dbschema.All()...)
	st, err := catalog.New(pdb, catalog.Options{Warehouse: local.Root().String(), Backend: disk})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	st.CacheReads(nil)
	if _, err := st.CreateUser(ctx, "bench", "bench-password", catalog.RoleAdmin); err != nil {
		b.Fatal(err)
	}
	if _, err := st.CreateBucket(ctx, catalog.CreateBucketInput{Name: "bench", Format: catalog.FormatLance}); err != nil {
		b.Fatal(err)
	}
	_, key, err := st.CreateAPIKey(ctx, "bench", catalog.RoleReadWrite, "", 0)
	if err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	for _, n := range declaredSizes {
		ns := fmt.Sprintf("d%d", n)
		if _, err := st.CreateNamespace(ctx, "bench", []string{ns}, nil); err != nil {
			b.Fatal(err)
		}
		for i := range n {
			ref := catalog.TableRef{Bucket: "bench", Namespace: []string{ns}, Name: fmt.Sprintf("t%05d", i)}
			t, _, err := st.CreateTable(ctx, catalog.CreateTableInput{TableRef: ref, Format: catalog.FormatLance})
			if err != nil {
				b.Fatal(err)
			}
			if i%100 == 99 { // written by an SDK since
				if err := os.MkdirAll(filepath.Join(strings.TrimPrefix(t.Location, "file://"), "_versions"), 0o755); err != nil {
					b.Fatal(err)
				}
			}
		}
	}
	b.Logf("declared %d tables in %s", 11_000, time.Since(start).Round(time.Millisecond))

	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	lance := lancerest.New(lancerest.Config{Store: st, Logger: quiet, Metrics: edge.NewMetrics(prometheus.NewRegistry())}).Handler()
	console, err := web.New(web.Config{DB: pdb, Store: st, Logger: quiet, Surfaces: web.Surfaces{Console: "127.0.0.1:9400", Lance: "127.0.0.1:9101"}})
	if err != nil {
		b.Fatal(err)
	}
	ch := console.Handler()
	cookies := login(b, ch)

	type figure struct {
		p50    time.Duration
		checks float64
	}
	got := map[string]map[int]figure{}
	run := func(name string, n int, serve func() *httptest.ResponseRecorder) {
		b.Run(fmt.Sprintf("%s/%d", name, n), func(b *testing.B) {
			if rec := serve(); rec.Code != http.StatusOK {
				b.Fatalf("%s: %d %s", name, rec.Code, rec.Body.String())
			}
			reqs := max(b.N, 100)
			times := make([]time.Duration, 0, reqs)
			before := disk.exists.Load()
			for range reqs {
				t0 := time.Now()
				serve()
				times = append(times, time.Since(t0))
			}
			checks := float64(disk.exists.Load()-before) / float64(reqs)
			slices.Sort(times)
			f := figure{p50: times[len(times)/2], checks: checks}
			b.ReportMetric(float64(f.p50.Microseconds())/1000, "p50-ms")
			b.ReportMetric(checks, "storage-checks/op")
			if got[name] == nil {
				got[name] = map[int]figure{}
			}
			got[name][n] = f
		})
	}
	lanceReq := func(method, path string, body []byte) func() *httptest.ResponseRecorder {
		return func() *httptest.ResponseRecorder {
			req := httptest.NewRequest(method, path, bytes.NewReader(body))
			req.Header.Set("x-api-key", key)
			rec := httptest.NewRecorder()
			lance.ServeHTTP(rec, req)
			return rec
		}
	}
	for _, n := range declaredSizes {
		ns := fmt.Sprintf("d%d", n)
		run("list_undeclared_1000", n, lanceReq(http.MethodGet,
			"/v1/namespace/bench$"+ns+"/table/list?delimiter=%24&include_declared=false&limit=1000", nil))
		run("describe_declared", n, lanceReq(http.MethodPost, "/v1/table/bench$"+ns+"$t00000/describe?delimiter=%24",
			[]byte(`{"id":["bench","`+ns+`","t00000"],"with_table_uri":true}`)))
		run("console_namespace", n, func() *httptest.ResponseRecorder {
			req := httptest.NewRequest(http.MethodGet, "/buckets/bench/namespaces/"+ns, nil)
			for _, c := range cookies {
				req.AddCookie(c)
			}
			rec := httptest.NewRecorder()
			ch.ServeHTTP(rec, req)
			return rec
		})
	}
	for _, name := range []string{"list_undeclared_1000", "describe_declared", "console_namespace"} {
		small, large := got[name][declaredSizes[0]], got[name][declaredSizes[1]]
		if small.p50 == 0 || large.p50 == 0 {
			continue
		}
		b.Logf("%s: p50 %s at %d tables, %s at %d (ratio %.2f); storage checks per request %.1f and %.1f",
			name, small.p50, declaredSizes[0], large.p50, declaredSizes[1], float64(large.p50)/float64(small.p50), small.checks, large.checks)
	}
}
