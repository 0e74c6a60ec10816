package taskapi

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/floe/floe/tasks"
)

// Benchmarks report, beside ns/op, the ratio to an empty handler served by
// the same server through the same client in the same run, so the figure
// says what the task API costs over bare HTTP on this machine.
//
//	go test -run '^$' -bench . -benchtime 2s ./taskapi/

// benchEnv is newEnv plus an empty handler on the same server.
func benchEnv(b *testing.B) (*env, func(n int) time.Duration) {
	e := newEnv(b, envOpts{})
	api := e.srv.Config.Handler
	e.srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/empty" {
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(`{}`))
			return
		}
		api.ServeHTTP(w, r)
	})
	baseline := func(n int) time.Duration {
		start := time.Now()
		for range n {
			req, _ := http.NewRequest("GET", e.srv.URL+"/empty", nil)
			req.Host = "mybucket.localhost"
			resp, err := e.srv.Client().Do(req)
			if err != nil {
				b.Fatal(err)
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
		return time.Since(start) / time.Duration(n)
	}
	return e, baseline
}

// benchDo sends one call and fails the benchmark unless the status matches.
func benchDo(b *testing.B, e *env, method, path, body string, want int) {
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, _ := http.NewRequest(method, e.srv.URL+"/lance/oss/v1"+path, rd)
	req.Host = "mybucket.localhost"
	req.Header.Set("x-api-key", e.rw)
	resp, err := e.srv.Client().Do(req)
	if err != nil {
		b.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != want {
		b.Fatalf("%s %s: status %d, want %d", method, path, resp.StatusCode, want)
	}
}

const baselineRequests = 300 // enough for a stable mean, short next to the benchmark

// BenchmarkSubmit: one compact submission (validate, quota count + insert in
// one immediate transaction, hand-over to a runner, job id stored) with
// 1,000 cleanup tasks already stored for the table.
func BenchmarkSubmit(b *testing.B) {
	e, baseline := benchEnv(b)
	e.fill(e.table.ID, tasks.TypeCleanup, tasks.MaxTasksPerType)
	base := baseline(baselineRequests)
	stored := 0
	b.ResetTimer()
	for b.Loop() {
		if stored == tasks.MaxTasksPerType-1 { // stay under the quota: clear and go on
			b.StopTimer()
			e.db.ExecContext(context.Background(), `DELETE FROM lance_tasks WHERE task_type = 'lance_compact'`)
			stored = 0
			b.StartTimer()
		}
		benchDo(b, e, "POST", "/table/ns$tbl/compact", `{"target_rows_per_fragment": 4096}`, 200)
		stored++
	}
	b.StopTimer()
	perOp := b.Elapsed() / time.Duration(max(b.N, 1))
	b.ReportMetric(float64(perOp)/float64(base), "x_empty_handler")
	b.ReportMetric(float64(time.Second)/float64(perOp), "submits/s")
}

// BenchmarkSubmitParallel: submissions from concurrent clients (GOMAXPROCS
// goroutines), the rate the quota transaction allows.
func BenchmarkSubmitParallel(b *testing.B) {
	e, _ := benchEnv(b)
	b.SetParallelism(4) // 4×GOMAXPROCS concurrent clients
	tables := []string{"t0", "t1", "t2", "t3", "t4", "t5", "t6", "t7"}
	for _, n := range tables {
		e.lanceTable("mybucket", "ns", n)
	}
	b.ResetTimer()
	start := time.Now()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			n := tables[int(time.Now().UnixNano()/7)%len(tables)]
			req, _ := http.NewRequest("POST", e.srv.URL+"/lance/oss/v1/table/ns$"+n+"/optimize_indices", nil)
			req.Host = "mybucket.localhost"
			req.Header.Set("x-api-key", e.rw)
			resp, err := e.srv.Client().Do(req)
			if err != nil {
				b.Error(err)
				return
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 && resp.StatusCode != 429 {
				b.Errorf("status %d", resp.StatusCode)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "submits/s")
}

// BenchmarkList: list latency with 1,000 tasks stored for the table and type.
func BenchmarkList(b *testing.B) {
	e, baseline := benchEnv(b)
	e.fill(e.table.ID, tasks.TypeCompact, tasks.MaxTasksPerType)
	// A marker 900 tasks deep, for the last page.
	deep := ""
	{
		list, next, err := e.svc.List(b.Context(), e.table.ID, tasks.ListOptions{Type: tasks.TypeCompact, Limit: 900})
		if err != nil || len(list) != 900 || next == "" {
			b.Fatalf("setup list: %d, %v", len(list), err)
		}
		deep = next
	}
	base := baseline(baselineRequests)
	for _, c := range []struct{ name, query string }{
		{"first100", "task_type=lance_compact"},
		{"last100", "task_type=lance_compact&marker=" + deep},
		{"all1000", "task_type=lance_compact&max_results=1000"},
	} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				benchDo(b, e, "GET", "/table/ns$tbl/tasks?"+c.query, "", 200)
			}
			perOp := b.Elapsed() / time.Duration(max(b.N, 1))
			b.ReportMetric(float64(perOp)/float64(base), "x_empty_handler")
		})
	}
}
