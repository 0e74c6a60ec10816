package icebergrest

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	iceberggo "github.com/apache/iceberg-go"
	icecatalog "github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/table"
	"github.com/floe/floe/catalog"
	"github.com/floe/floe/iceberg"
)

// BenchmarkLoadTable measures GET …/tables/{table} against an empty handler
// on the same server and client, and reports the ratio (how many empty
// requests one LoadTable costs). Run with -bench LoadTable.
func BenchmarkLoadTable(b *testing.B) {
	for _, withKey := range []bool{false, true} {
		b.Run(fmt.Sprintf("apikey=%v", withKey), func(b *testing.B) {
			e := newEnv(b, !withKey)
			e.bucket(b, "lake", catalog.FormatIceberg)
			key := ""
			if withKey {
				_, key, _ = e.store.CreateAPIKey(context.Background(), "bench", catalog.RoleReadWrite, "", 0)
			}
			mux := http.NewServeMux()
			mux.HandleFunc("/empty", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) })
			mux.Handle("/", e.srv.Handler())
			hs := httptest.NewServer(mux)
			defer hs.Close()
			e.http = hs
			rawTable(b, e, "lake", key)
			get := func(path string) {
				req, _ := http.NewRequest("GET", hs.URL+path, nil)
				if key != "" {
					req.Header.Set("Authorization", "Bearer "+key)
				}
				resp, err := hs.Client().Do(req)
				if err != nil {
					b.Fatal(err)
				}
				resp.Body.Close()
				if resp.StatusCode >= 300 {
					b.Fatalf("%s: %d", path, resp.StatusCode)
				}
			}
			const rounds = 200 // requests per side per loop, interleaved so drift hits both
			var tLoad, tEmpty time.Duration
			n := 0
			for b.Loop() {
				for range rounds {
					t0 := time.Now()
					get("/v1/lake/namespaces/ns/tables/t")
					t1 := time.Now()
					get("/empty")
					tEmpty += time.Since(t1)
					tLoad += t1.Sub(t0)
					n++
				}
			}
			b.ReportMetric(float64(tLoad.Microseconds())/float64(n), "µs/load")
			b.ReportMetric(float64(tEmpty.Microseconds())/float64(n), "µs/empty")
			b.ReportMetric(float64(tLoad)/float64(tEmpty), "load/empty")
		})
	}
}

// BenchmarkReadRowsFirstPage reads the first Browse Data page of a table of
// 100 Parquet data files holding 1M rows (written by iceberg-go, one file per
// partition). Target: ≤ 200 ms per page. Run with -bench iceberg.ReadRows.
func BenchmarkReadRowsFirstPage(b *testing.B) {
	ctx := context.Background()
	e := newEnv(b, true)
	entry := writeBigTable(b, e)
	b.ResetTimer()
	for b.Loop() {
		readFirstPage(b, ctx, e.store, entry)
	}
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/page")
}

// bigRows and bigFiles are the table the Browse Data benchmarks read: 1M
// rows in 100 Parquet files, one per partition.
const bigRows, bigFiles = 1_000_000, 100

// writeBigTable creates lake.ns.big through e's Iceberg REST with
// iceberg-go and appends bigRows rows in bigFiles files; it returns the
// catalog entry the console reads.
func writeBigTable(b testing.TB, e *testEnv) catalog.Table {
	b.Helper()
	ctx := context.Background()
	e.bucket(b, "lake", catalog.FormatIceberg)
	cat := newClient(b, e.http.URL, "lake", "")
	if err := cat.CreateNamespace(ctx, table.Identifier{"ns"}, nil); err != nil {
		b.Fatal(err)
	}
	schema := iceberggo.NewSchema(0,
		iceberggo.NestedField{ID: 1, Name: "id", Type: iceberggo.PrimitiveTypes.Int64, Required: true},
		iceberggo.NestedField{ID: 2, Name: "part", Type: iceberggo.PrimitiveTypes.Int64, Required: true},
		iceberggo.NestedField{ID: 3, Name: "payload", Type: iceberggo.PrimitiveTypes.String},
	)
	spec := iceberggo.NewPartitionSpec(iceberggo.PartitionField{SourceIDs: []int{2}, FieldID: 1000, Name: "part", Transform: iceberggo.IdentityTransform{}})
	tbl, err := cat.CreateTable(ctx, table.Identifier{"ns", "big"}, schema, icecatalog.WithPartitionSpec(&spec))
	if err != nil {
		b.Fatal(err)
	}
	const rows, files = bigRows, bigFiles
	as := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "part", Type: arrow.PrimitiveTypes.Int64},
		{Name: "payload", Type: arrow.BinaryTypes.String, Nullable: true},
	}, nil)
	bld := array.NewRecordBuilder(memory.DefaultAllocator, as)
	for i := range int64(rows) {
		bld.Field(0).(*array.Int64Builder).Append(i)
		bld.Field(1).(*array.Int64Builder).Append(i / (rows / files)) // sorted: one run per partition
		bld.Field(2).(*array.StringBuilder).Append(fmt.Sprintf("row-%d", i))
	}
	rec := bld.NewRecordBatch()
	bld.Release()
	at := array.NewTableFromRecords(as, []arrow.RecordBatch{rec})
	rec.Release()
	if _, err := tbl.AppendTable(ctx, at, 1<<16, nil); err != nil {
		b.Fatal(err)
	}
	at.Release()
	entry, err := e.store.GetTable(ctx, catalog.TableRef{Bucket: "lake", Namespace: []string{"ns"}, Name: "big"})
	if err != nil {
		b.Fatal(err)
	}
	md, err := iceberg.LoadTableMetadata(ctx, e.store.Storage(), entry)
	if err != nil {
		b.Fatal(err)
	}
	if md.TotalRecords != rows || md.TotalDataFiles != files {
		b.Fatalf("table holds %d rows in %d files", md.TotalRecords, md.TotalDataFiles)
	}
	return entry
}

// readFirstPage is what the console's Browse Data does for the table's
// first page.
func readFirstPage(b testing.TB, ctx context.Context, st *catalog.Store, entry catalog.Table) {
	page, err := iceberg.ReadRows(ctx, st.Storage(), entry, 0, iceberg.DefaultRowLimit)
	if err != nil {
		b.Fatal(err)
	}
	if len(page.Rows) != iceberg.DefaultRowLimit || !page.More {
		b.Fatalf("page = %d rows, more=%v, notes %v", len(page.Rows), page.More, page.Notes)
	}
}

// BenchmarkLoadTableSigV4 measures LoadTable signed with SigV4 (the client
// signs every request with the AWS SDK's signer, as iceberg-go does; the
// server looks the key up and re-signs) against LoadTable with the same
// key's Bearer, interleaved on one server and client. sigv4/bearer is the
// ratio of rates (≥ 0.7 wanted); server-* is the handler alone (in
// process, no network or client signing), interleaved the same way, and
// cpu-* the same handler's CPU time on its thread (robust to other load on
// the machine; Linux only, threadcpu_linux_test.go); allocs/* are its
// allocations per request.
func BenchmarkLoadTableSigV4(b *testing.B) {
	e := newSigV4Env(b)
	e.bucket(b, "lake", catalog.FormatIceberg)
	_, bearer, err := e.store.CreateAPIKey(context.Background(), "bench", catalog.RoleReadWrite, "", 0)
	if err != nil {
		b.Fatal(err)
	}
	rawTable(b, e.testEnv, "lake", bearer)
	path := e.http.URL + "/v1/lake/namespaces/ns/tables/t"
	get := func(req *http.Request) {
		resp, err := e.http.Client().Do(req)
		if err != nil {
			b.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			b.Fatalf("%d", resp.StatusCode)
		}
	}
	bearerReq := func() *http.Request {
		req, _ := http.NewRequest("GET", path, nil)
		req.Header.Set("Authorization", "Bearer "+bearer)
		return req
	}
	sigReq := func() *http.Request {
		return signed(b, "GET", path, "", "s3tables", testRegion, e.key.AccessKeyID, e.key.SecretAccessKey, time.Now())
	}
	// The handler alone, in process: what the server spends per request.
	h := e.srv.Handler()
	serve := func(req *http.Request) {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != 200 {
			b.Fatalf("%d %s", rec.Code, rec.Body)
		}
	}
	allocs := func(mk func() *http.Request) float64 {
		const n = 100
		reqs := make([]*http.Request, n)
		for i := range reqs {
			reqs[i] = mk()
		}
		var m0, m1 runtime.MemStats
		runtime.ReadMemStats(&m0)
		for _, req := range reqs {
			serve(req)
		}
		runtime.ReadMemStats(&m1)
		return float64(m1.Mallocs-m0.Mallocs) / n
	}
	const rounds = 100 // requests per side per loop, interleaved so drift hits both
	var tBearer, tSig, sBearer, sSig time.Duration
	n := 0
	// timed runs f and adds its time to d.
	timed := func(d *time.Duration, f func()) {
		t0 := time.Now()
		f()
		*d += time.Since(t0)
	}
	// cpu runs f and adds this thread's CPU time to d: the in-process serve
	// runs on the calling goroutine, locked to its thread, so a machine
	// busy with other work inflates its wall time but not this.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var cBearer, cSig time.Duration
	cpu := func(d *time.Duration, f func()) {
		t0 := threadCPU()
		f()
		*d += threadCPU() - t0
	}
	for b.Loop() {
		for i := range rounds {
			rb, rs := bearerReq(), sigReq() // built outside the server's time
			wall := []func(){func() { timed(&tBearer, func() { get(bearerReq()) }) }, func() { timed(&tSig, func() { get(sigReq()) }) }}
			rb2, rs2 := bearerReq(), sigReq()
			server := []func(){func() { timed(&sBearer, func() { serve(rb) }) }, func() { timed(&sSig, func() { serve(rs) }) },
				func() { cpu(&cBearer, func() { serve(rb2) }) }, func() { cpu(&cSig, func() { serve(rs2) }) }}
			if i%2 == 1 { // alternate who goes first, so neither side always pays for it
				wall[0], wall[1] = wall[1], wall[0]
				server[0], server[1] = server[1], server[0]
				server[2], server[3] = server[3], server[2]
			}
			for _, f := range append(wall, server...) {
				f()
			}
			n++
		}
	}
	b.StopTimer()
	aBearer, aSig := allocs(bearerReq), allocs(sigReq)
	b.ReportMetric(float64(tBearer.Microseconds())/float64(n), "µs/bearer")
	b.ReportMetric(float64(tSig.Microseconds())/float64(n), "µs/sigv4")
	b.ReportMetric(float64(tBearer)/float64(tSig), "sigv4/bearer")
	b.ReportMetric(float64(sBearer.Microseconds())/float64(n), "server-µs/bearer")
	b.ReportMetric(float64(sSig.Microseconds())/float64(n), "server-µs/sigv4")
	b.ReportMetric(float64(sBearer)/float64(sSig), "server-sigv4/bearer")
	if cSig > 0 {
		b.ReportMetric(float64(cBearer.Microseconds())/float64(n), "cpu-µs/bearer")
		b.ReportMetric(float64(cSig.Microseconds())/float64(n), "cpu-µs/sigv4")
		b.ReportMetric(float64(cBearer)/float64(cSig), "cpu-sigv4/bearer")
	}
	b.ReportMetric(aBearer, "allocs/bearer")
	b.ReportMetric(aSig, "allocs/sigv4")
}

// BenchmarkLoadTableInProcess serves LoadTable through the surface's
// handler in process (no network, no client), so what it measures is the
// server's own work per request, edge included: cpu-µs/load is the thread
// CPU time (robust to other load on the machine; Linux only), allocs/load
// the allocations. It compares builds (before/after a change, same
// session), where wall-time ratios on a busy machine swing too much.
func BenchmarkLoadTableInProcess(b *testing.B) {
	for _, withKey := range []bool{false, true} {
		b.Run(fmt.Sprintf("apikey=%v", withKey), func(b *testing.B) {
			e := newEnv(b, !withKey)
			e.bucket(b, "lake", catalog.FormatIceberg)
			key := ""
			if withKey {
				_, key, _ = e.store.CreateAPIKey(context.Background(), "bench", catalog.RoleReadWrite, "", 0)
			}
			rawTable(b, e, "lake", key)
			h := e.srv.Handler()
			req := func() *http.Request {
				r := httptest.NewRequest("GET", "/v1/lake/namespaces/ns/tables/t", nil)
				if key != "" {
					r.Header.Set("Authorization", "Bearer "+key)
				}
				return r
			}
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			const rounds = 200
			reqs := make([]*http.Request, rounds)
			var cpu time.Duration
			var mallocs uint64
			n := 0
			for b.Loop() {
				for i := range reqs {
					reqs[i] = req()
				}
				var m0, m1 runtime.MemStats
				runtime.ReadMemStats(&m0)
				t0 := threadCPU()
				for _, r := range reqs {
					rec := httptest.NewRecorder()
					h.ServeHTTP(rec, r)
					if rec.Code != 200 {
						b.Fatalf("%d %s", rec.Code, rec.Body)
					}
				}
				cpu += threadCPU() - t0
				runtime.ReadMemStats(&m1)
				mallocs += m1.Mallocs - m0.Mallocs
				n += rounds
			}
			if cpu > 0 {
				b.ReportMetric(float64(cpu.Nanoseconds())/1000/float64(n), "cpu-µs/load")
			}
			b.ReportMetric(float64(mallocs)/float64(n), "allocs/load")
		})
	}
}
