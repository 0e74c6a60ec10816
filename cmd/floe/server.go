package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync"

	"golang.org/x/sync/errgroup"
	"google.golang.org/grpc"

	"github.com/floe/floe/apikey"
	"github.com/floe/floe/audit/auditedge"
	"github.com/floe/floe/authz"
	"github.com/floe/floe/catalog"
	"github.com/floe/floe/connlimit"
	"github.com/floe/floe/handlers"
	"github.com/floe/floe/persist"
	"github.com/floe/floe/persist/notify"
	"github.com/floe/floe/plugin"
	"github.com/floe/floe/safety"
	"github.com/floe/floe/warehouse"
	"github.com/floe/floe/web"
)

// server is one `floe serve`: every listener and service it opens is
// registered once, in order, so Close undoes exactly what was opened —
// after Run, or half-way through a start that failed.
type server struct {
	cfg      serveConfig
	paths    dataPaths
	log      *slog.Logger
	db       *persist.DB
	bus      *notify.Bus // cross-replica events; delivers nothing on SQLite
	st       *catalog.Store
	authz    *authz.Authorizer
	svc      *services
	events   *eventParts // the audit trail and its event delivery
	console  *web.Server
	surfaces web.Surfaces
	// metrics is the one registry /metrics serves; metrics.http goes to
	// every HTTP surface's Config.
	metrics processMetrics
	// conns is how the connection budget is split between the listeners.
	conns    connPlan
	grpcLn   net.Listener
	grpcOpts []grpc.ServerOption
	https    []httpSurface // console first, then the catalogs that are on
	// metricsAddr is the bound --metrics address; "" when it is off.
	metricsAddr string

	closers   []closer // in the order opened; Close runs them backwards
	closeOnce sync.Once
	closeErr  error
}

// httpSurface is one HTTP surface bound to its address.
type httpSurface struct {
	name string
	ln   net.Listener
	h    http.Handler
	// limit is ln's connection limit (nil with --max-connections -1); its
	// server reports connection states to it.
	limit *connlimit.Listener
}

// closer undoes one thing start opened.
type closer struct {
	name  string
	close func() error
}

// register records something to close; start calls it right after each
// thing is opened, so a failure at any later step closes it.
func (s *server) register(name string, close func() error) {
	s.closers = append(s.closers, closer{name, close})
}

// startServer checks the configuration, opens the catalog, binds every
// address and builds every service. Binding everything before serving lets
// the console show the real addresses and makes a port conflict fail the
// start instead of half-starting. On any failure what was opened is closed
// again, so no port stays bound.
func startServer(ctx context.Context, cfg serveConfig, paths dataPaths, log *slog.Logger) (_ *server, err error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	proxies, err := web.ParseTrustedProxies(cfg.TrustedProxies)
	if err != nil {
		return nil, usageError{fmt.Sprintf("--trusted-proxy: %v (give IPs or CIDRs, comma-separated)", err)}
	}
	s := &server{cfg: cfg, paths: paths, log: log, metrics: newProcessMetrics()}
	defer func() {
		if err != nil {
			if cerr := s.Close(); cerr != nil {
				log.Warn("closing after a failed start", "err", cerr)
			}
		}
	}()
	if s.db, s.st, err = openStoreAt(ctx, paths, cfg.backend); err != nil {
		return nil, err
	}
	s.register("database", s.db.Close) // closed after everything that uses it
	s.bus = notify.New(s.db, notify.Options{Logger: log})
	s.register("event bus", func() error { s.bus.Close(); return nil })
	s.st.CacheReads(s.bus)        // on PostgreSQL: describes without a round trip, invalidated through the bus
	s.st.FollowRevocations(s.bus) // on PostgreSQL: a key, bearer or worker token revoked on any replica dies here too
	s.st.FollowGrants(s.bus)      // on PostgreSQL: a grant made on any replica decides here once its note arrives
	s.authz = authz.New(s.st)     // the one authorizer every surface asks
	s.register("catalog", s.st.Close)
	// The default hold is the catalog's (so CLI drops hold as long as the
	// server's); every start records this one's.
	hold, err := cfg.hold()
	if err != nil {
		return nil, err
	}
	if err := s.st.SetDefaultHold(ctx, hold); err != nil {
		return nil, err
	}
	if err := s.bindAll(); err != nil {
		return nil, err
	}
	if err := s.limitListeners(); err != nil {
		return nil, err
	}
	s.surfaces.S3TablesRegion, s.surfaces.S3TablesAccount = cfg.S3.Region, cfg.S3.Account
	if err := registerUpGauges(s.metrics.reg, s.db, cfg.storage, paths.Warehouse); err != nil {
		return nil, err
	}
	if s.svc, err = newServices(ctx, s, httpURL(s.surfaces.Lance), httpURL(s.surfaces.Iceberg)); err != nil {
		return nil, err
	}
	s.svc.observe.SetHistoryRetention(cfg.HistoryRetention)
	if s.events, err = newEventParts(ctx, s); err != nil {
		return nil, err
	}
	aud := auditedge.New(s.events.trail, cfg.Audit.Reads)
	idp, err := cfg.OIDC.provider(s.surfaces.Console, s.authz, log)
	if err != nil {
		return nil, err
	}
	var sso handlers.SSO
	var bearer apikey.IdP
	if idp != nil && idp.SignIn() {
		sso = idp
	}
	if idp != nil && cfg.OIDC.Audience != "" {
		bearer = idp
	}
	s.console, err = web.New(web.Config{SSO: sso, DB: s.db, Store: s.st, Logger: log, Surfaces: s.surfaces, SecureCookies: cfg.SecureCookies, TrustedProxies: proxies,
		Stats: handlers.StatsFromRows(s.svc.observe), Plugin: s.svc.plugin, Observe: s.svc.observe, Preview: s.svc.preview, Tasks: s.svc.tasks, Storage: cfg.storage,
		SnippetStore: snippetStore(cfg.clients), Metrics: s.metrics.http, Auditor: aud, Audit: s.events.trail.Store(), LiveLimit: s.conns.liveLimit(), Authz: s.authz})
	if err != nil {
		return nil, err
	}
	// Shutdown leaves hijacked websocket connections open; this closes them.
	s.register("console live updates", func() error { s.console.Close(); return nil })
	// One set of OAuth2 access tokens: issued by the Iceberg REST, accepted
	// by it, the Lance REST and the task API alike.
	tokens := apikey.NewTokens(s.st, nil)
	for i := range s.https {
		switch s.https[i].name {
		case "http":
			s.https[i].h = s.console.Handler()
		case "lance":
			s.https[i].h = lanceHandler(s.st, s.authz, log, cfg, s.svc, tokens, bearer, s.metrics.http, aud)
		case "iceberg":
			h, closePlans := icebergHandler(s.st, s.authz, log, cfg, tokens, bearer, s.metrics.http, aud)
			s.https[i].h = h
			s.register("iceberg scan plans", func() error { closePlans(); return nil })
		case "metrics":
			s.https[i].h = s.metrics.handler()
		case "s3tables":
			s.https[i].h = s3tablesHandler(s.st, s.authz, log, cfg.S3, s.svc.plugin, s.metrics.http, s.surfaces, aud)
		}
	}
	var tlsCfg *plugin.TLSConfig
	if cfg.GRPCCert != "" {
		tlsCfg = &plugin.TLSConfig{CertFile: cfg.GRPCCert, KeyFile: cfg.GRPCKey, CAFile: cfg.GRPCCA}
	}
	if s.grpcOpts, err = plugin.ServerOptions(tlsCfg); err != nil {
		return nil, err
	}
	return s, nil
}

// bindAll binds the console, Lance, Iceberg, S3 Tables and plugin-channel
// addresses in that order; an empty Lance, Iceberg or S3 Tables address
// leaves that surface off.
func (s *server) bindAll() error {
	for _, b := range []struct {
		name, addr string
		set        *string
	}{
		{"http", s.cfg.HTTP, &s.surfaces.Console},
		{"lance", s.cfg.Lance, &s.surfaces.Lance},
		{"iceberg", s.cfg.Iceberg, &s.surfaces.Iceberg},
		{"s3tables", s.cfg.S3.Addr, &s.surfaces.S3Tables},
		{"grpc", s.cfg.GRPC, &s.surfaces.GRPC},
		{"metrics", s.cfg.Metrics, &s.metricsAddr},
	} {
		if b.addr == "" {
			continue
		}
		ln, err := net.Listen("tcp", b.addr)
		if err != nil {
			return fmt.Errorf("%s: listen on %s: %w (is another floe running? pick another address with --%s)", b.name, b.addr, err, b.name)
		}
		s.register(b.name+" listener", closeListener(ln))
		*b.set = ln.Addr().String()
		s.log.Debug("listening", "surface", b.name, "addr", *b.set)
		if b.name == "grpc" {
			s.grpcLn = ln
			continue
		}
		s.https = append(s.https, httpSurface{name: b.name, ln: ln})
	}
	return nil
}

// closeListener closes ln, taking "already closed" (a server that served it
// has closed it on shutdown) as success.
func closeListener(ln net.Listener) func() error {
	return func() error {
		if err := ln.Close(); err != nil && !errors.Is(err, net.ErrClosed) {
			return err
		}
		return nil
	}
}

// Run serves every surface and runs every long-running part until ctx ends
// or one of them fails, then stops them all and returns once every
// goroutine it started has: each part (built by startServer with New, which
// starts nothing) runs in Run(ctx) under one errgroup, and so does every
// listener. Shutdown keeps its order: the HTTP surfaces stop first and let
// in-flight requests finish, then the parts behind them stop (the plugin
// channel, the live updates, the relay, the flusher, the bus). The caller
// still calls Close.
func (s *server) Run(ctx context.Context) error {
	g, gctx := errgroup.WithContext(ctx)
	// The parts outlive gctx: they stop only once no request can reach
	// them any more.
	partsCtx, stopParts := context.WithCancel(context.WithoutCancel(ctx))
	defer stopParts()
	parts := []namedPart{
		{"event bus", s.bus.Run},
		{"observations", s.svc.observe.Run},
		{"observations load", func(ctx context.Context) error {
			loadObservations(ctx, s.svc.observe, s.log, s.console.WarmBucketSums)
			return nil
		}},
		{"plugin channel", s.svc.plugin.Run},
		{"preview relay", s.svc.preview.Run},
		{"console live updates", s.console.Run},
		{"task follower", func(ctx context.Context) error { s.svc.tasks.FollowJobs(ctx, s.svc.plugin); return nil }},
		{"housekeeping", func(ctx context.Context) error { housekeep(ctx, s.st, s.svc.sessions, s.log); return nil }},
		// Recently deleted tables whose hold ended lose their data here (on
		// PostgreSQL every replica sweeps; each table is claimed first).
		{"soft-delete sweep", (&safety.Sweeper{Store: s.st, Log: s.log}).Run},
		{"grpc", func(ctx context.Context) error { return s.svc.plugin.Serve(ctx, s.grpcLn, s.grpcOpts...) }},
	}
	if h, ok := s.cfg.storage.(*warehouse.Health); ok {
		parts = append(parts, namedPart{"storage health", func(ctx context.Context) error { h.Run(ctx); return nil }})
	}
	parts = append(parts, s.events.runParts(s)...)
	for _, p := range parts {
		g.Go(func() error {
			if err := p.run(partsCtx); err != nil {
				return fmt.Errorf("%s: %w", p.name, err)
			}
			return nil
		})
	}
	if s.cfg.WithWorker {
		if err := startBundledWorker(partsCtx, s.st, s.log, s.paths, s.surfaces, g, s3WorkerEnv(s.cfg.clients)); err != nil {
			s.log.Error("the bundled Lance worker did not start; floe runs without it", "err", err)
		}
	}
	servers := make([]*http.Server, 0, len(s.https))
	for _, l := range s.https {
		hs := &http.Server{Handler: l.h, ReadHeaderTimeout: readHeaderTimeout, ReadTimeout: readTimeout, IdleTimeout: idleTimeout,
			ErrorLog: slog.NewLogLogger(s.log.Handler(), slog.LevelWarn)}
		if l.limit != nil {
			hs.ConnState = l.limit.HTTPConnState
		}
		servers = append(servers, hs)
		g.Go(func() error {
			if err := hs.Serve(l.ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
				return fmt.Errorf("%s: %w", l.name, err)
			}
			return nil
		})
	}
	g.Go(func() error {
		<-gctx.Done() // ctx ended, or a part or surface failed
		if ctx.Err() != nil {
			s.log.Info("shutting down")
		}
		sctx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
		defer cancel()
		for _, hs := range servers {
			hs.Shutdown(sctx)
		}
		stopParts()
		return nil
	})
	err := g.Wait()
	if err != nil {
		s.log.Error("a surface stopped", "err", err)
	}
	return err
}

// Close closes everything start opened, newest first, and reports the
// first failure. It is safe to call more than once.
func (s *server) Close() error {
	s.closeOnce.Do(func() {
		for i := len(s.closers) - 1; i >= 0; i-- {
			c := s.closers[i]
			if err := c.close(); err != nil && s.closeErr == nil {
				s.closeErr = fmt.Errorf("close %s: %w", c.name, err)
			}
		}
	})
	return s.closeErr
}
