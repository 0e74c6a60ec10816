// Package plugin is the console's side of the gRPC worker channel: worker
// sessions and their registry, request/response correlation, job type
// descriptors and settings, the scheduler's lanes, and the jobs they run.
// It knows nothing of HTTP or HTML; the console reads it through Snapshot,
// JobTypes, ListJobs and Subscribe.
package plugin

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/form"
	"github.com/floe/floe/observe"
	"github.com/floe/floe/plugin/pluginpb"

	"github.com/floe/floe/persist"
	"github.com/floe/floe/persist/notify"
)

// Config wires a Plugin. Store is required; the rest have defaults.
type Config struct {
	// DB holds the jobs, job types and settings (owner "plugin"); required.
	DB    *persist.DB
	Store *catalog.Store
	// Observe receives the workers' Observations; nil drops them.
	Observe *observe.Store
	Logger  *slog.Logger
	// LanceURL and IcebergURL are the catalog addresses handed to workers
	// in every ClusterContext ("" when that surface is off).
	LanceURL   string
	IcebergURL string
	// JobParams are the parameter definitions of submitted jobs per job
	// type, sent to every worker in Welcome (the tasks package owns them).
	JobParams map[string][]form.Field
	// Reviewer, if set, may drop or adjust each proposal (maintenance
	// configuration); nil keeps every proposal.
	Reviewer ProposalReviewer
	// Authz, if set, decides every job submitted outside detection: the
	// submitter (JobSpec.By) needs JobSpec.Need (maintain unless said) on
	// the job's table. nil submits whatever is asked (tests of the queue).
	Authz Authorizer
	// Bus carries job, worker and job-type events to the other replicas
	// on one PostgreSQL and theirs to this one's subscribers; nil (or a
	// SQLite bus) keeps events in this process.
	Bus *notify.Bus
	// Metrics, if set, receives the job, worker and detection series
	// (metrics.go); nil records none.
	Metrics prometheus.Registerer
	Options
}

// Options tune timings and caps. Zero values take the defaults below.
type Options struct {
	// HeartbeatTimeout marks a worker stale when it has sent nothing for
	// this long (default 30s); a stale worker gets no new work, and one
	// silent for three timeouts is disconnected.
	HeartbeatTimeout time.Duration
	// DisconnectedRetention keeps a gone worker listed, as disconnected,
	// for this long (default 10m) so operators see what went away.
	DisconnectedRetention time.Duration
	// EnqueueTimeout bounds the wait for room in a worker's outgoing queue
	// before a request fails as busy (default 5s).
	EnqueueTimeout time.Duration
	// HelloTimeout bounds the wait for a new stream's first message, so a
	// client that opens a stream and says nothing holds no handler
	// (default 10s).
	HelloTimeout time.Duration
	// DescribeTimeout bounds a DescribeJobType round trip (default 15s).
	DescribeTimeout time.Duration
	// JobIdleExpiry expires a job with no progress for this long while its
	// worker is connected (default 24h).
	JobIdleExpiry time.Duration
	// JobOrphanExpiry expires a job with no progress for this long once its
	// worker is gone (default 15m).
	JobOrphanExpiry time.Duration
	// JobRestartGrace is how long a job left assigned or running by a
	// previous floe process waits for its worker to reconnect and say it
	// still runs it; then the job fails with JobRestartedError (not retried:
	// whether the attempt finished is unknown) so the job and its task do
	// not look alive for the whole orphan expiry
	// (default 30s: a worker's reconnect backoff tops out at 30s, and a
	// quick restart finds it retrying far sooner).
	JobRestartGrace time.Duration
	// JobRetention keeps finished jobs listed this long before they are
	// deleted (default 30 days; checked hourly).
	JobRetention time.Duration
	// APIKeyTTL is the lifetime of the key minted for each worker's
	// ClusterContext (default 15m: long enough for a detection or the start of
	// a job, short enough that a captured key soon dies); it is reused until a
	// quarter remains.
	APIKeyTTL time.Duration
	// SchedulerTick is how often each lane looks at its work (default 1s).
	SchedulerTick time.Duration
	// ConsoleVersion is reported in Welcome.
	ConsoleVersion string
	// Now is the clock (default time.Now).
	Now func() time.Time
	// DisableScheduler leaves lanes and detection loops stopped (tests that
	// drive RunDetection/RunNow by hand).
	DisableScheduler bool
	// Shared says other floe processes (replicas) use the same database:
	// jobs are then claimed under a lease in the database, a pending job no
	// local worker can run is released for another replica's workers, and
	// scheduled detection runs once per interval across the group. Off for
	// an embedded SQLite catalog, where this process is the only one.
	Shared bool
	// ReplicaID names this process in job leases (default: random).
	ReplicaID string
	// JobLease is how long a replica's claim on a job lasts without renewal
	// (default 15s; renewed every third of it). When a replica dies, its
	// jobs are taken over by another replica once the lease has passed.
	JobLease time.Duration
}

func (o *Options) fill() {
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&o.HeartbeatTimeout, 30*time.Second)
	def(&o.DisconnectedRetention, 10*time.Minute)
	def(&o.EnqueueTimeout, 5*time.Second)
	def(&o.HelloTimeout, 10*time.Second)
	def(&o.DescribeTimeout, 15*time.Second)
	def(&o.JobIdleExpiry, 24*time.Hour)
	def(&o.JobOrphanExpiry, 15*time.Minute)
	def(&o.JobRestartGrace, 30*time.Second)
	def(&o.JobRetention, 30*24*time.Hour)
	def(&o.APIKeyTTL, 15*time.Minute)
	def(&o.SchedulerTick, time.Second)
	def(&o.JobLease, 15*time.Second)
	if o.ReplicaID == "" {
		o.ReplicaID = "replica-" + randHex(4)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.ConsoleVersion == "" {
		o.ConsoleVersion = "dev"
	}
}

// Errors callers can test with errors.Is.
var (
	// ErrClosed: the plugin channel is shutting down.
	ErrClosed = errors.New("the plugin channel is shutting down")
	// ErrNoWorker: no connected worker can take the request.
	ErrNoWorker = errors.New("no connected worker can do this; start a worker that advertises it")
	// ErrWorkerGone: the worker disconnected before answering.
	ErrWorkerGone = errors.New("the worker disconnected before answering; check the worker's log and retry")
	// ErrBusy: the worker's outgoing queue stayed full.
	ErrBusy = errors.New("the worker is not reading its stream (queue full); retry shortly")
	// ErrOverflow: the worker answered faster than the console could read.
	ErrOverflow = errors.New("the worker sent more replies than the console buffers for one request")
	// ErrUnknownJobType: no worker has described this job type.
	ErrUnknownJobType = errors.New("unknown job type: no worker has advertised it")
	// ErrJobNotFound: no job with that id.
	ErrJobNotFound = errors.New("job not found")
	// ErrDuplicateJob: an active job already has the dedupe key.
	ErrDuplicateJob = errors.New("an active job already covers this (same dedupe key)")
)

// Plugin is the plugin channel. Create with New, read what is stored with
// Load, run its background work with Run, serve workers with Serve (or
// Register on a gRPC server of your own); Run stops it all when its context
// ends, and Shutdown stops it from outside.
type Plugin struct {
	pluginpb.UnimplementedPluginServiceServer

	cfg   Config
	log   *slog.Logger
	db    *persist.DB
	store *catalog.Store

	root       context.Context // every session derives from it
	rootCancel context.CancelCauseFunc
	closed     atomic.Bool
	wg         sync.WaitGroup // writers, readers, lanes, helpers
	// trackMu orders Shutdown's closing against track: a goroutine counted
	// in wg from outside it (a stream's handler, Run starting its loops)
	// is counted before closed is set, so no count starts from zero while
	// a Wait runs.
	trackMu sync.Mutex

	reg     *registry
	pending *pendingTable
	keys    *keyCache
	// recheckTokens (cap 1) asks recheckTokenLoop to check every stream's
	// worker token now.
	recheckTokens chan struct{}
	types         *jobTypes
	jobs          *jobStore
	sched         *scheduler
	events        *hub

	observer *observer // targeted observes (observe_now.go)
	metrics  *metrics  // nil: Config.Metrics was nil

	reqSeq atomic.Uint64

	welcomeParams []*pluginpb.JobParams // Config.JobParams, converted once; read-only

	srvMu sync.Mutex
	srv   *grpc.Server // set by ListenAndServe or Register
	// holder is Serve's listener when it tells authenticated connections
	// apart (connHolder); nil otherwise.
	holder atomic.Pointer[connHolder]
}

// New builds a Plugin; it reads nothing and starts nothing. The database
// must have the plugin's migrations (Migrations) applied.
func New(cfg Config) (*Plugin, error) {
	if cfg.Store == nil {
		return nil, errors.New("plugin: Config.Store is required")
	}
	if cfg.DB == nil {
		return nil, errors.New("plugin: Config.DB is required")
	}
	cfg.Options.fill()
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	p := &Plugin{
		cfg:   cfg,
		log:   cfg.Logger.With("component", "plugin"),
		db:    cfg.DB,
		store: cfg.Store,
	}
	p.welcomeParams = jobParamsToProto(cfg.JobParams)
	p.root, p.rootCancel = context.WithCancelCause(context.Background())
	p.reg = newRegistry(p)
	p.pending = newPendingTable()
	p.keys = newKeyCache(p)
	p.recheckTokens = make(chan struct{}, 1)
	cfg.Store.OnWorkerTokenRevoked(p.workerTokenRevoked)
	p.events = newHub()
	p.events.forward = p.forwardEvent
	p.types = newJobTypes(p)
	p.jobs = newJobStore(p)
	p.sched = newScheduler(p)
	p.observer = newObserver()
	var err error
	if p.metrics, err = newMetrics(cfg.Metrics, p); err != nil { // after the state its gauges read
		return nil, err
	}
	return p, nil
}

// Load reads the stored job types, settings and active jobs (those a
// previous process left pending, assigned or running). The composition
// root calls it once, before workers or clients are served.
func (p *Plugin) Load(ctx context.Context) error {
	if err := p.types.load(ctx); err != nil {
		return err
	}
	return p.jobs.load(ctx)
}

// Run does the plugin's background work until ctx ends or Shutdown is
// called: targeted observes, the stale-worker reaper, pruning of old jobs,
// other replicas' events (Config.Bus), and unless Options.DisableScheduler
// the lanes, scheduled detection and (Options.Shared) job leases. Then it
// shuts the channel down and returns once every goroutine the plugin
// started, its sessions' included, has returned.
func (p *Plugin) Run(ctx context.Context) error {
	started, ok := p.track()
	if !ok {
		return nil // shut down before it ran: nothing to do
	}
	p.wg.Go(func() { p.observeLoop(p.root) })
	p.wg.Go(func() { p.reg.reapLoop(p.root) })
	p.wg.Go(func() { p.pruneLoop(p.root) })
	p.wg.Go(func() { p.recheckTokenLoop(p.root) })
	if p.cfg.Bus.Remote() {
		events, stop := p.cfg.Bus.Subscribe(busTopicJob, busTopicWorker, busTopicJobType)
		p.wg.Go(func() { p.relayRemoteEvents(p.root, events, stop) })
	}
	if !p.cfg.DisableScheduler {
		p.sched.start(p.root)
		if p.cfg.Shared {
			p.wg.Go(func() { p.jobs.leaseLoop(p.root) })
		}
	}
	started()
	select {
	case <-ctx.Done():
	case <-p.root.Done(): // Shutdown from outside
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), serveShutdownGrace)
	defer cancel()
	err := p.Shutdown(sctx)
	p.wg.Wait()
	return err
}

// Register mounts the service on a gRPC server the caller owns. Shutdown
// then also stops that server.
func (p *Plugin) Register(s *grpc.Server) {
	p.srvMu.Lock()
	p.srv = s
	p.srvMu.Unlock()
	pluginpb.RegisterPluginServiceServer(s, p)
}

func (p *Plugin) now() time.Time { return p.cfg.Now() }

func (p *Plugin) newRequestID() string {
	return "r" + itoa(p.reqSeq.Add(1)) + "-" + randHex(4)
}

// Shutdown stops the channel: new streams are refused, every session ends
// (workers are told Shutdown), pending requests fail, the gRPC server stops
// (gracefully until ctx ends, then forcibly), and every goroutine the plugin
// started has returned when it does.
func (p *Plugin) Shutdown(ctx context.Context) error {
	p.trackMu.Lock()
	first := p.closed.CompareAndSwap(false, true)
	p.trackMu.Unlock()
	if !first {
		return nil
	}
	p.rootCancel(ErrClosed)
	p.pending.failAll(ErrClosed)
	p.srvMu.Lock()
	srv := p.srv
	p.srvMu.Unlock()
	if srv != nil {
		// GracefulStop alone can wait forever on open streams; when ctx
		// ends, Stop cuts them and GracefulStop returns.
		stop := context.AfterFunc(ctx, srv.Stop)
		srv.GracefulStop()
		stop()
	}
	// The waiter ends with the plugin's goroutines; a Shutdown whose ctx
	// ends first returns without them (Run waits for them in full).
	waited := make(chan struct{})
	go func() {
		p.wg.Wait()
		close(waited)
	}()
	select {
	case <-waited:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// track counts the caller in wg until it calls done, unless the plugin is
// shutting down (ok false). A goroutine the plugin did not start — a
// stream's handler — takes this before it starts any of its own, so its
// wg.Go calls never start a count from zero under a running Wait (which
// the race detector reports, and which could let Wait return early).
func (p *Plugin) track() (done func(), ok bool) {
	p.trackMu.Lock()
	defer p.trackMu.Unlock()
	if p.closed.Load() {
		return nil, false
	}
	p.wg.Add(1)
	return p.wg.Done, true
}

func errUnavailable() error {
	return status.Error(codes.Unavailable, "the console is shutting down; reconnect to its next start")
}

// pruneInterval is how often finished jobs past retention are deleted.
const pruneInterval = time.Hour

func (p *Plugin) pruneLoop(ctx context.Context) {
	t := time.NewTicker(pruneInterval)
	defer t.Stop()
	for {
		if n, err := p.jobs.prune(ctx, p.cfg.JobRetention); err != nil {
			if ctx.Err() == nil {
				p.log.Warn("could not delete old jobs", "err", err)
			}
		} else if n > 0 {
			p.log.Info("deleted finished jobs past retention", "jobs", n, "retention", p.cfg.JobRetention)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
