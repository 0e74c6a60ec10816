// Package s3tables serves the AWS S3 Tables control API (restJson1, as the
// Smithy model s3tables 2018-05-10 defines it) over floe's catalog, so the
// AWS SDKs, the AWS CLI and Terraform manage table buckets, namespaces,
// tables and maintenance settings. The surface is an edge.Surface: the edge
// gives every request its id (also answered as x-amzn-RequestId), its
// access log line and metrics, and authenticates it with SigV4 (package
// sigv4) against the access key pair of a floe API key. This package keeps
// the route table (routes.go), one file per operation, and one error
// encoder (errors.go); every rule of the data model stays in catalog.
package s3tables

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"github.com/floe/floe/authz"
	"github.com/floe/floe/catalog"
	"github.com/floe/floe/edge"
	"github.com/floe/floe/iceberg"
	"github.com/floe/floe/sigv4"
)

// Config configures the surface.
type Config struct {
	Store *catalog.Store
	// Jobs answers GetTableMaintenanceJobStatus; nil reports Not_Yet_Run.
	Jobs   JobHistory
	Logger *slog.Logger
	// Region and Account appear in every ARN this surface accepts and
	// returns: arn:aws:s3tables:<Region>:<Account>:bucket/<name>.
	Region  string // default DefaultRegion
	Account string // default DefaultAccount
	// Now is the clock the signature window is checked against; nil = time.Now.
	Now func() time.Time
	// FormatsOff are the formats whose catalog floe serve switched off
	// (--iceberg "" or --lance ""): a bucket or table of such a format
	// would have no endpoint, so this API refuses to make one, as the
	// console does. nil: both catalogs run.
	FormatsOff []catalog.Format
	// Metrics records every request (floe_http_requests_total and its
	// duration, surface "s3tables"); nil records nothing.
	Metrics *edge.Metrics
	// Auditor records every write and refusal; nil records none.
	Auditor edge.Auditor
	// Authz decides what each key may do; nil builds one over Store.
	Authz *authz.Authorizer
}

// Defaults for Config.Region and Config.Account: the region the AWS tools
// pick when none is configured, and the account id AWS's own local
// emulators use.
const (
	DefaultRegion  = "us-east-1"
	DefaultAccount = "000000000000"
)

// JobRun is one maintenance job of a table, as GetTableMaintenanceJobStatus
// reports it.
type JobRun struct {
	Type     string // the floe job type, e.g. lance_compact
	State    string // queued, running, succeeded, failed, cancelled, expired
	Error    string
	Finished time.Time // zero while not finished
	Created  time.Time
}

// JobHistory lists the recent maintenance jobs of one table (by table id),
// newest first.
type JobHistory interface {
	TableJobs(ctx context.Context, tableID string) ([]JobRun, error)
}

// Server is the S3 Tables surface.
type Server struct {
	cfg     Config
	log     *slog.Logger
	authz   *authz.Authorizer
	surface *edge.Surface
	// ops is each route pattern's operation, for the encoder's typing.
	ops   map[string]operation
	pages pageCache // rendered ListTables pages
	// iceberg writes the first metadata of a table created with a schema.
	iceberg *iceberg.Tables
}

// New builds the surface.
func New(cfg Config) *Server {
	if cfg.Region == "" {
		cfg.Region = DefaultRegion
	}
	if cfg.Account == "" {
		cfg.Account = DefaultAccount
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	s := &Server{cfg: cfg, log: cfg.Logger.With("component", "s3tables"), ops: map[string]operation{},
		iceberg: iceberg.New(iceberg.Config{Store: cfg.Store, Logger: cfg.Logger}), authz: cfg.Authz}
	if s.authz == nil {
		s.authz = authz.New(cfg.Store)
	}
	s.surface = edge.New(edge.Config{
		Name:   "s3tables",
		Encode: s.encode,
		Auth: sigv4.New(sigv4.Config{Keys: cfg.Store, Services: []string{signingName}, Region: cfg.Region,
			MaxBody: maxBodyBytes, Now: cfg.Now}),
		MaxBody:          maxBodyBytes,
		RequestIDHeaders: []string{"x-amzn-RequestId"},
		Log:              cfg.Logger,
		Metrics:          cfg.Metrics,
		Auditor:          cfg.Auditor,
	})
	s.routes()
	return s
}

// signingName is the SigV4 service name S3 Tables requests are signed for.
const signingName = "s3tables"

// Handler serves the surface.
func (s *Server) Handler() http.Handler { return s.surface }

// ServeHTTP serves one request through the edge.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.surface.ServeHTTP(w, r) }
