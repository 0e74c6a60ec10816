package main

import (
	"context"
	"log/slog"
	"time"

	"github.com/floe/floe/persist"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/observe"
	"github.com/floe/floe/plugin"
	"github.com/floe/floe/preview"
	"github.com/floe/floe/tasks"
	"github.com/floe/floe/web/sessions"
)

// services are the long-lived parts behind every surface.
type services struct {
	observe *observe.Store
	plugin  *plugin.Plugin
	preview *preview.Broker
	tasks   *tasks.Service
	// sessions is used only to delete expired sessions; the console keeps
	// its own store over the same table.
	sessions *sessions.Store
}

// housekeepingInterval is how often expired sessions and minted worker keys
// are deleted.
const housekeepingInterval = 30 * time.Second

// newServices builds the services over the server's catalog (New, which
// starts nothing), loads what they keep, and registers each with the server
// as soon as it exists, so a later failure closes it. Server.Run runs them.
func newServices(ctx context.Context, s *server, lanceURL, icebergURL string) (*services, error) {
	sess, err := sessions.New(s.db, nil)
	if err != nil {
		return nil, err
	}
	obs, err := observe.New(s.db, 0)
	if err != nil {
		return nil, err
	}
	s.register("observations", obs.Close)
	if err := obs.Instrument(s.metrics.reg); err != nil {
		return nil, err
	}
	obs.Follow(s.bus) // figures and preview routing see other replicas' workers' observations
	p, err := plugin.New(plugin.Config{DB: s.db, Store: s.st, Observe: obs, Logger: s.log, LanceURL: lanceURL, IcebergURL: icebergURL,
		JobParams: tasks.JobParams(),
		Bus:       s.bus,
		Reviewer:  s.st, // maintenance configuration (S3 Tables API) has the last word on proposals
		Authz:     s.authz,
		Metrics:   s.metrics.reg,
		// On PostgreSQL other replicas may share the catalog: jobs go
		// under leases and detection takes turns (see plugin/job_lease.go).
		Options: plugin.Options{ConsoleVersion: version, Shared: s.db.Dialect().Name == persist.Postgres().Name}})
	if err != nil {
		return nil, err
	}
	// A commit or declare through any surface asks a worker for the table's
	// new figures now, not at the next detection sweep.
	s.st.OnTableChange(func(id string) { p.ObserveNow(id) })
	s.register("plugin channel", func() error {
		ctx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
		defer cancel()
		return p.Shutdown(ctx) // already done when Serve ran; safe twice
	})
	ts, err := tasks.New(s.db, s.st, tasks.PluginRunner{Jobs: p}, s.log, tasks.WithSchemas(obs))
	if err != nil {
		return nil, err
	}
	pb := preview.New(p, obs)
	if err := pb.Instrument(s.metrics.reg); err != nil {
		return nil, err
	}
	// Browse Data on this replica reaches workers connected to the others
	// (PostgreSQL; nothing on SQLite); Run serves their requests.
	pb.Relay(s.db, s.bus, s.log)
	// What the parts keep is read here, once, before anything serves;
	// their Run starts with the server's. The observations are the
	// exception: there is one a table, so reading them would make start-up
	// grow with the catalog; loadObservations reads them once the server
	// runs, and until then the store reads what it is asked from the
	// database.
	if err := p.Load(ctx); err != nil {
		return nil, err
	}
	if err := ts.Load(ctx); err != nil {
		s.log.Error("floe starts without recovering the tasks a previous run left unfinished", "err", err)
	}
	return &services{observe: obs, plugin: p, preview: pb, tasks: ts, sessions: sess}, nil
}

// loadObservations reads the persisted observations into memory while
// floe already serves (see newServices). A failed load is logged and
// leaves the store reading from the database, slower but right, rather
// than stopping a server that works.
func loadObservations(ctx context.Context, obs *observe.Store, log *slog.Logger, warm func(context.Context) error) {
	t0 := time.Now()
	if err := obs.Load(ctx); err != nil {
		if ctx.Err() == nil {
			log.Error("observations were not loaded into memory; pages read them from the database", "err", err)
		}
		return
	}
	log.Info("observations loaded", "observations", obs.Len(), "took", time.Since(t0).Round(time.Millisecond).String())
	t1 := time.Now()
	if err := obs.Warm(ctx); err != nil {
		if ctx.Err() == nil {
			log.Warn("observations' attributes were not read ahead; each is read when a page first needs it", "err", err)
		}
		return
	}
	log.Info("observations' attributes read ahead", "took", time.Since(t1).Round(time.Millisecond).String())
	t2 := time.Now()
	if err := warm(ctx); err != nil {
		if ctx.Err() == nil {
			log.Warn("the buckets page's sums were not computed ahead; its first view computes them", "err", err)
		}
		return
	}
	log.Info("bucket sums computed", "took", time.Since(t2).Round(time.Millisecond).String())
}

// housekeep deletes expired sessions and API keys until ctx ends.
func housekeep(ctx context.Context, st *catalog.Store, sess *sessions.Store, log *slog.Logger) {
	tick := time.NewTicker(housekeepingInterval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			if err := sess.DeleteExpired(ctx); err != nil && ctx.Err() == nil {
				log.Warn("delete expired sessions", "err", err)
			}
			if err := st.DeleteExpiredAPIKeys(ctx); err != nil && ctx.Err() == nil {
				log.Warn("delete expired api keys", "err", err)
			}
		}
	}
}
