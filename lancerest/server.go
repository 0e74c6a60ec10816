// Package lancerest serves the Lance Namespace REST API (/v1/...) over the
// catalog: namespaces; table entries (declare, register, describe with the
// detailed metadata lancemeta reads from the manifest, rename, drop,
// deregister); table versions and tags from the dataset's own _versions/ and
// _refs/tags/ files, or from the catalog's record for tables whose commits
// go through floe (managed versioning); stats, row counts and indices read
// from the manifest; and restore, index builds and index drops, run as jobs
// on a Lance worker. Data-plane operations answer Unsupported, because
// LanceDB and Lance write datasets straight to storage at the location the
// catalog hands out.
//
// The surface runs behind the edge (request id, access log, metrics, body
// cap, one API-key authentication step): routes.go is its one route table,
// errors.go its one error encoder, and each operation has its own file.
package lancerest

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"strconv"
	"strings"

	"github.com/floe/floe/apikey"
	"github.com/floe/floe/authz"
	"github.com/floe/floe/catalog"
	"github.com/floe/floe/edge"
	"github.com/floe/floe/identity"
	"github.com/floe/floe/lancecommit"
	"github.com/floe/floe/safety"
)

// Config configures a Server.
type Config struct {
	Store  *catalog.Store
	Logger *slog.Logger
	// Anonymous lets requests without a key read and write every bucket
	// (--lance-anonymous). Off by default; a wrong key is refused either way.
	Anonymous bool
	// Storage answers storage_options for tables on an object store; nil
	// for a local warehouse, whose tables need none.
	Storage StorageOptioner
	// Tokens lets OAuth2 access tokens from the Iceberg REST's
	// /v1/oauth/tokens stand in for the API key they were issued for (same
	// role and bucket scope); nil accepts API keys only.
	Tokens *apikey.Tokens
	// IdP verifies bearers shaped as JWTs: access tokens of the
	// organization's identity provider (floe serve --oidc-audience); nil
	// treats them as unknown keys.
	IdP apikey.IdP
	// Auth authenticates every request; nil builds floe's API-key check
	// from Store, Anonymous, Tokens and IdP (tests pass one with their clock).
	Auth edge.Authenticator
	// Jobs runs RestoreTable and DropTableIndex on a worker; nil answers
	// them with the spec's Unsupported.
	Jobs JobRunner
	// Tasks submits CreateTableIndex and CreateTableScalarIndex as the task
	// API's index tasks; nil answers them with the spec's Unsupported.
	Tasks IndexTasks
	// Observer gives DescribeTable a fallback when a manifest cannot be
	// read; nil means no fallback.
	Observer Observer
	// Metrics counts every request under surface "lance"; nil counts none.
	Metrics *edge.Metrics
	// Auditor records every write and refusal; nil records none.
	Auditor edge.Auditor
	// Authz decides what each principal may do; nil builds one over Store
	// (floe serve hands every surface the process's one authorizer).
	Authz *authz.Authorizer
	// Manager says who may force past protection and undrop (the manage
	// privilege); nil asks Authz (safety.Grants).
	Manager safety.Manager
}

// Server is the Lance Namespace REST API.
type Server struct {
	store   *catalog.Store
	log     *slog.Logger
	storage StorageOptioner
	// observer: see Config.Observer.
	observer Observer
	// jobs: see Config.Jobs.
	jobs JobRunner
	// tasks: see Config.Tasks.
	tasks IndexTasks
	// commits runs managed versioning (CreateTableVersion and the version
	// reads) over the same store.
	commits *lancecommit.Service
	authz   *authz.Authorizer
	// manager: see Config.Manager.
	manager safety.Manager

	surface *edge.Surface
}

// SurfaceName labels this surface in the access log and metrics.
const SurfaceName = "lance"

// New builds a Server and its routes.
func New(cfg Config) *Server {
	lg := cfg.Logger
	if lg == nil {
		lg = slog.Default()
	}
	s := &Server{
		store:    cfg.Store,
		log:      lg.With("component", "lancerest"),
		storage:  cfg.Storage,
		observer: cfg.Observer,
		jobs:     cfg.Jobs,
		tasks:    cfg.Tasks,
		commits:  lancecommit.New(cfg.Store),
		authz:    cfg.Authz,
		manager:  cfg.Manager,
	}
	if s.authz == nil {
		s.authz = authz.New(cfg.Store)
	}
	if s.manager == nil {
		s.manager = safety.Grants{D: s.authz}
	}
	auth := cfg.Auth
	if auth == nil {
		auth = apikey.New(apikey.Config{Keys: cfg.Store, Anonymous: cfg.Anonymous, Tokens: cfg.Tokens, IdP: cfg.IdP})
	}
	s.surface = edge.New(edge.Config{
		Name: SurfaceName, Encode: s.encode, Auth: auth, MaxBody: maxBodyBytes,
		Wrap: s.refuseDotSegments, Log: lg, Metrics: cfg.Metrics, Auditor: cfg.Auditor,
	})
	s.routes()
	return s
}

// Handler returns the handler for the Lance address.
func (s *Server) Handler() http.Handler { return s.surface }

// call is what every operation gets parsed for it: the caller (the edge's
// principal, its key and its rights), the identifier in the path and the
// delimiter.
type call struct {
	id        []string
	delim     string
	key       catalog.APIKey
	principal edge.Principal
	rights    authz.Rights
	rawQuery  string
}

func (c *call) query(name string) string { return queryValue(c.rawQuery, name) }

// resource is what the identifier names for the audit trail: a table
// route's id ends in the table's name, a namespace route's in a level.
func (c *call) resource(table bool) identity.Resource {
	var r identity.Resource
	id := c.id
	if len(id) == 0 {
		return r
	}
	r.Bucket = id[0]
	if table && len(id) >= 3 {
		r.Table = id[len(id)-1]
		id = id[:len(id)-1]
	}
	if len(id) > 1 {
		r.Namespace = id[1:]
	}
	return r
}

// opFunc is one operation; an error it returns is answered by encode.
type opFunc func(s *Server, w http.ResponseWriter, r *http.Request, c *call) *Error

// serve adapts an operation to the edge: ?delimiter= and the {id} path
// segment (withID) are parsed the same way for every operation.
func (s *Server) serve(op opFunc, withID bool) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, _ := edge.PrincipalFrom(r.Context())
		c := call{key: p.Key, rawQuery: r.URL.RawQuery}
		e := s.loadRights(r, &c)
		if e == nil {
			e = c.parse(r, withID)
		}
		if e == nil && withID {
			edge.Describe(r.Context(), c.resource(strings.HasPrefix(edge.Route(r.Context()), "POST /v1/table/")))
		}
		if e == nil {
			e = op(s, w, r, &c)
		}
		if e != nil {
			s.encode(w, r, e)
		}
	})
}

// parse reads the delimiter and the identifier. ServeMux matches {id} as
// one segment of the escaped path (a %2F or %24 stays inside it); the
// segment is read from the escaped path and decoded as the clients encode
// it (parseIdentifier: a + is a space), which PathValue, decoding as a path,
// would not.
func (c *call) parse(r *http.Request, withID bool) *Error {
	delim, e := parseDelimiter(c.query("delimiter"))
	if e != nil {
		return e
	}
	c.delim = delim
	if withID {
		c.id, e = parseIdentifier(idSegment(r.URL.EscapedPath()), delim)
	}
	return e
}

// writeJSON renders a success body.
func writeJSON(w http.ResponseWriter, v any) *Error {
	b, err := json.Marshal(v)
	if err != nil {
		return asError(err, CodeInternal)
	}
	h := w.Header()
	h.Set("Content-Type", "application/json")
	w.Write(b)
	return nil
}

// writeJSONBytes answers 200 with body, JSON already encoded.
func writeJSONBytes(w http.ResponseWriter, body []byte) *Error {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.Write(body)
	return nil
}

// writeEmpty answers 200 with no body (the *Exists operations).
func writeEmpty(w http.ResponseWriter) *Error {
	w.WriteHeader(http.StatusOK)
	return nil
}
