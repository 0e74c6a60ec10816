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

// detectingWorker is an injected session that answers every Detect with a
// proposal for each table given, and records each Execute by job type and
// table.
type detectingWorker struct {
	mu       sync.Mutex
	executed map[string]map[string]int // job type → table id → executes
}

func injectDetectingWorker(p *Plugin, tables []string, caps ...*pluginpb.Capability) *detectingWorker {
	tok, _, err := p.store.CreateWorkerToken(context.Background(), "tok")
	if err != nil {
		panic(err)
	}
	s := newSession(p.root, &pluginpb.Hello{WorkerId: "w1", InstanceId: "w1-1", Capabilities: caps}, tok, p.now())
	p.reg.add(s)
	p.jobs.onConnect(s)
	dw := &detectingWorker{executed: map[string]map[string]int{}}
	log := quietLogger()
	p.wg.Go(func() {
		for {
			select {
			case <-s.ctx.Done():
				return
			case m := <-s.out:
				switch b := m.GetBody().(type) {
				case *pluginpb.ConsoleMessage_Detect:
					var props []*pluginpb.Proposal
					for _, id := range tables {
						props = append(props, &pluginpb.Proposal{ObjectId: id, DedupeKey: b.Detect.GetJobType() + ":" + id})
					}
					p.handle(s, &pluginpb.WorkerMessage{RequestId: m.GetRequestId(), Body: &pluginpb.WorkerMessage_Proposals{
						Proposals: &pluginpb.Proposals{Proposals: props}}}, log)
					p.handle(s, &pluginpb.WorkerMessage{RequestId: m.GetRequestId(), Body: &pluginpb.WorkerMessage_DetectionDone{
						DetectionDone: &pluginpb.DetectionDone{}}}, log)
				case *pluginpb.ConsoleMessage_Execute:
					spec := b.Execute.GetJob()
					dw.mu.Lock()
					if dw.executed[spec.GetJobType()] == nil {
						dw.executed[spec.GetJobType()] = map[string]int{}
					}
					dw.executed[spec.GetJobType()][spec.GetObjectId()]++
					dw.mu.Unlock()
					// Done at once, so the next detection may propose the
					// table again.
					p.handle(s, &pluginpb.WorkerMessage{Body: &pluginpb.WorkerMessage_Completed{Completed: &pluginpb.Completed{
						JobId: spec.GetJobId(), Success: true}}}, log)
				}
			}
		}
	})
	return dw
}

func (dw *detectingWorker) runs(jobType, table string) int {
	dw.mu.Lock()
	defer dw.mu.Unlock()
	return dw.executed[jobType][table]
}

// TestDestructiveMaintenanceIsOptIn: with the default settings a whole day
// of scheduled detection (every job type enabled, detecting every four hours, with a
// worker proposing every table for every type) starts no job that deletes
// data; compaction runs. Turned on for one bucket, cleanup, snapshot expiry
// and orphan removal run there, and only there.
func TestDestructiveMaintenanceIsOptIn(t *testing.T) {
	dir := t.TempDir()
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		db, err := persist.Open(ctx, persist.Options{Path: filepath.Join(dir, "c.db")})
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		migrate(t, db)
		st, err := catalog.New(db, catalog.Options{Warehouse: filepath.Join(dir, "wh")})
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		ids := map[string]string{}
		for _, b := range []string{"quiet", "optin"} {
			if _, err := st.CreateBucket(ctx, catalog.CreateBucketInput{Name: b}); err != nil {
				t.Fatal(err)
			}
			if _, err := st.CreateNamespace(ctx, b, []string{"ns"}, nil); err != nil {
				t.Fatal(err)
			}
			tb, _, err := st.CreateTable(ctx, catalog.CreateTableInput{TableRef: catalog.TableRef{Bucket: b, Namespace: []string{"ns"}, Name: "t"}, Format: catalog.FormatIceberg})
			if err != nil {
				t.Fatal(err)
			}
			ids[b] = tb.ID
		}
		p, err := New(Config{DB: db, Store: st, Logger: quietLogger(), Reviewer: st,
			Options: Options{SchedulerTick: time.Minute, HeartbeatTimeout: 1000 * time.Hour}})
		if err != nil {
			t.Fatal(err)
		}
		types := []string{"lance_cleanup", "iceberg_expire_snapshots", "iceberg_remove_orphans", "lance_compact"}
		var caps []*pluginpb.Capability
		for _, jt := range types {
			d := compactDescriptor("v1")
			d.JobType = jt
			d.Runtime.Enabled, d.Runtime.DetectionIntervalSeconds = true, 4*3600
			if err := p.types.store(ctx, d); err != nil {
				t.Fatal(err)
			}
			caps = append(caps, capability(jt, "default"))
		}
		stop := start(t, p)
		defer func() {
			if err := stop(); err != nil {
				t.Error(err)
			}
		}()
		w := injectDetectingWorker(p, []string{ids["quiet"], ids["optin"]}, caps...)

		time.Sleep(24 * time.Hour)
		synctest.Wait()
		for _, jt := range types[:3] {
			for b, id := range ids {
				if n := w.runs(jt, id); n != 0 {
					t.Errorf("default settings: %s ran %d times on bucket %s in a day", jt, n, b)
				}
			}
		}
		if w.runs("lance_compact", ids["quiet"]) == 0 {
			t.Fatal("compaction never ran in a day: the test's detection does not work, so its silence about destructive jobs proves nothing")
		}

		if err := st.SetDestructiveMaintenance(ctx, "optin", true); err != nil {
			t.Fatal(err)
		}
		time.Sleep(24 * time.Hour)
		synctest.Wait()
		for _, jt := range types[:3] {
			if n := w.runs(jt, ids["optin"]); n == 0 {
				t.Errorf("turned on for bucket optin: %s never ran there", jt)
			}
			if n := w.runs(jt, ids["quiet"]); n != 0 {
				t.Errorf("turned on for bucket optin only: %s ran %d times on bucket quiet", jt, n)
			}
		}
	})
}
