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
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	sdk "github.com/aws/aws-sdk-go-v2/service/s3tables"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/lancerest"
)

// benchClients is the concurrency both surfaces are driven at.
const benchClients = 16

// runLoad spreads n calls over benchClients goroutines and returns the
// calls per second.
func runLoad(b *testing.B, n int, call func() error) float64 {
	b.Helper()
	var next atomic.Int64
	var wg sync.WaitGroup
	var firstErr atomic.Value
	start := time.Now()
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
	elapsed := time.Since(start)
	if err, _ := firstErr.Load().(error); err != nil {
		b.Fatal(err)
	}
	return float64(n) / elapsed.Seconds()
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
	lance := httptest.NewServer(lancerest.New(lancerest.Config{Store: e.store, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}).Handler())
	b.Cleanup(lance.Close)
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
			runLoad(b, benchClients, s3)
			runLoad(b, benchClients, lanceList)
			b.ResetTimer()
			s3Rate := runLoad(b, b.N, s3)
			lanceRate := runLoad(b, b.N, lanceList)
			b.StopTimer()
			b.ReportMetric(s3Rate, "s3tables-req/s")
			b.ReportMetric(lanceRate, "lance-req/s")
			b.ReportMetric(s3Rate/lanceRate, "ratio")
			fmt.Printf("ListTables, 1,000 tables, page %d, %d clients: S3 Tables (SDK, SigV4) %.0f req/s, Lance REST %.0f req/s, ratio %.2f\n",
				page, benchClients, s3Rate, lanceRate, s3Rate/lanceRate)
		})
	}
}
