package plugin

// The security regression suite for the plugin channel (issue 15 item 2 and
// the worker-id part of item 5).

import (
	"context"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/plugin/pluginpb"
	"github.com/floe/floe/plugin/plugintest"
)

// TestSecurity_MintedKeyBoundToWorkerToken: the cluster.api_key in Detect
// was readwrite on every bucket for an hour and outlived the worker token.
// It is now readonly, short-lived, and revoked with the token.
func TestSecurity_MintedKeyBoundToWorkerToken(t *testing.T) {
	h := newHarness(t, Options{})
	var mu sync.Mutex
	var key string
	h.connect(plugintest.Config{WorkerID: "w1", HeartbeatEvery: 20 * time.Millisecond,
		Capabilities: []*pluginpb.Capability{capability("lance_compact", "lance")},
		Descriptors:  map[string]*pluginpb.Descriptor{"lance_compact": compactDescriptor("v1")},
		OnDetect: func(ctx context.Context, d *pluginpb.Detect) ([]*pluginpb.Proposal, error) {
			mu.Lock()
			key = d.GetCluster().GetApiKey()
			mu.Unlock()
			return nil, nil
		},
	})
	if _, err := h.p.RunDetection(ctxT(t), "lance_compact"); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	secret := key
	mu.Unlock()
	k, err := h.store.VerifyAPIKey(ctxT(t), secret)
	if err != nil {
		t.Fatalf("the minted key does not verify: %v", err)
	}
	if k.Role != catalog.RoleReadonly || k.CanWrite("any") {
		t.Fatalf("minted key role %s: a worker only reads the catalog", k.Role)
	}
	if k.ExpiresAt.IsZero() || time.Until(k.ExpiresAt) > 15*time.Minute+time.Minute {
		t.Fatalf("minted key expires at %v", k.ExpiresAt)
	}
	tokens, err := h.store.ListWorkerTokens(ctxT(t))
	if err != nil || len(tokens) != 1 {
		t.Fatalf("tokens %v %v", tokens, err)
	}
	if err := h.p.RevokeWorkerToken(ctxT(t), tokens[0].ID); err != nil {
		t.Fatal(err)
	}
	if _, err := h.store.VerifyAPIKey(ctxT(t), secret); err == nil {
		t.Fatal("the minted key still works after its worker token was revoked")
	}
}

// TestSecurity_RevokedTokenClosesStream: revoking a worker token left its
// stream open until the worker reconnected.
func TestSecurity_RevokedTokenClosesStream(t *testing.T) {
	h := newHarness(t, Options{})
	w := h.connect(plugintest.Config{WorkerID: "w1", HeartbeatEvery: 20 * time.Millisecond})
	tokens, _ := h.store.ListWorkerTokens(ctxT(t))
	if err := h.p.RevokeWorkerToken(ctxT(t), tokens[0].ID); err != nil {
		t.Fatal(err)
	}
	select {
	case <-w.Done():
	case <-time.After(testWait):
		t.Fatal("the stream of a revoked token stayed open")
	}
	if code := status.Code(w.Err()); code != codes.Unauthenticated {
		t.Fatalf("stream ended with %v, want Unauthenticated", w.Err())
	}
	if _, ok := h.p.reg.get("w1"); ok {
		t.Fatal("the worker is still registered")
	}
}

// TestSecurity_WorkerIDTakeoverRefused: a second token could claim a
// connected worker's id and replace its stream.
func TestSecurity_WorkerIDTakeoverRefused(t *testing.T) {
	h := newHarness(t, Options{})
	h.connect(plugintest.Config{WorkerID: "bundled", InstanceID: "real", HeartbeatEvery: 20 * time.Millisecond})
	_, other, err := h.store.CreateWorkerToken(ctxT(t), "attacker")
	if err != nil {
		t.Fatal(err)
	}
	evil, err := plugintest.Connect(context.Background(), h.conn, plugintest.Config{Token: other, WorkerID: "bundled", InstanceID: "evil"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(evil.Close)
	select {
	case <-evil.Done():
	case <-time.After(testWait):
		t.Fatal("the takeover stream was not refused")
	}
	if code := status.Code(evil.Err()); code != codes.PermissionDenied {
		t.Fatalf("takeover ended with %v, want PermissionDenied", evil.Err())
	}
	if s, ok := h.p.reg.get("bundled"); !ok || s.instanceID != "real" {
		t.Fatal("the real worker's stream was replaced")
	}
	// The same token reconnecting (a restarted worker) still replaces.
	h.connect(plugintest.Config{WorkerID: "bundled", InstanceID: "restarted"})
}

// TestSecurity_WorkerIDControlCharsRefused: worker ids with control
// characters were accepted (and forged lines in logs and pages).
func TestSecurity_WorkerIDControlCharsRefused(t *testing.T) {
	h := newHarness(t, Options{})
	for _, id := range []string{"w\n1", "w\x1b[31m", "w\u200e1", "w\x00"} {
		w, err := plugintest.Connect(context.Background(), h.conn, plugintest.Config{Token: h.token, WorkerID: id})
		if err != nil {
			t.Fatal(err)
		}
		select {
		case <-w.Done():
		case <-time.After(testWait):
			t.Fatalf("worker id %q was not refused", id)
		}
		if code := status.Code(w.Err()); code != codes.InvalidArgument {
			t.Fatalf("worker id %q: %v, want InvalidArgument", id, w.Err())
		}
		w.Close()
	}
}

// TestSecurity_RestartDetectionDoesNotDoubleAJob: after a restart during a
// task's compaction, detection queued a second compaction of the same
// table. Detection now yields to any active job of the same type on the
// same object, including one loaded from before the restart.
func TestSecurity_RestartDetectionDoesNotDoubleAJob(t *testing.T) {
	dir := t.TempDir()
	h1 := newHarnessIn(t, dir, Options{})
	task, err := h1.p.SubmitJob(ctxT(t), JobSpec{Type: "lance_compact", ObjectID: "t1"}) // the task API's job: no dedupe key
	if err != nil {
		t.Fatal(err)
	}
	h1.close() // the console stops; the job stays active on disk

	h2 := newHarnessIn(t, dir, Options{})
	release := make(chan struct{})
	defer close(release)
	h2.connect(plugintest.Config{WorkerID: "w1", HeartbeatEvery: 20 * time.Millisecond,
		Capabilities: []*pluginpb.Capability{capability("lance_compact", "lance")},
		Descriptors:  map[string]*pluginpb.Descriptor{"lance_compact": compactDescriptor("v1")},
		OnDetect: func(ctx context.Context, d *pluginpb.Detect) ([]*pluginpb.Proposal, error) {
			return []*pluginpb.Proposal{{ObjectId: "t1", DedupeKey: "compact:t1"}, {ObjectId: "t2"}}, nil
		},
		OnExecute: func(ctx context.Context, job *pluginpb.JobSpec, progress func(*pluginpb.Progress)) *pluginpb.Completed {
			select {
			case <-release:
			case <-ctx.Done():
			}
			return nil
		},
	})
	h2.waitUntil("settings", func() bool { s, err := h2.p.Settings("lance_compact"); return err == nil && s.Stored })
	res, err := h2.p.runNow(ctxT(t), "lance_compact", SourceDetection)
	if err != nil {
		t.Fatal(err)
	}
	for _, j := range res.Created {
		if j.ObjectID == "t1" {
			t.Fatalf("detection created %s for t1 beside the task's %s", j.ID, task.ID)
		}
	}
	if res.Deduped != 1 || len(res.Created) != 1 {
		t.Fatalf("created %d, deduped %d; want 1 and 1", len(res.Created), res.Deduped)
	}
}

// TestSecurity_ExecuteKeyScopedToJobBucket: the key an Execute carried was
// the worker's, valid on every bucket (read-write on all of them for a
// worker of the Iceberg lane). It is now limited to the job's bucket. Since
// #22 the storage keys DescribeTable vends follow the key's grant, so a
// Lance job, which writes its data with them, gets write on its bucket too
// (it used to be read-only in the catalog while its vended keys wrote).
func TestSecurity_ExecuteKeyScopedToJobBucket(t *testing.T) {
	cases := []struct {
		name, jobType, lane string
		wantWrite           bool
	}{
		{name: "a Lance job's key writes its bucket only", jobType: "lance_compact", lane: "lance", wantWrite: true},
		{name: "an Iceberg job's key writes its bucket only", jobType: "iceberg_expire_snapshots", lane: "iceberg", wantWrite: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, Options{})
			ctx := ctxT(t)
			for _, b := range []string{"bucket-a", "bucket-b"} {
				if _, err := h.store.CreateBucket(ctx, catalog.CreateBucketInput{Name: b, Format: catalog.FormatLance}); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := h.store.CreateNamespace(ctx, "bucket-a", []string{"ns"}, nil); err != nil {
				t.Fatal(err)
			}
			tb, _, err := h.store.CreateTable(ctx, catalog.CreateTableInput{Format: catalog.FormatLance,
				TableRef: catalog.TableRef{Bucket: "bucket-a", Namespace: []string{"ns"}, Name: "t"}})
			if err != nil {
				t.Fatal(err)
			}
			d := compactDescriptor("v1")
			d.JobType = tc.jobType
			keys := make(chan *pluginpb.JobSpec, 1)
			detectKeys := make(chan *pluginpb.ClusterContext, 1)
			h.connect(plugintest.Config{WorkerID: "w1", HeartbeatEvery: 20 * time.Millisecond,
				OnDetect: func(ctx context.Context, d *pluginpb.Detect) ([]*pluginpb.Proposal, error) {
					detectKeys <- d.GetCluster()
					return nil, nil
				},
				Capabilities: []*pluginpb.Capability{capability(tc.jobType, tc.lane)},
				Descriptors:  map[string]*pluginpb.Descriptor{tc.jobType: d},
				OnExecute: func(ctx context.Context, job *pluginpb.JobSpec, progress func(*pluginpb.Progress)) *pluginpb.Completed {
					keys <- job
					return &pluginpb.Completed{Success: true}
				}})
			h.waitUntil("settings", func() bool { s, err := h.p.Settings(tc.jobType); return err == nil && s.Stored })
			if _, err := h.p.SubmitJob(ctx, JobSpec{Type: tc.jobType, ObjectID: tb.ID}); err != nil {
				t.Fatal(err)
			}
			var job *pluginpb.JobSpec
			select {
			case job = <-keys:
			case <-ctx.Done():
				t.Fatal("the job was never executed")
			}
			if job.GetObject().GetBucket() != "bucket-a" {
				t.Fatalf("execute object %+v", job.GetObject())
			}
			k, err := h.store.VerifyAPIKey(ctx, job.GetCluster().GetApiKey())
			if err != nil {
				t.Fatalf("the Execute key does not verify: %v", err)
			}
			if !k.CanRead("bucket-a") || k.CanRead("bucket-b") || k.CanWrite("bucket-b") {
				t.Fatalf("key scope %q role %s: want bucket-a only", k.Bucket, k.Role)
			}
			if k.CanWrite("bucket-a") != tc.wantWrite {
				t.Fatalf("key role %s on its bucket, want write %v", k.Role, tc.wantWrite)
			}
			if k.ExpiresAt.IsZero() {
				t.Fatal("the Execute key never expires")
			}
			// Detection still gets a read-only key (it walks every bucket),
			// never the Iceberg lane's write key.
			if _, err := h.p.RunDetection(ctx, tc.jobType); err != nil {
				t.Fatal(err)
			}
			dk, err := h.store.VerifyAPIKey(ctx, (<-detectKeys).GetApiKey())
			if err != nil || dk.CanWrite("bucket-a") || dk.Bucket != "" {
				t.Fatalf("detect key %+v %v: want read-only on every bucket", dk, err)
			}
		})
	}
}
