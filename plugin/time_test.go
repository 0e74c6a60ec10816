package plugin

import (
	"context"
	"path/filepath"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/persist"
	"github.com/floe/floe/plugin/pluginpb"
)

// fakeWorker is a session injected without gRPC; a goroutine plays its
// writer and records what the console queued.
type fakeWorker struct {
	s  *session
	mu sync.Mutex
	in []*pluginpb.ConsoleMessage
}

func injectWorker(p *Plugin, id string, caps ...*pluginpb.Capability) *fakeWorker {
	// A real token: keys are minted only under a token that exists, and
	// streams whose token is gone are closed.
	tok, _, err := p.store.CreateWorkerToken(context.Background(), "tok")
	if err != nil {
		panic(err)
	}
	s := newSession(p.root, &pluginpb.Hello{WorkerId: id, InstanceId: id + "-1", Capabilities: caps}, tok, p.now())
	fw := &fakeWorker{s: s}
	p.reg.add(s)
	p.jobs.onConnect(s)
	p.wg.Go(func() {
		for {
			select {
			case <-s.ctx.Done():
				return
			case m := <-s.out:
				fw.mu.Lock()
				fw.in = append(fw.in, m)
				fw.mu.Unlock()
			}
		}
	})
	return fw
}

func (fw *fakeWorker) disconnect(p *Plugin) {
	fw.s.cancel(context.Canceled)
	if p.reg.remove(fw.s, p.now()) {
		p.jobs.onDisconnect(fw.s)
	}
}

func (fw *fakeWorker) count(pick func(*pluginpb.ConsoleMessage) bool) int {
	fw.mu.Lock()
	defer fw.mu.Unlock()
	n := 0
	for _, m := range fw.in {
		if pick(m) {
			n++
		}
	}
	return n
}

func isExecute(m *pluginpb.ConsoleMessage) bool { return m.GetExecute() != nil }
func isJobCancel(m *pluginpb.ConsoleMessage) bool {
	return m.GetCancel() != nil && m.GetCancel().GetJobId() != ""
}

// newBubblePlugin opens a catalog and a plugin inside a synctest bubble.
func newBubblePlugin(t *testing.T, dir string, opts Options) (*Plugin, func()) {
	db, err := persist.Open(context.Background(), persist.Options{Path: filepath.Join(dir, "c.db")})
	if err != nil {
		t.Fatal(err)
	}
	migrate(t, db)
	st, err := catalog.New(db, catalog.Options{Warehouse: filepath.Join(dir, "wh")})
	if err != nil {
		t.Fatal(err)
	}
	opts.SchedulerTick = time.Second
	p, err := New(Config{DB: db, Store: st, Logger: quietLogger(), Options: opts})
	if err != nil {
		t.Fatal(err)
	}
	stop := start(t, p)
	return p, func() {
		if err := stop(); err != nil {
			t.Error(err)
		}
		st.Close()
		db.Close()
	}
}

func TestStaleWorkerAndRetention(t *testing.T) {
	dir := t.TempDir()
	synctest.Test(t, func(t *testing.T) {
		p, stop := newBubblePlugin(t, dir, Options{HeartbeatTimeout: 30 * time.Second, DisconnectedRetention: 10 * time.Minute, DisableScheduler: true})
		defer stop()
		fw := injectWorker(p, "w1")
		fw.s.heartbeat(&pluginpb.Heartbeat{SlotsUsed: 1, SlotsTotal: 4}, p.now())
		if w, _ := p.Worker("w1"); w.Status != WorkerConnected || w.SlotsTotal != 4 {
			t.Fatalf("fresh worker: %+v", w)
		}
		time.Sleep(31 * time.Second)
		if w, _ := p.Worker("w1"); w.Status != WorkerStale {
			t.Fatalf("after the heartbeat timeout: %s", w.Status)
		}
		if len(p.reg.live(p.now())) != 0 {
			t.Fatal("a stale worker is offered work")
		}
		time.Sleep(61 * time.Second) // three timeouts of silence: the reaper cancels
		synctest.Wait()
		if fw.s.alive() {
			t.Fatal("silent session not cancelled")
		}
		fw.disconnect(p)
		if w, ok := p.Worker("w1"); !ok || w.Status != WorkerDisconnected {
			t.Fatalf("gone worker not listed as disconnected: %+v", w)
		}
		time.Sleep(10*time.Minute + time.Minute)
		synctest.Wait()
		if _, ok := p.Worker("w1"); ok {
			t.Fatal("disconnected worker kept past retention")
		}
	})
}

func TestAttemptDeadlineRetryAndOrphanExpiry(t *testing.T) {
	dir := t.TempDir()
	synctest.Test(t, func(t *testing.T) {
		p, stop := newBubblePlugin(t, dir, Options{HeartbeatTimeout: time.Hour, JobOrphanExpiry: 15 * time.Minute})
		defer stop()
		d := compactDescriptor("v1")
		d.Runtime.ExecutionTimeoutSeconds, d.Runtime.Retries, d.Runtime.RetryBackoffSeconds = 60, 2, 30
		if err := p.types.store(context.Background(), d); err != nil {
			t.Fatal(err)
		}
		fw := injectWorker(p, "w1", capability("lance_compact", "lance"))
		j, err := p.SubmitJob(context.Background(), JobSpec{Type: "lance_compact", ObjectID: "t1"})
		if err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Second)
		synctest.Wait()
		if g, _ := p.GetJob(context.Background(), j.ID); g.State != JobAssigned || g.Attempts != 1 || fw.count(isExecute) != 1 {
			t.Fatalf("not dispatched: %s attempts %d executes %d", g.State, g.Attempts, fw.count(isExecute))
		}
		time.Sleep(61 * time.Second) // past the attempt deadline
		synctest.Wait()
		g, _ := p.GetJob(context.Background(), j.ID)
		if g.State != JobPending || fw.count(isJobCancel) != 1 || g.Error == "" {
			t.Fatalf("after deadline: %s cancels %d err %q", g.State, fw.count(isJobCancel), g.Error)
		}
		time.Sleep(25 * time.Second) // inside the 30s backoff: not yet retried
		synctest.Wait()
		if fw.count(isExecute) != 1 {
			t.Fatal("retried before the backoff")
		}
		time.Sleep(6 * time.Second)
		synctest.Wait()
		if g, _ := p.GetJob(context.Background(), j.ID); g.State != JobAssigned || g.Attempts != 2 || fw.count(isExecute) != 2 {
			t.Fatalf("retry: %s attempts %d", g.State, g.Attempts)
		}
		// The worker goes away mid-attempt: no deadline applies while it is
		// gone; the job expires after the orphan expiry.
		fw.disconnect(p)
		time.Sleep(14 * time.Minute)
		synctest.Wait()
		if g, _ := p.GetJob(context.Background(), j.ID); g.State != JobAssigned {
			t.Fatalf("expired early: %s", g.State)
		}
		time.Sleep(2 * time.Minute)
		synctest.Wait()
		if g, _ := p.GetJob(context.Background(), j.ID); g.State != JobExpired {
			t.Fatalf("orphan not expired: %s", g.State)
		}
	})
}

func TestFinishedJobsPrunedAfterRetention(t *testing.T) {
	dir := t.TempDir()
	synctest.Test(t, func(t *testing.T) {
		p, stop := newBubblePlugin(t, dir, Options{JobRetention: 48 * time.Hour, DisableScheduler: true})
		defer stop()
		old, _ := p.SubmitJob(context.Background(), JobSpec{Type: "x"})
		if _, err := p.CancelJob(context.Background(), old.ID); err != nil {
			t.Fatal(err)
		}
		live, _ := p.SubmitJob(context.Background(), JobSpec{Type: "x"})
		time.Sleep(49 * time.Hour)
		synctest.Wait()
		if _, err := p.GetJob(context.Background(), old.ID); err != ErrJobNotFound {
			t.Fatalf("finished job past retention: %v", err)
		}
		if j, err := p.GetJob(context.Background(), live.ID); err != nil || j.State != JobPending {
			t.Fatalf("active job pruned: %v", err)
		}
	})
}
