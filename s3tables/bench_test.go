package s3tables_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	sdk "github.com/aws/aws-sdk-go-v2/service/s3tables"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/lancerest"
	"github.com/floe/floe/s3tables"
)

// benchClients is the concurrency both surfaces are driven at.
const benchClients = 16

// processCPU is this process's user+system CPU time: per-request CPU is a
// figure other processes on a shared machine do not inflate, unlike rates.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// load is what one runLoad measured.
type load struct {
	rate   float64       // calls per second
	cpu    time.Duration // process CPU (client and server) per call
	server time.Duration // S3 Tables handler wall time per call
}

// runLoad spreads n calls over benchClients goroutines.
func runLoad(b *testing.B, n int, serverNanos *atomic.Int64, call func() error) load {
	b.Helper()
	var next atomic.Int64
	var wg sync.WaitGroup
	var firstErr atomic.Value
	serverNanos.Store(0)
	cpu0, start := processCPU(), time.Now()
	for range benchClients {
		wg.Go(func() {
			for next.Add(1) <= int64(n) {
				if err := call(); err != nil {
					firstErr.CompareAndSwap(nil, err)
				}
			}
		})
	}
	wg.Wait()
	elapsed, cpu := time.Since(start), processCPU()-cpu0
	if err, _ := firstErr.Load().(error); err != nil {
		b.Fatal(err)
	}
	return load{rate: float64(n) / elapsed.Seconds(), cpu: cpu / time.Duration(n), server: time.Duration(serverNanos.Load()) / time.Duration(n)}
}

// BenchmarkListTables lists a namespace of 1,000 tables through the AWS
// SDK (request signing on the client, verification on the server) and
// through the Lance Namespace REST surface on the same catalog, at the same
// page size and concurrency, and prints both rates and their ratio.
//
//	go test -run '^$' -bench ListTables -benchtime 2000x ./s3tables/
func BenchmarkListTables(b *testing.B) {
	e := newTestEnv(b)
	e.makeTables("bench", []string{"ns"}, 1000)
	_, secret, err := e.store.CreateAPIKey(context.Background(), "bench", catalog.RoleReadonly, "", 0)
	if err != nil {
		b.Fatal(err)
	}
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	lance := httptest.NewServer(lancerest.New(lancerest.Config{Store: e.store, Logger: quiet}).Handler())
	b.Cleanup(lance.Close)
	// A second S3 Tables server on the same catalog, timed: how much of a
	// request is the server's and how much the SDK's.
	var serverNanos atomic.Int64
	st := s3tables.New(s3tables.Config{Store: e.store, Region: testRegion, Account: testAccount, Logger: quiet})
	timed := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t0 := time.Now()
		st.ServeHTTP(w, r)
		serverNanos.Add(int64(time.Since(t0)))
	}))
	b.Cleanup(timed.Close)
	e.srv = timed
	httpc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: benchClients, MaxConnsPerHost: benchClients}}
	c := e.client(e.ro, func(o *sdk.Options) { o.HTTPClient = httpc })
	barn := aws.String(arnPrefix + "bucket/bench")
	ctx := context.Background()
	for _, page := range []int{100, 1000} {
		b.Run(fmt.Sprintf("page=%d", page), func(b *testing.B) {
			want := page
			s3 := func() error {
				out, err := c.ListTables(ctx, &sdk.ListTablesInput{TableBucketARN: barn, Namespace: aws.String("ns"), MaxTables: aws.Int32(int32(page))})
				if err == nil && len(out.Tables) != want {
					err = fmt.Errorf("S3 Tables listed %d tables, want %d", len(out.Tables), want)
				}
				return err
			}
			url := fmt.Sprintf("%s/v1/namespace/bench%%24ns/table/list?limit=%d", lance.URL, page)
			lanceList := func() error {
				req, _ := http.NewRequest("GET", url, nil)
				req.Header.Set("x-api-key", secret)
				resp, err := httpc.Do(req)
				if err != nil {
					return err
				}
				defer resp.Body.Close()
				if _, err := io.Copy(io.Discard, resp.Body); err != nil {
					return err
				}
				if resp.StatusCode != 200 {
					return fmt.Errorf("Lance REST list: %s", resp.Status)
				}
				return nil
			}
			// Warm both (connections, statement cache, list cache) before timing.
			var unused atomic.Int64
			runLoad(b, benchClients, &serverNanos, s3)
			runLoad(b, benchClients, &unused, lanceList)
			b.ResetTimer()
			s3l := runLoad(b, b.N, &serverNanos, s3)
			ll := runLoad(b, b.N, &unused, lanceList)
			b.StopTimer()
			b.ReportMetric(s3l.rate, "s3tables-req/s")
			b.ReportMetric(ll.rate, "lance-req/s")
			b.ReportMetric(s3l.rate/ll.rate, "ratio")
			b.ReportMetric(float64(s3l.cpu.Microseconds()), "s3tables-cpu-µs/req")
			b.ReportMetric(float64(s3l.server.Microseconds()), "s3tables-server-µs/req")
			fmt.Printf("ListTables, 1,000 tables, page %d, %d clients: S3 Tables (SDK, SigV4) %.0f req/s (%s CPU/req, client+server; server handler %s), "+
				"Lance REST %.0f req/s (%s CPU/req), ratio %.2f\n",
				page, benchClients, s3l.rate, s3l.cpu, s3l.server, ll.rate, ll.cpu, s3l.rate/ll.rate)
		})
	}
}
