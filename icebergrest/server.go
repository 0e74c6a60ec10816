// Package icebergrest serves the Iceberg REST catalog over floe's catalog
// (one catalog per ICEBERG or unset bucket, prefix = bucket). It parses
// requests, checks API keys, calls the Iceberg library (package iceberg) and
// renders the spec's JSON and error model; the format work is the library's.
package icebergrest

import (
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/floe/floe/apikey"
	"github.com/floe/floe/catalog"
	"github.com/floe/floe/iceberg"
	"github.com/floe/floe/jsonstrict"
)

// Config configures the Iceberg REST server.
type Config struct {
	Store  *catalog.Store
	Logger *slog.Logger
	// Anonymous lets requests without an API key through (local use); a
	// wrong key is refused either way.
	Anonymous bool
	// Storage answers LoadTable's config for tables on an object store;
	// nil for a local warehouse.
	Storage StorageConfiger
	// Tokens issues and checks the OAuth2 access tokens of /v1/oauth/tokens;
	// nil makes the server its own (pass one to share tokens with other
	// surfaces).
	Tokens *apikey.Tokens
	// DefaultBucket is the bucket /v1/config hands clients that name no
	// warehouse; empty means such clients are told to name one.
	DefaultBucket string
	// PlanLimits bound server-side scan planning; zero fields take the
	// defaults.
	PlanLimits iceberg.PlanLimits
}

// Server is the Iceberg REST catalog.
type Server struct {
	store   *catalog.Store
	tables  *iceberg.Tables
	plans   *iceberg.ScanPlans
	log     *slog.Logger
	auth    *apikey.Checker
	ids     requestIDs
	storage StorageConfiger
	tokens  *apikey.Tokens
	// defaultBucket: see Config.DefaultBucket.
	defaultBucket string
}

// maxBodyBytes bounds one request body: a commit carries schemas and
// snapshots, never data, so 8 MiB is far more than any real client sends.
const maxBodyBytes = 8 << 20

// New builds a Server.
func New(cfg Config) *Server {
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	tokens := cfg.Tokens
	if tokens == nil {
		tokens = apikey.NewTokens(cfg.Store, nil)
	}
	tables := iceberg.New(iceberg.Config{Store: cfg.Store, Logger: log})
	return &Server{
		store:   cfg.Store,
		tables:  tables,
		plans:   iceberg.NewScanPlans(tables, log, cfg.PlanLimits),
		log:     log,
		auth:    apikey.New(apikey.Config{Keys: cfg.Store, Anonymous: cfg.Anonymous, Tokens: tokens}),
		tokens:  tokens,
		ids:     newRequestIDs(),
		storage: cfg.Storage,

		defaultBucket: cfg.DefaultBucket,
	}
}

// Close stops the scan plans still computing in the background; the
// handler answers no plan call after it.
func (s *Server) Close() { s.plans.Close() }

// access says what a route does to its bucket.
type access int

const (
	read access = iota
	write
)

// bucketHandler serves one route inside a bucket-catalog.
type bucketHandler func(w http.ResponseWriter, r *http.Request, b catalog.Bucket) error

// Handler returns the REST routes, to be mounted at the root of the Iceberg
// address.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/config", s.getConfig)
	mux.HandleFunc(indexPath, s.indexTables)

	ns := "/v1/{prefix}/namespaces"
	s.route(mux, "GET "+ns, read, s.listNamespaces)
	s.route(mux, "POST "+ns, write, s.createNamespace)
	s.route(mux, "GET "+ns+"/{ns}", read, s.loadNamespace)
	s.route(mux, "HEAD "+ns+"/{ns}", read, s.namespaceExists)
	s.route(mux, "DELETE "+ns+"/{ns}", write, s.dropNamespace)
	s.route(mux, "POST "+ns+"/{ns}/properties", write, s.updateNamespaceProperties)

	tb := ns + "/{ns}/tables"
	s.route(mux, "GET "+tb, read, s.listTables)
	s.route(mux, "POST "+tb, write, s.createTable)
	s.route(mux, "GET "+tb+"/{table}", read, s.loadTable)
	s.route(mux, "HEAD "+tb+"/{table}", read, s.tableExists)
	s.route(mux, "POST "+tb+"/{table}", write, s.commitTable)
	s.route(mux, "DELETE "+tb+"/{table}", write, s.dropTable)
	s.route(mux, "POST "+tb+"/{table}/metrics", read, s.reportMetrics)
	s.route(mux, "GET "+tb+"/{table}/credentials", read, s.loadCredentials)
	s.route(mux, "POST "+tb+"/{table}/plan", read, s.planTableScan)
	s.route(mux, "GET "+tb+"/{table}/plan/{plan}", read, s.fetchPlanningResult)
	s.route(mux, "DELETE "+tb+"/{table}/plan/{plan}", read, s.cancelPlanning)
	s.route(mux, "POST "+tb+"/{table}/tasks", read, s.fetchScanTasks)
	s.route(mux, "POST "+ns+"/{ns}/register", write, s.registerTable)
	s.route(mux, "POST /v1/{prefix}/tables/rename", write, s.renameTable)
	s.route(mux, "POST /v1/{prefix}/transactions/commit", write, s.commitTransaction)
	vw := ns + "/{ns}/views"
	s.route(mux, "GET "+vw, read, s.listViews)
	s.route(mux, "POST "+vw, write, s.createView)
	s.route(mux, "GET "+vw+"/{view}", read, s.loadView)
	s.route(mux, "HEAD "+vw+"/{view}", read, s.viewExists)
	s.route(mux, "POST "+vw+"/{view}", write, s.commitView)
	s.route(mux, "DELETE "+vw+"/{view}", write, s.dropView)
	s.route(mux, "POST /v1/{prefix}/views/rename", write, s.renameView)
	s.route(mux, "POST "+ns+"/{ns}/register-view", write, s.registerView)
	s.routeUnsupported(mux)

	// Any other method on a known path answers in the spec's error shape
	// rather than the mux's plain-text 405.
	paths := map[string]bool{"/v1/config": true}
	for _, p := range endpoints {
		paths[strings.Fields(muxPattern(p))[1]] = true
	}
	for _, u := range unsupported {
		paths[strings.Fields(muxPattern(u.route))[1]] = true
	}
	for p := range paths {
		mux.HandleFunc(p, func(w http.ResponseWriter, r *http.Request) {
			s.writeError(w, r, errorf(http.StatusMethodNotAllowed, typeBadRequest, "%s is not served on %s", r.Method, r.URL.Path))
		})
	}
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		s.writeError(w, r, errorf(http.StatusNotFound, typeNotFound,
			"no Iceberg REST route %s %s; routes are /v1/{prefix}/… with prefix = bucket (GET /v1/config?warehouse=<bucket>)", r.Method, r.URL.Path))
	})
	// Every route needs a key (or anonymous mode and no key): a request
	// without one learns nothing about buckets or routes.
	authed := s.auth.Middleware(s.refuse, mux)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Request-Id", s.ids.next())
		if r.URL.Path == "/v1/oauth/tokens" && r.Method == http.MethodPost {
			s.issueToken(w, r) // the exchange that gets a client its bearer
			return
		}
		authed.ServeHTTP(w, r)
	})
}

// endpoints advertised in /v1/config: exactly the operations served, so a
// client never calls one it was promised and gets 406 (see unsupported).
var endpoints = []string{
	"POST /v1/oauth/tokens",
	"GET /v1/{prefix}/namespaces",
	"POST /v1/{prefix}/namespaces",
	"GET /v1/{prefix}/namespaces/{namespace}",
	"HEAD /v1/{prefix}/namespaces/{namespace}",
	"DELETE /v1/{prefix}/namespaces/{namespace}",
	"POST /v1/{prefix}/namespaces/{namespace}/properties",
	"GET /v1/{prefix}/namespaces/{namespace}/tables",
	"POST /v1/{prefix}/namespaces/{namespace}/tables",
	"GET /v1/{prefix}/namespaces/{namespace}/tables/{table}",
	"HEAD /v1/{prefix}/namespaces/{namespace}/tables/{table}",
	"POST /v1/{prefix}/namespaces/{namespace}/tables/{table}",
	"DELETE /v1/{prefix}/namespaces/{namespace}/tables/{table}",
	"POST /v1/{prefix}/namespaces/{namespace}/tables/{table}/metrics",
	"GET /v1/{prefix}/namespaces/{namespace}/tables/{table}/credentials",
	"POST /v1/{prefix}/namespaces/{namespace}/tables/{table}/plan",
	"GET /v1/{prefix}/namespaces/{namespace}/tables/{table}/plan/{plan-id}",
	"DELETE /v1/{prefix}/namespaces/{namespace}/tables/{table}/plan/{plan-id}",
	"POST /v1/{prefix}/namespaces/{namespace}/tables/{table}/tasks",
	"POST /v1/{prefix}/namespaces/{namespace}/register",
	"POST /v1/{prefix}/tables/rename",
	"POST /v1/{prefix}/transactions/commit",
	"GET /v1/{prefix}/namespaces/{namespace}/views",
	"POST /v1/{prefix}/namespaces/{namespace}/views",
	"GET /v1/{prefix}/namespaces/{namespace}/views/{view}",
	"HEAD /v1/{prefix}/namespaces/{namespace}/views/{view}",
	"POST /v1/{prefix}/namespaces/{namespace}/views/{view}",
	"DELETE /v1/{prefix}/namespaces/{namespace}/views/{view}",
	"POST /v1/{prefix}/views/rename",
	"POST /v1/{prefix}/namespaces/{namespace}/register-view",
}

func (s *Server) route(mux *http.ServeMux, pattern string, a access, h bucketHandler) {
	mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) {
		r.Body = http.MaxBytesReader(w, r.Body, maxBodyBytes)
		b, err := s.openBucket(r, r.PathValue("prefix"), a)
		if err == nil {
			err = h(w, r, b)
		}
		if err != nil {
			s.writeError(w, r, err)
		}
	})
}

// openBucket authorizes the request's key (checked by the apikey middleware
// before any route runs) for the bucket it names, then resolves the bucket:
// a key scoped elsewhere is 403 before anything about the bucket leaks.
func (s *Server) openBucket(r *http.Request, name string, a access) (catalog.Bucket, error) {
	if err := s.authorize(r, name, a); err != nil {
		return catalog.Bucket{}, err
	}
	if name == "" {
		return catalog.Bucket{}, badRequest("name a bucket: GET /v1/config?warehouse=<bucket> or the prefix /v1/<bucket>/…")
	}
	if err := catalog.ValidateBucketName(name); err != nil {
		return catalog.Bucket{}, badRequest("bucket %q: %v", name, err)
	}
	b, err := s.store.GetBucket(r.Context(), name)
	if errors.Is(err, catalog.ErrNotFound) {
		return catalog.Bucket{}, errorf(http.StatusNotFound, typeNoSuchWarehouse, "bucket %q does not exist", name)
	}
	if err != nil {
		return catalog.Bucket{}, err
	}
	if b.Format == catalog.FormatLance {
		return catalog.Bucket{}, badRequest("bucket %q holds Lance tables; it is served by the Lance REST catalog, not Iceberg", name)
	}
	return b, nil
}

// refuse answers a request whose API key was not accepted.
func (s *Server) refuse(w http.ResponseWriter, r *http.Request, f *apikey.Refusal) {
	if f.Reason == apikey.Failed {
		s.writeError(w, r, f.Err)
		return
	}
	s.writeError(w, r, errorf(http.StatusUnauthorized, typeNotAuthorized, "%s", f.Message))
}

// authorize checks the request's key (put in the context by the apikey
// middleware) against the bucket a route names.
func (s *Server) authorize(r *http.Request, bucket string, a access) error {
	key, ok := apikey.KeyFrom(r.Context())
	if !ok {
		return errors.New("icebergrest: a route was served without the API-key middleware")
	}
	if bucket != "" && !key.CanRead(bucket) {
		return errorf(http.StatusForbidden, typeForbidden, "this API key is scoped to bucket %q", key.Bucket)
	}
	if a == write && (bucket == "" || !key.CanWrite(bucket)) {
		return errorf(http.StatusForbidden, typeForbidden, "this API key is read-only")
	}
	return nil
}

// getConfig answers GET /v1/config?warehouse=<bucket> with the prefix the
// client must use for that bucket. A client that names no warehouse gets the
// default bucket when one is configured, otherwise a 400 saying how to name
// one: an answer without a prefix would send it to routes that cannot work.
func (s *Server) getConfig(w http.ResponseWriter, r *http.Request) {
	wh := strings.TrimSuffix(strings.TrimPrefix(r.URL.Query().Get("warehouse"), "s3://"), "/")
	if wh == "" {
		wh = s.defaultBucket
	}
	if wh == "" {
		if err := s.authorize(r, "", read); err != nil {
			s.writeError(w, r, err)
			return
		}
		s.writeError(w, r, badRequest("name a warehouse: GET /v1/config?warehouse=<bucket> (in clients the catalog property warehouse=<bucket>), or start floe with --iceberg-default-bucket <bucket>"))
		return
	}
	b, err := s.openBucket(r, wh, read)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"defaults":  map[string]string{},
		"overrides": map[string]string{"prefix": b.Name},
		"endpoints": endpoints,
	})
}

// decodeBody reads a JSON body; anything malformed is a BadRequest.
func decodeBody(r *http.Request, v any) error {
	b, err := io.ReadAll(r.Body)
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return errorf(http.StatusRequestEntityTooLarge, typeBadRequest, "request body is larger than %d bytes", mbe.Limit)
		}
		return badRequest("reading the request body: %v", err)
	}
	if len(strings.TrimSpace(string(b))) == 0 {
		return badRequest("the request needs a JSON body")
	}
	if !utf8.Valid(b) {
		return badRequest("the request body is not valid UTF-8; JSON is UTF-8 text")
	}
	if err := jsonstrict.Check(b); err != nil {
		return badRequest("%v", err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		var ie *iceberg.Error
		if errors.As(err, &ie) {
			return ie // a body type's own refusal (CommitInput), already a sentence
		}
		var ae *apiError
		if errors.As(err, &ae) {
			return ae
		}
		return badRequest("malformed JSON body: %v", err)
	}
	return nil
}

// namespaceParam splits the {ns} path segment on the unit separator (%1F)
// and checks every level against the catalog's rules.
func namespaceParam(r *http.Request) ([]string, error) {
	return parseNamespace(r.PathValue("ns"))
}

func parseNamespace(s string) ([]string, error) {
	if s == "" {
		return nil, badRequest("namespace is empty")
	}
	levels := strings.Split(s, "\x1f")
	return levels, checkLevels(levels)
}

func checkLevels(levels []string) error {
	if len(levels) == 0 {
		return badRequest("namespace is empty")
	}
	for _, l := range levels {
		if err := catalog.ValidateNamespaceLevel(l); err != nil {
			return badRequest("namespace level %q: %v", l, err)
		}
	}
	return nil
}

func tableParam(r *http.Request) (catalog.TableRef, error) {
	ns, err := namespaceParam(r)
	if err != nil {
		return catalog.TableRef{}, err
	}
	name := r.PathValue("table")
	if err := catalog.ValidateTableName(name); err != nil {
		return catalog.TableRef{}, badRequest("table name %q: %v", name, err)
	}
	return catalog.TableRef{Bucket: r.PathValue("prefix"), Namespace: ns, Name: name}, nil
}
