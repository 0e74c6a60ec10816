// Package handlers holds the console's HTTP handlers: each parses its input,
// calls the catalog (or another service) and renders a views component.
package handlers

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/floe/floe/identity"

	"github.com/alexedwards/scs/v2"

	"github.com/floe/floe/authz"
	"github.com/floe/floe/catalog"
	"github.com/floe/floe/edge"
	"github.com/floe/floe/fault"
	"github.com/floe/floe/health"
	"github.com/floe/floe/lancecommit"
	"github.com/floe/floe/observe"
	"github.com/floe/floe/persist"
	"github.com/floe/floe/plugin"
	"github.com/floe/floe/preview"
	"github.com/floe/floe/safety"
	"github.com/floe/floe/tasks"
)

// Surfaces are the host:port addresses floe actually bound; "" means the
// surface is switched off.
type Surfaces struct {
	Console, Lance, Iceberg, GRPC string
	S3Tables                      string // AWS S3 Tables control API; "" = off
	// Region and account of S3 Tables ARNs (set even when the surface is
	// off, so the console shows ARNs in the one form); "" = catalog's own.
	S3TablesRegion, S3TablesAccount string
}

// TableStats is what the last worker observation says about a table.
type TableStats struct {
	Rows       int64
	ObservedAt time.Time
	WorkerID   string
}

// StatsSource answers from observations; ok=false means nothing has looked at
// the table yet, which the console shows as a dash, never as 0.
type StatsSource interface {
	TableStats(tableID string, f catalog.Format) (TableStats, bool)
}

// Deps are everything the handlers need.
type Deps struct {
	Store    *catalog.Store
	Logger   *slog.Logger
	Surfaces Surfaces
	Stats    StatsSource // may be nil
	Sessions *scs.SessionManager

	// The services below may be nil (tests, or a console without workers);
	// pages then say plainly what is missing.
	Plugin  *plugin.Plugin  // workers, job types, jobs
	Observe *observe.Store  // what workers last saw of each table
	Preview *preview.Broker // Browse Data rows from workers
	Tasks   *tasks.Service  // the Lance maintenance task API's tasks
	Health  *health.Service // table health and per-bucket sums; nil = not shown
	Storage StorageStatus   // the warehouse store's health; nil = always fine
	// SnippetStore is the s3:// warehouse the Connect snippets describe;
	// nil for a local one.
	SnippetStore *SnippetStore
	// Audit reads the audit trail for the Activity pages; nil hides them.
	Audit ActivityReader

	Now func() time.Time // the sign-in throttle's clock; nil = wall clock (tests inject one)
	// SSO signs users in through the organization's identity provider;
	// nil = local users only.
	SSO SSO
	// Authz decides what each user may see and do; nil builds one over
	// Store (floe serve hands every surface the process's one).
	Authz *authz.Authorizer

	// Manager says who may force past protection, protect, undrop and
	// purge (the manage privilege); nil asks Authz (safety.Grants).
	Manager safety.Manager
}

// Handlers serves the console pages. Create with New.
type Handlers struct {
	store    *catalog.Store
	log      *slog.Logger
	surfaces Surfaces
	stats    StatsSource
	sessions *scs.SessionManager
	plugin   *plugin.Plugin
	observe  *observe.Store
	preview  *preview.Broker
	tasks    *tasks.Service
	storage  StorageStatus
	signin   *signinGuard
	s3       *SnippetStore // the s3:// warehouse for Connect snippets; nil = local
	reveals  *reveals      // new secrets awaiting their one showing
	health   *health.Service
	users    *userCache // what password sessions are checked against
	now      func() time.Time
	commits  *lancecommit.Service // Lance versions and tags, as the Lance REST reads them
	audit    ActivityReader
	sso      SSO // nil: no identity provider
	authz    *authz.Authorizer
	manager  safety.Manager
}

// New builds the handlers.
func New(d Deps) *Handlers {
	log := d.Logger
	if log == nil {
		log = slog.Default()
	}
	now := d.Now
	if now == nil {
		now = time.Now
	}
	h := &Handlers{now: now, store: d.Store, log: log, surfaces: d.Surfaces, stats: d.Stats, sessions: d.Sessions,
		plugin: d.Plugin, observe: d.Observe, preview: d.Preview, tasks: d.Tasks, storage: d.Storage, signin: newSigninGuard(d.Now),
		s3: d.SnippetStore, reveals: &reveals{}, health: d.Health, users: newUserCache(d.Store), audit: d.Audit, sso: d.SSO, authz: d.Authz, manager: d.Manager,
		commits: lancecommit.New(d.Store)}
	if h.authz == nil {
		h.authz = authz.New(d.Store)
	}
	if h.manager == nil {
		h.manager = safety.Grants{D: h.authz}
	}
	return h
}

// Session keys.
const (
	sessionUser   = "user"
	sessionRole   = "role"
	sessionGroups = "groups" // []string: the identity provider's groups of the user
	sessionVia    = "via"    // how the user signed in: "" (a password) or viaOIDC
	// sessionSignedIn is when a sign-in made the session (Unix
	// microseconds). A session carrying it is checked against the users
	// table on every request (users.go): a disabled, deleted or re-passworded
	// user's sessions stop at once, and a changed role applies on the next
	// page. Sessions made before it existed leave it out.
	sessionSignedIn = "signed_in"
)

// viaOIDC marks a session signed in through the identity provider.
const viaOIDC = identity.ViaIdPSignIn

// User is the signed-in console user as the session records it.
type User struct {
	Name string
	Role catalog.Role
	// Groups are the identity provider's groups at sign-in (none for a
	// local user).
	Groups []string
	// Via is viaOIDC for a sign-in through the identity provider, "" for
	// a password.
	Via string
}

// UserFrom returns the signed-in user, if any: the principal the edge's
// authentication step found in the session (or a public page recorded with
// edge.SetPrincipal).
func UserFrom(ctx context.Context) (User, bool) {
	p, ok := edge.PrincipalFrom(ctx)
	if !ok || p.Kind != edge.User || p.ID == "" {
		return User{}, false
	}
	u := User{Name: p.ID, Role: p.Role, Groups: p.Groups}
	if p.Via == viaOIDC {
		u.Via = viaOIDC
	}
	return u, true
}

// Principal is u as the edge records it: Via "session" for a password's
// session, "oidc" for one the identity provider's sign-in started.
func (u User) Principal() edge.Principal {
	via := "session"
	if u.Via == viaOIDC {
		via = viaOIDC
	}
	return edge.Principal{Kind: edge.User, ID: u.Name, Name: u.Name, Role: u.Role, Groups: u.Groups, Via: via}
}

// SessionUser reads the user recorded in the request's session; a
// password session whose user is gone, disabled or signed out since (see
// sessionSignedIn) counts as none.
func (h *Handlers) SessionUser(ctx context.Context) (User, bool) {
	name := h.sessions.GetString(ctx, sessionUser)
	if name == "" {
		return User{}, false
	}
	u := User{Name: name, Role: catalog.Role(h.sessions.GetString(ctx, sessionRole)), Via: h.sessions.GetString(ctx, sessionVia)}
	u.Groups, _ = h.sessions.Get(ctx, sessionGroups).([]string)
	if at := h.sessions.GetInt64(ctx, sessionSignedIn); at != 0 && h.users != nil {
		cu, err := h.users.check(ctx, name, persist.FromMicros(at))
		switch {
		case err == nil:
			u.Role = cu.Role
		case errors.Is(err, fault.NotFound), errors.Is(err, fault.Forbidden):
			return User{}, false
		}
		// A database that cannot be read leaves the session as it is: the
		// page itself then says the database is unavailable.
	}
	return u, true
}
