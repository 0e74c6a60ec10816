// Package icebergrest serves the Iceberg REST catalog over floe's catalog
// (one catalog per ICEBERG or unset bucket, prefix = bucket or its ARN). Its
// routes sit on one edge.Surface (routes.go), which makes request ids, logs,
// counts and authenticates (API keys, OAuth bearers, SigV4); the handlers
// parse requests, call the Iceberg library (package iceberg) and render the
// spec's JSON, and one encoder (errors.go) renders its error model.
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
	"github.com/floe/floe/authz"
	"github.com/floe/floe/catalog"
	"github.com/floe/floe/edge"
	"github.com/floe/floe/fault"
	"github.com/floe/floe/iceberg"
	"github.com/floe/floe/identity"
	"github.com/floe/floe/jsonstrict"
	"github.com/floe/floe/safety"
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
	// IdP verifies bearers shaped as JWTs: access tokens of the
	// organization's identity provider (floe serve --oidc-audience); nil
	// treats them as unknown keys.
	IdP apikey.IdP
	// DefaultBucket is the bucket /v1/config hands clients that name no
	// warehouse; empty means such clients are told to name one.
	DefaultBucket string
	// SigV4 verifies requests signed with an API key's access key pair
	// (Authorization: AWS4-HMAC-SHA256 …, as engines configured for AWS S3
	// Tables send them); nil refuses signed requests with a sentence.
	SigV4 edge.Authenticator
	// Region and Account are those of the S3 Tables ARNs a client may name
	// as its warehouse (arn:aws:s3tables:<region>:<account>:bucket/<name>,
	// --s3tables-region and --s3tables-account); empty accepts any.
	Region, Account string
	// Metrics records every request (the one shared set of floe's HTTP
	// series); nil records nothing.
	Metrics *edge.Metrics
	// Auditor records every write and refusal; nil records none.
	Auditor edge.Auditor
	// PlanLimits bound server-side scan planning; zero fields take the
	// defaults.
	PlanLimits iceberg.PlanLimits
	// Authz decides what each principal may do; nil builds one over Store.
	Authz *authz.Authorizer
	// Manager says who may force past protection, protect and undrop (the
	// manage privilege); nil asks Authz (safety.Grants).
	Manager safety.Manager
}

// Server is the Iceberg REST catalog.
type Server struct {
	store   *catalog.Store
	tables  *iceberg.Tables
	plans   *iceberg.ScanPlans
	log     *slog.Logger
	storage StorageConfiger
	tokens  *apikey.Tokens
	// defaultBucket, region, account: see Config.
	defaultBucket   string
	region, account string
	edge            *edge.Surface
	authz           *authz.Authorizer
	manager         safety.Manager
}

// maxBodyBytes bounds one request body: a commit carries schemas and
// snapshots, never data, so 8 MiB is far more than any real client sends.
const maxBodyBytes = 8 << 20

// MaxBody is the surface's body cap, for the SigV4 verifier floe serve
// hands in (it reads and hashes the body before the handler).
const MaxBody = maxBodyBytes

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
	s := &Server{
		store:   cfg.Store,
		tables:  tables,
		plans:   iceberg.NewScanPlans(tables, log, cfg.PlanLimits),
		log:     log,
		tokens:  tokens,
		storage: cfg.Storage,

		defaultBucket: cfg.DefaultBucket,
		region:        cfg.Region,
		account:       cfg.Account,
		authz:         cfg.Authz,
		manager:       cfg.Manager,
	}
	if s.authz == nil {
		s.authz = authz.New(cfg.Store)
	}
	if s.manager == nil {
		s.manager = safety.Grants{D: s.authz}
	}
	s.edge = edge.New(edge.Config{
		Name:    "iceberg",
		Encode:  s.writeError,
		Auth:    authenticator{sigv4: cfg.SigV4, keys: apikey.New(apikey.Config{Keys: cfg.Store, Anonymous: cfg.Anonymous, Tokens: tokens, IdP: cfg.IdP})},
		MaxBody: maxBodyBytes,
		Log:     log,
		Metrics: cfg.Metrics,
		Auditor: cfg.Auditor,
	})
	s.routes(s.edge)
	return s
}

// Handler serves the Iceberg REST routes, to be mounted at the root of the
// Iceberg address.
func (s *Server) Handler() http.Handler { return s.edge }

// Close stops the scan plans still computing in the background; the
// handler answers no plan call after it.
func (s *Server) Close() { s.plans.Close() }

// openBucket checks that the caller may see the bucket the request names
// — by name or by the bucket's ARN — then resolves the bucket: a caller
// with no grant in it is 403 before anything about the bucket leaks.
func (s *Server) openBucket(r *http.Request, prefix string, rt authz.Rights) (catalog.Bucket, error) {
	name, arn, err := s.bucketName(prefix)
	if err != nil {
		return catalog.Bucket{}, err
	}
	if name != "" {
		if err := seeOrRefuse(rt, identity.Resource{Bucket: name}); err != nil {
			return catalog.Bucket{}, err
		}
	}
	if name == "" {
		return catalog.Bucket{}, badRequest("name a bucket: GET /v1/config?warehouse=<bucket> or the prefix /v1/<bucket>/…")
	}
	if err := catalog.ValidateBucketName(name); err != nil {
		return catalog.Bucket{}, badRequest("bucket %q: %v", name, err)
	}
	b, err := s.store.GetBucket(r.Context(), name)
	if errors.Is(err, fault.NotFound) {
		return catalog.Bucket{}, errorf(http.StatusNotFound, typeNoSuchWarehouse, "bucket %q does not exist", name)
	}
	if err != nil {
		return catalog.Bucket{}, err
	}
	if b.Format == catalog.FormatLance {
		return catalog.Bucket{}, badRequest("bucket %q holds Lance tables; it is served by the Lance REST catalog, not Iceberg", name)
	}
	if arn.floe && prefix != b.ARN {
		return catalog.Bucket{}, s.foreignARN(prefix)
	}
	return b, nil
}

// decodeBody reads a JSON body; anything malformed is a BadRequest.
func decodeBody(r *http.Request, v any) error {
	b, err := io.ReadAll(r.Body)
	if err != nil {
		return edge.BodyError(err) // over the edge's cap: 413; past the edge's body deadline: 400
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
		if _, ok := fault.As(err); ok {
			return err // a body type's own refusal (CommitInput), already a sentence
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
