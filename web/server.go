// Package web wires the console onto the edge: its route table, the session
// as the authentication step, compression, static files and health.
// Pages themselves live in handlers/ and views/.
package web

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/netip"
	"time"

	"github.com/alexedwards/scs/v2"

	"github.com/floe/floe/authz"
	"github.com/floe/floe/catalog"
	"github.com/floe/floe/edge"
	"github.com/floe/floe/fault"
	"github.com/floe/floe/handlers"
	"github.com/floe/floe/observe"
	"github.com/floe/floe/persist"
	"github.com/floe/floe/plugin"
	"github.com/floe/floe/preview"
	"github.com/floe/floe/safety"
	"github.com/floe/floe/tasks"
	"github.com/floe/floe/web/sessions"
)

// Surfaces are the host:port addresses floe bound; "" means the surface is off.
type Surfaces = handlers.Surfaces

// Config configures the console.
type Config struct {
	// DB is the database the sessions live in and /readyz pings.
	DB            *persist.DB
	Store         *catalog.Store
	Logger        *slog.Logger
	Surfaces      Surfaces
	SecureCookies bool // force Secure cookies; otherwise Secure whenever the request came over HTTPS (see forwarded)
	// TrustedProxies are the addresses whose X-Forwarded-Proto and
	// X-Forwarded-For the console believes; empty = nobody's.
	TrustedProxies []netip.Prefix
	Now            func() time.Time     // the sign-in throttle's clock; nil = wall clock
	Stats          handlers.StatsSource // may be nil: Rows shows a dash

	// Services behind the worker, job, Browse Data and maintenance pages;
	// each may be nil and the page then says what is missing.
	Plugin  *plugin.Plugin
	Observe *observe.Store
	Preview *preview.Broker
	Tasks   *tasks.Service

	// Storage is the warehouse store's health for /readyz and the
	// console banner; nil for a store that needs no watching.
	Storage StorageHealth
	// SnippetStore is the s3:// warehouse the Connect snippets describe;
	// nil for a local one.
	SnippetStore *handlers.SnippetStore
	// Metrics records every console request
	// (floe_http_requests_total{surface="console",…}) in the process's one
	// registry, which floe serve exposes on its --metrics listener; nil
	// records nothing.
	Metrics *edge.Metrics
	// Manager says who may force past protection, protect, undrop and
	// purge; nil asks Authz (safety.Grants).
	Manager safety.Manager
	// LiveLimit lowers the cap of /live websockets open at once over every
	// session (0, or more than liveMaxTotal: liveMaxTotal); each session has
	// its own cap too (live_limits.go).
	LiveLimit int
	// Auditor records every write and refusal; nil records none.
	Auditor edge.Auditor
	// Audit is the trail the Activity pages read; nil hides them.
	Audit handlers.ActivityReader
	// SSO signs users in through the organization's identity provider
	// ("Sign in with …" beside the password form); nil = local users only.
	SSO handlers.SSO
	// Authz decides what each user may see and do; nil builds one over
	// Store.
	Authz *authz.Authorizer
}

// Session lifetimes: a working day signed in, an hour idle.
const (
	sessionLifetime    = 12 * time.Hour
	sessionIdleTimeout = time.Hour
	sessionCookieName  = "floe_session"
)

// Server is the console. Create with New; serve Handler().
type Server struct {
	store    *catalog.Store
	db       *persist.DB
	log      *slog.Logger
	sessions *scs.SessionManager
	h        *handlers.Handlers
	surface  *edge.Surface // the routes behind the edge
	handler  http.Handler  // the surface behind forwarded, security headers and compression
	live     *liveHub      // nil without a plugin channel
	storage  StorageHealth

	secureCookies bool
	proxies       []netip.Prefix
}

// New builds the console from cfg; sessions are stored in cfg.DB.
func New(cfg Config) (*Server, error) {
	if cfg.Store == nil {
		return nil, errors.New("web: Config.Store is required")
	}
	if cfg.DB == nil {
		return nil, errors.New("web: Config.DB is required")
	}
	sessionStore, err := sessions.New(cfg.DB, nil)
	if err != nil {
		return nil, err
	}
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	sm := scs.New()
	sm.Store = sessionStore
	sm.Codec = sessions.Codec{} // stable bytes: an unchanged session's renewal is coarse (see sessions)
	sm.Lifetime = sessionLifetime
	sm.IdleTimeout = sessionIdleTimeout
	sm.Cookie.Name = sessionCookieName
	sm.Cookie.HttpOnly = true
	sm.Cookie.SameSite = http.SameSiteLaxMode
	sm.Cookie.Secure = false // per request: forwarded marks cookies Secure on HTTPS
	sm.Cookie.Path = "/"

	s := &Server{
		store:    cfg.Store,
		db:       cfg.DB,
		log:      log,
		sessions: sm,
		storage:  cfg.Storage,

		secureCookies: cfg.SecureCookies,
		proxies:       cfg.TrustedProxies,
	}
	s.h = handlers.New(handlers.Deps{Store: cfg.Store, Logger: log, Surfaces: cfg.Surfaces, Stats: cfg.Stats, Sessions: sm,
		Plugin: cfg.Plugin, Observe: cfg.Observe, Preview: cfg.Preview, Tasks: cfg.Tasks, Now: cfg.Now, Storage: storageStatus(cfg.Storage),
		SnippetStore: cfg.SnippetStore, Health: newHealth(cfg.Observe, cfg.Store, cfg.Plugin), Audit: cfg.Audit, SSO: cfg.SSO, Authz: cfg.Authz,
		Manager: cfg.Manager})
	sm.ErrorFunc = func(w http.ResponseWriter, r *http.Request, err error) {
		s.h.Encode(w, r, &fault.Error{Kind: fault.Unavailable, Field: "database", Message: "the session store failed", Err: err})
	}
	s.surface = edge.New(edge.Config{Name: "console", Encode: s.h.Encode, Auth: edge.AuthFunc(s.authenticate),
		MaxBody: maxBodyBytes, Log: log, Metrics: cfg.Metrics, Quiet: quietRoutes, Auditor: cfg.Auditor,
		Wrap: func(next http.Handler) http.Handler { return s.withSession(s.crossOrigin(next)) }})
	s.routes(s.surface)
	// Outside the edge: the client address a trusted proxy names (so the
	// access log and the sign-in throttle see it), headers every answer
	// carries, and compression, so the edge's own pages get all three.
	s.handler = s.forwarded(securityHeaders(compressHTML(s.surface)))
	if cfg.Plugin != nil {
		s.live = newLiveHub(cfg.Plugin, s.h, s, cfg.LiveLimit)
	}
	return s, nil
}

// Run pushes live progress to the open /live websockets until ctx ends,
// then closes every one of them (http.Server.Shutdown does not touch
// hijacked connections) and returns. Without a plugin channel it only
// waits.
func (s *Server) Run(ctx context.Context) error {
	if s.live == nil {
		<-ctx.Done()
		return nil
	}
	s.live.run(ctx)
	return nil
}

// WarmBucketSums computes the buckets page's sums before anyone asks
// (handlers.WarmBucketSums).
func (s *Server) WarmBucketSums(ctx context.Context) error { return s.h.WarmBucketSums(ctx) }

// Close closes every open /live websocket and refuses new ones; Run does
// it as it stops. It is safe to call more than once.
func (s *Server) Close() {
	if s.live != nil {
		s.live.close()
	}
}

// Handler serves the console, /static/, /healthz and /readyz.
func (s *Server) Handler() http.Handler { return s.handler }
