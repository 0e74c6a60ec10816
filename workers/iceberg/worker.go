// Package iceworker is floe's Iceberg maintenance worker: it dials the
// plugin channel like the Lance worker, offers the iceberg_* job types in
// the "iceberg" lane, observes tables and runs expire-snapshots,
// remove-orphans, compaction and manifest rewrites through floe's Iceberg
// REST catalog (metadata and commits) and the warehouse (files).
// `floe worker iceberg` runs it.
package iceworker

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/floe/floe/plugin/pluginpb"
)

// Version is the worker's build version, sent in Hello.
const Version = "0.1.0"

const (
	// outboxCap bounds messages waiting for the stream writer; detection
	// batches and progress are small and the writer drains fast.
	outboxCap = 256
	// backoffMin/backoffMax space reconnects: quick after a console
	// restart, capped so a long outage is no tight loop of dials.
	backoffMin = 500 * time.Millisecond
	backoffMax = 30 * time.Second
	// healthyAfter resets the backoff: a stream that lived this long was fine.
	healthyAfter = 30 * time.Second
	// defaultHeartbeat applies when Welcome names no interval.
	defaultHeartbeat = 5 * time.Second
)

// Config configures a worker.
type Config struct {
	GRPC         string // console plugin address
	Token        string // worker token
	WorkerID     string
	DetectSlots  int
	ExecuteSlots int
	// TLS, when set, secures the channel (mTLS when it carries a client cert).
	TLS credentials.TransportCredentials
	// ExitOnShutdown ends Run when the console says it shuts down, instead
	// of waiting for it to come back.
	ExitOnShutdown bool
	Files          Files // default LocalFiles; WarehouseFiles for s3:// tables
	Logger         *slog.Logger
}

// Worker is one connected (or reconnecting) Iceberg worker.
type Worker struct {
	cfg      Config
	log      *slog.Logger
	instance string
	cats     catalogs
	memo     *sweepMemo    // what detection sweeps read, kept between sweeps
	detect   chan struct{} // slots
	execute  chan struct{} // slots

	// stageHook, when set, sees every progress stage before it is sent;
	// tests use it to hold a job at a chosen point.
	stageHook func(stage string)

	mu      sync.Mutex
	running map[string]context.CancelFunc // request id (detect) or job id
	jobs    map[string]bool
}

// New builds a worker; Run connects it.
func New(cfg Config) *Worker {
	cfg.DetectSlots = max(cfg.DetectSlots, 1)
	cfg.ExecuteSlots = max(cfg.ExecuteSlots, 1)
	if cfg.Files == nil {
		cfg.Files = LocalFiles{}
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.WorkerID == "" {
		host, _ := os.Hostname()
		cfg.WorkerID = "iceberg-" + host
	}
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return &Worker{cfg: cfg, log: cfg.Logger, instance: hex.EncodeToString(b), memo: newSweepMemo(), detect: make(chan struct{}, cfg.DetectSlots),
		execute: make(chan struct{}, cfg.ExecuteSlots), running: map[string]context.CancelFunc{}, jobs: map[string]bool{}}
}

// Run connects and stays connected until ctx ends (or, with
// ExitOnShutdown, the console shuts down).
func (w *Worker) Run(ctx context.Context) error {
	creds := w.cfg.TLS
	if creds == nil {
		creds = insecure.NewCredentials()
	}
	conn, err := grpc.NewClient(w.cfg.GRPC, grpc.WithTransportCredentials(creds))
	if err != nil {
		return fmt.Errorf("plugin channel %s: %w", w.cfg.GRPC, err)
	}
	defer conn.Close()
	backoff := backoffMin
	last := ""
	for ctx.Err() == nil {
		started := time.Now()
		shutdown, err := w.session(ctx, conn)
		if ctx.Err() != nil {
			break
		}
		if shutdown != "" && w.cfg.ExitOnShutdown {
			w.log.Info("the console shut down; exiting", "reason", shutdown)
			return nil
		}
		if time.Since(started) > healthyAfter {
			backoff = backoffMin
		}
		why := explain(err, w.cfg)
		if shutdown != "" {
			why = "the console shut down (" + shutdown + ")"
		}
		if why != last || backoff >= backoffMax {
			w.log.Warn("disconnected; reconnecting", "reason", why, "in", backoff)
		}
		last = why
		select {
		case <-ctx.Done():
		case <-time.After(backoff):
		}
		backoff = min(backoff*2, backoffMax)
	}
	w.log.Info("worker stopped", "worker_id", w.cfg.WorkerID)
	return nil
}

// explain says why a stream ended in words an operator can act on.
func explain(err error, cfg Config) string {
	switch status.Code(err) {
	case codes.OK:
		return "the console closed the stream"
	case codes.Unauthenticated, codes.PermissionDenied:
		return "the console refused the worker token (" + status.Convert(err).Message() + "); create one with 'floe worker-token create'"
	case codes.Unavailable:
		return "console unreachable at " + cfg.GRPC + " (" + status.Convert(err).Message() + ")"
	case codes.AlreadyExists, codes.Aborted:
		return "another connection with worker id " + cfg.WorkerID + " took over; give each worker its own id"
	}
	return err.Error()
}

// session runs one stream to its end. It returns the console's shutdown
// reason when the console asked it to go.
func (w *Worker) session(ctx context.Context, conn *grpc.ClientConn) (shutdown string, err error) {
	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if w.cfg.Token != "" {
		sctx = metadata.AppendToOutgoingContext(sctx, "authorization", "Bearer "+w.cfg.Token)
	}
	stream, err := pluginpb.NewPluginServiceClient(conn).Connect(sctx)
	if err != nil {
		return "", err
	}
	var wg sync.WaitGroup
	defer wg.Wait() // every goroutine below ends with sctx
	defer cancel()
	out := make(chan *pluginpb.WorkerMessage, outboxCap)
	send := func(m *pluginpb.WorkerMessage) {
		select {
		case out <- m:
		case <-sctx.Done():
		}
	}
	wg.Go(func() {
		for {
			select {
			case <-sctx.Done():
				_ = stream.CloseSend()
				return
			case m := <-out:
				if err := stream.Send(m); err != nil {
					cancel()
					return
				}
			}
		}
	})
	host, _ := os.Hostname()
	send(&pluginpb.WorkerMessage{Body: &pluginpb.WorkerMessage_Hello{Hello: &pluginpb.Hello{
		WorkerId: w.cfg.WorkerID, InstanceId: w.instance, Version: Version, Address: host,
		Capabilities: capabilities(w.cfg.DetectSlots, w.cfg.ExecuteSlots)}}})
	for {
		m, err := stream.Recv()
		if err != nil {
			if errors.Is(err, context.Canceled) && shutdown != "" {
				return shutdown, nil
			}
			return shutdown, err
		}
		switch b := m.GetBody().(type) {
		case *pluginpb.ConsoleMessage_Welcome:
			every := time.Duration(b.Welcome.GetHeartbeatIntervalSeconds()) * time.Second
			if every <= 0 {
				every = defaultHeartbeat
			}
			w.log.Info("connected", "console", w.cfg.GRPC, "worker_id", w.cfg.WorkerID, "console_version", b.Welcome.GetConsoleVersion())
			wg.Go(func() { w.heartbeats(sctx, every, send) })
		case *pluginpb.ConsoleMessage_DescribeJobType:
			d := descriptor(b.DescribeJobType.GetJobType())
			if d == nil {
				d = &pluginpb.Descriptor{JobType: b.DescribeJobType.GetJobType(), Description: "this worker does not offer this job type"}
			}
			send(&pluginpb.WorkerMessage{RequestId: m.GetRequestId(), Body: &pluginpb.WorkerMessage_JobDescriptor{JobDescriptor: d}})
		case *pluginpb.ConsoleMessage_Detect:
			wg.Go(func() { w.onDetect(sctx, m.GetRequestId(), b.Detect, send) })
		case *pluginpb.ConsoleMessage_Execute:
			wg.Go(func() { w.onExecute(sctx, m.GetRequestId(), b.Execute.GetJob(), send) })
		case *pluginpb.ConsoleMessage_Preview:
			send(&pluginpb.WorkerMessage{RequestId: m.GetRequestId(), Body: &pluginpb.WorkerMessage_PreviewDone{PreviewDone: &pluginpb.PreviewDone{
				TotalRows: -1, Error: "the Iceberg worker does not serve previews; floe reads Iceberg rows itself"}}})
		case *pluginpb.ConsoleMessage_Cancel:
			w.cancel(b.Cancel)
		case *pluginpb.ConsoleMessage_Shutdown:
			shutdown = b.Shutdown.GetReason()
			if shutdown == "" {
				shutdown = "no reason given"
			}
			w.log.Info("console asked the worker to shut down", "reason", shutdown)
			cancel() // stops every detection and job of this stream
		}
	}
}

func (w *Worker) heartbeats(ctx context.Context, every time.Duration, send func(*pluginpb.WorkerMessage)) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		w.mu.Lock()
		ids := make([]string, 0, len(w.jobs))
		for id := range w.jobs {
			ids = append(ids, id)
		}
		w.mu.Unlock()
		send(&pluginpb.WorkerMessage{Body: &pluginpb.WorkerMessage_Heartbeat{Heartbeat: &pluginpb.Heartbeat{
			SlotsUsed: int32(len(ids)), SlotsTotal: int32(w.cfg.ExecuteSlots), RunningJobIds: ids}}})
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// track registers cancellable work under id.
func (w *Worker) track(ctx context.Context, id string, job bool) (context.Context, func()) {
	ctx, cancel := context.WithCancel(ctx)
	w.mu.Lock()
	w.running[id] = cancel
	if job {
		w.jobs[id] = true
	}
	w.mu.Unlock()
	return ctx, func() {
		w.mu.Lock()
		delete(w.running, id)
		delete(w.jobs, id)
		w.mu.Unlock()
		cancel()
	}
}

func (w *Worker) cancel(c *pluginpb.Cancel) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, id := range []string{c.GetTargetRequestId(), c.GetJobId()} {
		if stop, ok := w.running[id]; ok && id != "" {
			w.log.Info("canceled by the console", "id", id, "reason", c.GetReason())
			stop()
		}
	}
}

// acquire takes a slot or gives up when ctx ends.
func acquire(ctx context.Context, slots chan struct{}) bool {
	select {
	case slots <- struct{}{}:
		return true
	case <-ctx.Done():
		return false
	}
}

func (w *Worker) onDetect(ctx context.Context, rid string, req *pluginpb.Detect, send func(*pluginpb.WorkerMessage)) {
	ctx, done := w.track(ctx, rid, false)
	defer done()
	if !acquire(ctx, w.detect) {
		return
	}
	defer func() { <-w.detect }()
	jt := req.GetJobType()
	errText := Detect(ctx, w.log, req, &w.cats, w.cfg.Files, w.memo, DetectOut{
		Proposals: func(p []*pluginpb.Proposal) {
			send(&pluginpb.WorkerMessage{RequestId: rid, Body: &pluginpb.WorkerMessage_Proposals{Proposals: &pluginpb.Proposals{JobType: jt, Proposals: p}}})
		},
		Observations: func(o []*pluginpb.Observation) {
			send(&pluginpb.WorkerMessage{Body: &pluginpb.WorkerMessage_Observations{Observations: &pluginpb.Observations{Observations: o}}})
		},
	})
	if ctx.Err() != nil {
		return // a canceled request gets nothing more
	}
	send(&pluginpb.WorkerMessage{RequestId: rid, Body: &pluginpb.WorkerMessage_DetectionDone{DetectionDone: &pluginpb.DetectionDone{JobType: jt, Error: errText}}})
}

func (w *Worker) onExecute(ctx context.Context, rid string, spec *pluginpb.JobSpec, send func(*pluginpb.WorkerMessage)) {
	id := spec.GetJobId()
	w.mu.Lock()
	dup := w.jobs[id]
	w.mu.Unlock()
	if dup {
		w.log.Warn("ignoring a second Execute for a running job", "job_id", id)
		return
	}
	ctx, done := w.track(ctx, id, true)
	defer done()
	progress := func(stage string, pct float64, msg string) {
		if w.stageHook != nil {
			w.stageHook(stage)
		}
		send(&pluginpb.WorkerMessage{RequestId: rid, Body: &pluginpb.WorkerMessage_Progress{Progress: &pluginpb.Progress{
			JobId: id, State: "running", Percent: pct, Stage: stage, Message: msg}}})
	}
	complete := func(c *pluginpb.Completed) {
		c.JobId = id
		send(&pluginpb.WorkerMessage{RequestId: rid, Body: &pluginpb.WorkerMessage_Completed{Completed: c}})
	}
	if !acquire(ctx, w.execute) {
		return
	}
	defer func() { <-w.execute }()
	started := time.Now()
	out, err := w.execute1(ctx, spec, progress)
	if ctx.Err() != nil {
		w.log.Info("job stopped", "job_id", id, "reason", context.Cause(ctx))
		return // the console let go of it, or canceled it and expects nothing
	}
	if err != nil {
		w.log.Warn("job failed", "job_id", id, "job_type", spec.GetJobType(), "err", err)
		complete(&pluginpb.Completed{Success: false, Error: err.Error(), Permanent: isPermanent(err), Summary: "failed"})
		return
	}
	w.log.Info("job done", "job_id", id, "job_type", spec.GetJobType(), "summary", out.Summary, "took", time.Since(started).Round(time.Millisecond))
	complete(&pluginpb.Completed{Success: true, Summary: out.Summary, Result: out.Result})
}

// execute1 resolves the job's table and runs it.
func (w *Worker) execute1(ctx context.Context, spec *pluginpb.JobSpec, progress Progress) (Outcome, error) {
	s, err := readSettings(spec.GetJobType(), spec.GetSettingsJson(), spec.GetParameters())
	if err != nil {
		return Outcome{}, err
	}
	cat, err := w.cats.get(spec.GetCluster().GetIcebergRestUrl(), spec.GetCluster().GetApiKey())
	if err != nil {
		return Outcome{}, &JobError{Message: err.Error()}
	}
	ref, err := resolveRef(ctx, cat, spec)
	if err != nil {
		return Outcome{}, err
	}
	j := &Job{Type: spec.GetJobType(), Ref: ref, Settings: s, Catalog: cat, Files: w.cfg.Files, Progress: progress}
	return j.Run(ctx)
}

// resolveRef names the job's table: from the console's ObjectRef when it
// sent one, else from the catalog's index by id.
func resolveRef(ctx context.Context, cat *Catalog, spec *pluginpb.JobSpec) (TableRef, error) {
	if o := spec.GetObject(); o != nil && o.GetName() != "" {
		return TableRef{ID: spec.GetObjectId(), Bucket: o.GetBucket(), Namespace: o.GetNamespace(), Name: o.GetName(), Location: o.GetLocation()}, nil
	}
	refs, err := cat.ListTables(ctx)
	if err != nil {
		return TableRef{}, err
	}
	for _, r := range refs {
		if r.ID == spec.GetObjectId() {
			return r, nil
		}
	}
	return TableRef{}, refuse("no Iceberg table has id %q any more", spec.GetObjectId())
}
