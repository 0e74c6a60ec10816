// Package lancerest serves the Lance Namespace REST API (/v1/...) over the
// catalog: namespaces and table entries only. Data-plane operations answer
// Unsupported, because LanceDB and Lance write datasets straight to storage at
// the location the catalog hands out.
package lancerest

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"log/slog"
	"net/http"
	"sync/atomic"

	"github.com/floe/floe/apikey"
	"github.com/floe/floe/catalog"
	"github.com/floe/floe/lancecommit"
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
	// Jobs runs RestoreTable on a worker; nil answers RestoreTable with the
	// spec's Unsupported.
	Jobs JobRunner
	// Observer gives DescribeTable a fallback when a manifest cannot be
	// read; nil means no fallback.
	Observer Observer
}

// Server is the Lance Namespace REST API.
type Server struct {
	store   *catalog.Store
	log     *slog.Logger
	auth    *apikey.Checker
	storage StorageOptioner
	// observer: see Config.Observer.
	observer Observer
	// jobs: see Config.Jobs.
	jobs JobRunner
	// commits runs managed versioning (CreateTableVersion and the version
	// reads) over the same store.
	commits *lancecommit.Service

	idPrefix string
	seq      atomic.Uint64
}

// New builds a Server.
func New(cfg Config) *Server {
	lg := cfg.Logger
	if lg == nil {
		lg = slog.Default()
	}
	var p [4]byte
	rand.Read(p[:])
	return &Server{
		store:    cfg.Store,
		log:      lg.With("component", "lancerest"),
		auth:     apikey.New(apikey.Config{Keys: cfg.Store, Anonymous: cfg.Anonymous, Tokens: cfg.Tokens}),
		storage:  cfg.Storage,
		observer: cfg.Observer,
		jobs:     cfg.Jobs,
		commits:  lancecommit.New(cfg.Store),
		idPrefix: "lr-" + hex.EncodeToString(p[:]) + "-",
	}
}

// Handler returns the handler for the Lance address.
func (s *Server) Handler() http.Handler { return s }

// ServeHTTP routes one request.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	r, st := s.begin(w, r)
	path := r.URL.EscapedPath()
	rt, ok := matchRoute(r.Method, path)
	if !ok {
		notFoundRoute(w, r)
		return
	}
	if rt.allow != "" {
		methodNotAllowed(w, r, rt.allow)
		return
	}
	if e := s.authenticate(r, st); e != nil {
		writeAPIError(w, r, e, nil)
		return
	}
	c := call{key: st.key, rawQuery: r.URL.RawQuery}
	delim, e := parseDelimiter(c.query("delimiter"))
	if e != nil {
		writeAPIError(w, r, e, nil)
		return
	}
	c.delim = delim
	if rt.hasID {
		if c.id, e = parseIdentifier(rt.rawID, delim); e != nil {
			writeAPIError(w, r, e, nil)
			return
		}
	}
	if e := rt.op(s, w, r, &c); e != nil {
		writeAPIError(w, r, e, nil)
		return
	}
	if lg := st.log; lg.Enabled(r.Context(), slog.LevelDebug) {
		lg.LogAttrs(r.Context(), slog.LevelDebug, "lance rest request",
			slog.String("method", r.Method), slog.String("path", r.URL.Path), slog.String("request_id", st.id))
	}
}

// call is what the router parsed for an operation.
type call struct {
	id       []string
	delim    string
	key      catalog.APIKey
	rawQuery string
}

func (c *call) query(name string) string { return queryValue(c.rawQuery, name) }

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

// writeEmpty answers 200 with no body (the *Exists operations).
func writeEmpty(w http.ResponseWriter) *Error {
	w.WriteHeader(http.StatusOK)
	return nil
}
