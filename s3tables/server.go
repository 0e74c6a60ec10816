// Package s3tables serves the AWS S3 Tables control API (restJson1, as the
// Smithy model s3tables 2018-05-10 defines it) over floe's catalog, so the
// AWS SDKs, the AWS CLI and Terraform manage table buckets, namespaces,
// tables and maintenance settings. Requests are authenticated with SigV4
// against the access key pair of a floe API key. The package parses,
// checks access and renders; every rule of the data model stays in catalog.
package s3tables

import (
	"context"
	"log/slog"
	"time"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/iceberg"
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
	cfg    Config
	log    *slog.Logger
	routes []route
	pages  pageCache // rendered ListTables pages
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
	s := &Server{cfg: cfg, log: cfg.Logger.With("component", "s3tables"),
		iceberg: iceberg.New(iceberg.Config{Store: cfg.Store, Logger: cfg.Logger})}
	s.routes = s.routeTable()
	return s
}
