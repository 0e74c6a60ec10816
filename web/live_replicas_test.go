package web

import (
	"context"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"golang.org/x/crypto/bcrypt"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/internal/dbschema"
	"github.com/floe/floe/internal/runtest"
	"github.com/floe/floe/persist"
	"github.com/floe/floe/persist/notify"
	"github.com/floe/floe/persist/pgtest"
	"github.com/floe/floe/plugin"
	"github.com/floe/floe/plugin/pluginpb"
)

// newReplicaPair starts two consoles, each with its plugin and bus, on one
// fresh PostgreSQL database and one warehouse: replicas A and B.
func newReplicaPair(t testing.TB) (a, b *liveEnv) {
	t.Helper()
	dsn, dir := pgtest.DSN(t), t.TempDir()
	wh := filepath.Join(dir, "warehouse")
	open := func(name string) *liveEnv {
		db, err := persist.Open(context.Background(), persist.Options{Path: dsn})
		if err != nil {
			t.Fatal(err)
		}
		if err := dbschema.Migrate(context.Background(), db); err != nil {
			t.Fatal(err)
		}
		bus := notify.New(db, notify.Options{Replica: name})
		runtest.Start(t, bus)
		select {
		case <-bus.Listening():
		case <-time.After(liveWait):
			t.Fatal("bus never listened")
		}
		t.Cleanup(func() { bus.Close(); db.Close() }) // after the env's own cleanup
		return newLiveEnvOn(t, db, wh, bus)
	}
	a = open("A")
	b = open("B")
	st, err := catalog.New(a.db, catalog.Options{Warehouse: wh, BcryptCost: bcrypt.MinCost})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.CreateUser(context.Background(), "admin", adminPass, catalog.RoleAdmin); err != nil {
		t.Fatal(err)
	}
	return a, b
}

// TestLiveProgressFromOtherReplica: a page on replica B following a job
// sees the progress the job's worker, connected to replica A, reports.
func TestLiveProgressFromOtherReplica(t *testing.T) {
	a, b := newReplicaPair(t)
	release := make(chan struct{})
	a.lanceWorker(func(ctx context.Context, job *pluginpb.JobSpec, progress func(*pluginpb.Progress)) *pluginpb.Completed {
		progress(&pluginpb.Progress{JobId: job.GetJobId(), Percent: 37, Stage: "cross-replica-stage"})
		select {
		case <-release:
		case <-ctx.Done():
		}
		return &pluginpb.Completed{JobId: job.GetJobId(), Success: true}
	})
	defer close(release)
	job, err := a.p.SubmitJob(context.Background(), plugin.JobSpec{Type: "lance_compact", ObjectID: "t-rep", Lane: "lance"})
	if err != nil {
		t.Fatal(err)
	}
	ws, _, err := b.dial("jobs="+job.ID, b.browser(catalog.RoleReadonly))
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	readUntil(t, ws, "cross-replica-stage", "37")
}

// BenchmarkLiveProgressAcrossReplicas: a worker on replica A reports
// progress and 100 pages follow the job: on replica B (through the bus: A's
// write, NOTIFY, B's re-read and render), then, in the same run, on A
// itself for comparison. p50/p99 are over every (update, page) pair.
func BenchmarkLiveProgressAcrossReplicas(b *testing.B) {
	for _, pagesOnB := range []bool{true, false} {
		name := "pages-on-other-replica"
		if !pagesOnB {
			name = "pages-on-same-replica"
		}
		b.Run(name, func(b *testing.B) {
			a, rb := newReplicaPair(b)
			pages := a
			if pagesOnB {
				pages = rb
			}
			benchFanout(b, a, pages)
		})
	}
}

// benchFanout runs a job on worker's replica and measures its progress
// reaching benchClients pages of the pages replica.
func benchFanout(b *testing.B, worker, pages *liveEnv) {
	n := b.N
	sent := make([]time.Time, n)
	var sentMu sync.Mutex
	start, finished := make(chan struct{}), make(chan struct{})
	worker.lanceWorker(func(ctx context.Context, job *pluginpb.JobSpec, progress func(*pluginpb.Progress)) *pluginpb.Completed {
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
	job, err := worker.p.SubmitJob(context.Background(), plugin.JobSpec{Type: "lance_compact", ObjectID: "bench-table", Lane: "lance"})
	if err != nil {
		b.Fatal(err)
	}
	var mu sync.Mutex
	var lat []time.Duration
	var wg sync.WaitGroup
	hdr := pages.browser(catalog.RoleReadonly)
	for range benchClients {
		ws, _, err := pages.dial("jobs="+job.ID, hdr)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { ws.Close() })
		wg.Go(func() {
			readSteps(b, ws, n, sent, &sentMu, func(d time.Duration) { mu.Lock(); lat = append(lat, d); mu.Unlock() })
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
	// Below 1 when a replica re-reading the row finds a later step
	// already there and skips the ones between (pages show the latest).
	b.ReportMetric(float64(len(lat))/float64(n*benchClients), "delivered-ratio")
}

// readSteps reads bench-step-N fragments from ws until step n-1, recording
// each one's latency from its send.
func readSteps(b *testing.B, ws *websocket.Conn, n int, sent []time.Time, sentMu *sync.Mutex, record func(time.Duration)) {
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
		record(d)
		seen = i + 1
	}
}
