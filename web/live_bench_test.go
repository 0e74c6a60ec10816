package web

import (
	"context"
	"regexp"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/plugin"
	"github.com/floe/floe/plugin/pluginpb"
)

// benchClients is the number of pages watching one table.
const benchClients = 100

var benchStage = regexp.MustCompile(`bench-step-(\d+)`)

// BenchmarkLiveProgressFanout measures, for 100 pages following one job, a worker's Progress message to its
// fragment arriving on each of 100 connected pages: the gRPC stream, the
// job store's write and publish, the hub's render and fan-out, and the
// websocket. One op is one progress update; p50/p99 are over every
// (update, page) pair.
func BenchmarkLiveProgressFanout(b *testing.B) {
	e := newLiveEnv(b)
	n := b.N
	sent := make([]time.Time, n)
	var sentMu sync.Mutex
	start := make(chan struct{})
	finished := make(chan struct{})
	e.lanceWorker(func(ctx context.Context, job *pluginpb.JobSpec, progress func(*pluginpb.Progress)) *pluginpb.Completed {
		<-start
		for i := range n {
			sentMu.Lock()
			sent[i] = time.Now()
			sentMu.Unlock()
			progress(&pluginpb.Progress{JobId: job.GetJobId(), State: "running", Percent: float64(i*100) / float64(n), Stage: "bench-step-" + strconv.Itoa(i)})
			time.Sleep(5 * time.Millisecond) // a busy worker reports a few hundred times a second at most
		}
		<-finished
		return &pluginpb.Completed{JobId: job.GetJobId(), Success: true}
	})
	job, err := e.p.SubmitJob(context.Background(), plugin.JobSpec{Type: "lance_compact", ObjectID: "bench-table", Lane: "lance"})
	if err != nil {
		b.Fatal(err)
	}
	var lat []time.Duration
	var latMu sync.Mutex
	var wg sync.WaitGroup
	conns := make([]*websocket.Conn, benchClients)
	for c := range conns {
		// A browser each: one sign-in holds at most liveMaxPerSession.
		ws, _, err := e.dial("jobs="+job.ID, e.browser(catalog.RoleReadonly))
		if err != nil {
			b.Fatal(err)
		}
		conns[c] = ws
		b.Cleanup(func() { ws.Close() })
	}
	for _, ws := range conns {
		wg.Go(func() {
			seen := 0
			_ = ws.SetReadDeadline(time.Now().Add(5 * time.Minute))
			for seen < n {
				_, msg, err := ws.ReadMessage()
				if err != nil {
					b.Errorf("client read: %v", err)
					return
				}
				at := time.Now()
				m := benchStage.FindSubmatch(msg)
				if m == nil {
					continue
				}
				i, _ := strconv.Atoi(string(m[1]))
				sentMu.Lock()
				d := at.Sub(sent[i])
				sentMu.Unlock()
				latMu.Lock()
				lat = append(lat, d)
				latMu.Unlock()
				seen = i + 1
			}
		})
	}
	b.ResetTimer()
	close(start)
	wg.Wait()
	b.StopTimer()
	close(finished)
	if len(lat) == 0 {
		b.Fatal("no message arrived")
	}
	slices.Sort(lat)
	pct := func(p float64) float64 { return float64(lat[int(p*float64(len(lat)-1))].Microseconds()) / 1000 }
	b.ReportMetric(pct(0.50), "p50-ms")
	b.ReportMetric(pct(0.99), "p99-ms")
	b.ReportMetric(pct(1), "max-ms")
	b.ReportMetric(float64(len(lat))/float64(n*benchClients), "delivered-ratio")
}
