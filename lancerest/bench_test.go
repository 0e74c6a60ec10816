package lancerest

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
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/floe/floe/catalog"
)

// benchClients is the number of concurrent HTTP clients in the benchmarks,
// the concurrency the throughput targets are stated for.
const benchClients = 16

// loadResult is what one load run measured.
type loadResult struct {
	n       int
	elapsed time.Duration
	p99     time.Duration
	err     error
}

func (r loadResult) rps() float64 { return float64(r.n) / r.elapsed.Seconds() }

// benchClient keeps one connection per client alive (the default transport
// keeps only two idle connections per host).
func benchClient() *http.Client {
	return &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: benchClients, MaxConnsPerHost: benchClients}}
}

// drive runs requests on benchClients goroutines while next() says to go on,
// recording each request's latency. do must read and close the response.
func drive(next func() bool, do func() error) loadResult {
	work := make(chan struct{})
	lat := make([][]time.Duration, benchClients)
	errs := make([]error, benchClients)
	var wg sync.WaitGroup
	for i := range benchClients {
		wg.Go(func() {
			for range work {
				t0 := time.Now()
				if err := do(); err != nil && errs[i] == nil {
					errs[i] = err
				}
				lat[i] = append(lat[i], time.Since(t0))
			}
		})
	}
	start := time.Now()
	n := 0
	for next() {
		work <- struct{}{}
		n++
	}
	close(work)
	wg.Wait()
	res := loadResult{n: n, elapsed: time.Since(start)}
	all := slices.Concat(lat...)
	slices.Sort(all)
	if len(all) > 0 {
		res.p99 = all[min(len(all)-1, len(all)*99/100)]
	}
	for _, err := range errs {
		if err != nil {
			res.err = err
			break
		}
	}
	return res
}

func counted(n int) func() bool {
	i := 0
	return func() bool { i++; return i <= n }
}

// requester builds a do-func for one request shape; the status must be 200.
func requester(c *http.Client, method, url, key string, body []byte) func() error {
	return func() error {
		req, err := http.NewRequest(method, url, bytes.NewReader(body))
		if err != nil {
			return err
		}
		if key != "" {
			req.Header.Set("x-api-key", key)
		}
		res, err := c.Do(req)
		if err != nil {
			return err
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		if res.StatusCode != http.StatusOK {
			return fmt.Errorf("%s %s: status %d", method, url, res.StatusCode)
		}
		return nil
	}
}

func report(b *testing.B, r loadResult) {
	b.Helper()
	if r.err != nil {
		b.Fatal(r.err)
	}
	b.ReportMetric(r.rps(), "req/s")
	b.ReportMetric(float64(r.p99.Microseconds())/1000, "p99-ms")
}

// emptyServer is the baseline: a handler that does nothing on the same
// loopback HTTP stack.
func emptyServer(b *testing.B) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{}`))
	}))
	b.Cleanup(srv.Close)
	return srv
}

// benchServer opens a catalog with bucket "bench", namespace "ns" and tables
// t0000..t(n-1), and serves the Lance REST handler on loopback.
func benchServer(b *testing.B, tables int) (*httptest.Server, string) {
	dir := b.TempDir()
	ctx := context.Background()
	st, err := catalog.Open(ctx, catalog.Options{Path: filepath.Join(dir, "catalog.db"), Warehouse: filepath.Join(dir, "warehouse")})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	if _, err := st.CreateBucket(ctx, catalog.CreateBucketInput{Name: "bench", Format: catalog.FormatLance}); err != nil {
		b.Fatal(err)
	}
	if _, err := st.CreateNamespace(ctx, "bench", []string{"ns"}, nil); err != nil {
		b.Fatal(err)
	}
	for i := range tables {
		ref := catalog.TableRef{Bucket: "bench", Namespace: []string{"ns"}, Name: fmt.Sprintf("t%04d", i)}
		// Tables the SDK has written (state created), as in steady use.
		loc := strings.TrimPrefix(st.DefaultLocation(ref, catalog.FormatLance), "file://")
		if err := os.MkdirAll(filepath.Join(loc, "_versions"), 0o755); err != nil {
			b.Fatal(err)
		}
		if _, _, err := st.CreateTable(ctx, catalog.CreateTableInput{TableRef: ref, Format: catalog.FormatLance}); err != nil {
			b.Fatal(err)
		}
	}
	_, key, err := st.CreateAPIKey(ctx, "bench", catalog.RoleReadWrite, "", 0)
	if err != nil {
		b.Fatal(err)
	}
	srv := httptest.NewServer(New(Config{Store: st, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}).Handler())
	b.Cleanup(srv.Close)
	return srv, key
}

func BenchmarkEmptyHandler(b *testing.B) {
	srv := emptyServer(b)
	do := requester(benchClient(), http.MethodPost, srv.URL+"/v1/table/bench$ns$t0000/describe?delimiter=%24", "", []byte(`{"id":["bench","ns","t0000"]}`))
	report(b, drive(b.Loop, do))
}

// BenchmarkDescribeTable measures DescribeTable as LanceDB's openTable sends
// it (req/s, p99), then its rate against the empty handler's measured in
// alternating rounds on the same machine, so load from anything else running
// falls on both sides of the ratio (target ≥ 0.5, p99 ≤ 2 ms at 16 clients).
func BenchmarkDescribeTable(b *testing.B) {
	srv, key := benchServer(b, 1)
	body := []byte(`{"id":["bench","ns","t0000"]}`)
	describe := requester(benchClient(), http.MethodPost, srv.URL+"/v1/table/bench$ns$t0000/describe?delimiter=%24", key, body)
	if err := describe(); err != nil {
		b.Fatal(err)
	}
	res := drive(b.Loop, describe)
	report(b, res)

	b.StopTimer()
	empty := emptyServer(b)
	baseline := requester(benchClient(), http.MethodPost, empty.URL+"/v1/table/bench$ns$t0000/describe?delimiter=%24", "", body)
	var d, e loadResult
	var dCPU, eCPU time.Duration
	for range ratioRounds {
		for _, side := range []struct {
			acc *loadResult
			cpu *time.Duration
			do  func() error
		}{{&d, &dCPU, describe}, {&e, &eCPU, baseline}} {
			c0 := processCPU()
			r := drive(counted(ratioRoundRequests), side.do)
			*side.cpu += processCPU() - c0
			if r.err != nil {
				b.Fatal(r.err)
			}
			side.acc.n += r.n
			side.acc.elapsed += r.elapsed
		}
	}
	ratio := d.rps() / e.rps()
	cpuRatio := float64(eCPU) / float64(dCPU) // CPU per request, client included on both sides
	b.ReportMetric(ratio, "describe/empty")
	b.ReportMetric(cpuRatio, "cpu-empty/describe")
	b.Logf("describe/empty rate = %.2f (describe %.0f req/s, empty %.0f req/s); CPU per request %v vs %v (ratio %.2f); %d alternating rounds of %d requests",
		ratio, d.rps(), e.rps(), dCPU/time.Duration(d.n), eCPU/time.Duration(e.n), cpuRatio, ratioRounds, ratioRoundRequests)
}

// ratioRounds × ratioRoundRequests requests per side give the ratio; short
// alternating rounds keep a busy machine's drift out of it.
const (
	ratioRounds        = 10
	ratioRoundRequests = 500
)

// BenchmarkListTables1000 lists a namespace of 1,000 tables in one page
// (target ≥ 1,000 req/s at 16 clients).
func BenchmarkListTables1000(b *testing.B) {
	srv, key := benchServer(b, 1000)
	do := requester(benchClient(), http.MethodGet, srv.URL+"/v1/namespace/bench$ns/table/list?delimiter=%24&limit=1000", key, nil)
	if err := do(); err != nil {
		b.Fatal(err)
	}
	report(b, drive(b.Loop, do))
}

// processCPU is this process's user+system CPU time so far: a per-request
// cost that other processes on a busy machine do not inflate.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
