// Package taskapi serves the Lance maintenance task API under
// /lance/oss/v1/: five task submissions and get, list and delete of task
// records, for the bucket named by the request's Host. It parses and checks
// requests, calls the tasks service and renders its answers.
//
// The surface runs behind the edge (request id, also answered as
// x-oss-request-id; access log; metrics; body cap; one API-key
// authentication step): routes.go is its one route table, errors.go its
// one error encoder, and each operation has its own file.
package taskapi

import (
	"log/slog"
	"net/http"

	"github.com/floe/floe/apikey"
	"github.com/floe/floe/authz"
	"github.com/floe/floe/catalog"
	"github.com/floe/floe/edge"
	"github.com/floe/floe/tasks"
)

// Prefix is the path every operation of the API begins with.
const Prefix = "/lance/oss/v1/"

// SurfaceName labels this surface in the access log and metrics.
const SurfaceName = "taskapi"

// Config wires the handler.
type Config struct {
	Store  *catalog.Store
	Tasks  *tasks.Service
	Logger *slog.Logger
	// Anonymous serves every caller without an API key, with full rights
	// (mirrors --lance-anonymous; for local experiments only).
	Anonymous bool
	// Tokens lets OAuth2 access tokens from the Iceberg REST's
	// /v1/oauth/tokens stand in for the API key they were issued for (same
	// role and bucket scope); nil accepts API keys only.
	Tokens *apikey.Tokens
	// IdP verifies bearers shaped as JWTs: access tokens of the
	// organization's identity provider (floe serve --oidc-audience); nil
	// treats them as unknown keys.
	IdP apikey.IdP
	// Auth authenticates every request; nil builds floe's API-key check
	// from Store, Anonymous, Tokens and IdP.
	Auth edge.Authenticator
	// Metrics counts every request under surface "taskapi"; nil counts none.
	Metrics *edge.Metrics
	// Auditor records every write and refusal; nil records none.
	Auditor edge.Auditor
	// Authz decides what each principal may do; nil builds one over Store.
	Authz *authz.Authorizer
}

type handler struct {
	store *catalog.Store
	tasks *tasks.Service
	log   *slog.Logger
	authz *authz.Authorizer
}

// New returns the handler for paths beginning with Prefix (an
// *edge.Surface); mount it there on the Lance address, beside the Lance
// Namespace REST.
func New(cfg Config) http.Handler {
	lg := cfg.Logger
	if lg == nil {
		lg = slog.New(slog.DiscardHandler)
	}
	h := &handler{store: cfg.Store, tasks: cfg.Tasks, log: lg, authz: cfg.Authz}
	if h.authz == nil {
		h.authz = authz.New(cfg.Store)
	}
	auth := cfg.Auth
	if auth == nil {
		auth = apikey.New(apikey.Config{Keys: cfg.Store, Anonymous: cfg.Anonymous, Tokens: cfg.Tokens, IdP: cfg.IdP})
	}
	s := edge.New(edge.Config{
		Name: SurfaceName, Encode: h.encode, Auth: auth, MaxBody: maxBodyBytes,
		RequestIDHeaders: []string{"x-oss-request-id"}, Log: lg, Metrics: cfg.Metrics, Auditor: cfg.Auditor,
	})
	h.routes(s)
	return s
}

// op is one of the eight operations.
type op struct {
	name     string
	write    bool       // maintenance (maintain on the table), not a read
	taskType tasks.Type // submissions only
	run      func(h *handler, w http.ResponseWriter, r *http.Request, req *request) *apiError
}

// serve adapts an operation to the edge: the checks every operation shares
// (prepare), then the operation; a refusal is answered by encode.
func (h *handler) serve(o op) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		req, e := h.prepare(r, o)
		if e == nil {
			e = o.run(h, w, r, req)
		}
		if e != nil {
			h.encode(w, r, e)
		}
	})
}
