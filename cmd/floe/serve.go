package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/edge"
	"github.com/floe/floe/observe"
	"github.com/floe/floe/warehouse"
	"github.com/floe/floe/web"
	"github.com/spf13/cobra"
)

// serveConfig is everything `floe serve` reads from its flags.
type serveConfig struct {
	HTTP, GRPC, Lance, Iceberg string
	LogJSON                    bool
	LanceAnonymous             bool
	IcebergAnonymous           bool
	IcebergDefaultBucket       string
	SecureCookies              bool
	TrustedProxies             string
	Metrics                    string
	GRPCCert, GRPCKey, GRPCCA  string
	WithWorker                 bool
	HistoryRetention           time.Duration // kept observations for trend charts; 0 = none
	// SoftDeleteHold is --soft-delete-hold as typed ("7d", "0"); serve
	// records it as the catalog's default hold at start.
	SoftDeleteHold string
	S3             s3tablesConfig
	S3Store        s3Flags // an s3:// --warehouse
	// MaxConnections is the connection budget of every listener together:
	// 0 derives it from the open-file limit, -1 is no limit.
	MaxConnections int
	Audit          auditConfig
	OIDC           oidcFlags

	// clients is set by serve (not a flag) for an s3:// warehouse: what
	// the catalogs tell engines about the store.
	clients *warehouse.ClientAccess
	// backend and storage are set with clients: the store the catalog
	// writes through and the health watch /readyz and the console read.
	// Both nil for a local warehouse.
	backend warehouse.Backend
	storage web.StorageHealth
}

// Timeouts for the HTTP servers, the same on every surface:
//
//   - ReadHeaderTimeout: a request's headers must arrive within 10 s of its
//     first byte (slowloris; a connection that says nothing is closed then).
//   - The body: the edge gives every body edge.DefaultBodyTimeout (30 s)
//     once the headers are in, and net/http lifts it when the body is read.
//   - ReadTimeout (headers and body together, 40 s) only backs that up for
//     a handler not on the edge (/metrics): on the edge's surfaces the
//     edge's deadline replaces it for a body, and net/http lifts it for a
//     request without one, so it never cuts a handler that is working.
//   - IdleTimeout (between keep-alive requests, 2 min): longer than the 90 s
//     Go clients (iceberg-go, the workers) keep an idle connection, so the
//     client closes first and never races a close while it sends; under a
//     flood the connection limits close idle connections first anyway.
//   - No WriteTimeout: some answers legitimately take long (RestoreTable
//     waits up to 50 s for its job, scan planning, Browse Data), and a
//     whole-response deadline would cut them; a client that stops reading
//     holds only an answer it was authorised to ask for, and an
//     unauthenticated one gets small answers the kernel's buffers absorb.
//
// Shutdown gives in-flight requests a few seconds to finish.
const (
	readHeaderTimeout = 10 * time.Second
	readTimeout       = readHeaderTimeout + edge.DefaultBodyTimeout
	idleTimeout       = 2 * time.Minute
	shutdownTimeout   = 10 * time.Second
)

func newServeCmd() *cobra.Command {
	var c serveConfig
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Run the console, the catalogs and the worker channel",
		Long: `Run every surface of floe in one process. Each listens on loopback by
default; give an empty address to switch the Lance or Iceberg surface off.`,
		Example: `  floe serve
  floe serve --data /var/lib/floe --http 0.0.0.0:9400
  floe serve --iceberg ""`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return serve(cmd, c) },
	}
	f := cmd.Flags()
	f.StringVar(&c.HTTP, "http", "127.0.0.1:9400", "console address")
	f.StringVar(&c.GRPC, "grpc", "127.0.0.1:9401", "plugin channel (gRPC) address for workers")
	f.StringVar(&c.Lance, "lance", "127.0.0.1:9101", `Lance Namespace REST and task API address ("" = off)`)
	f.StringVar(&c.Iceberg, "iceberg", "127.0.0.1:8181", `Iceberg REST address ("" = off)`)
	f.String("warehouse", "", "where table data lives: a directory (default DATA/warehouse) or s3://BUCKET/PREFIX")
	addS3Flags(f, &c.S3Store)
	f.BoolVar(&c.LogJSON, "log-json", false, "log JSON lines instead of text")
	f.BoolVar(&c.LanceAnonymous, "lance-anonymous", false, "let the Lance REST serve requests without an API key (never on a shared network)")
	f.BoolVar(&c.IcebergAnonymous, "iceberg-anonymous", false, "let the Iceberg REST serve requests without an API key (never on a shared network)")
	f.StringVar(&c.IcebergDefaultBucket, "iceberg-default-bucket", "", "bucket the Iceberg REST serves to clients that send no warehouse")
	f.BoolVar(&c.SecureCookies, "secure-cookies", false, "always mark session cookies Secure (they already are over TLS and behind a --trusted-proxy that sends X-Forwarded-Proto: https)")
	f.StringVar(&c.TrustedProxies, "trusted-proxy", "", "comma-separated IPs or CIDRs of reverse proxies whose X-Forwarded-Proto and X-Forwarded-For the console believes")
	f.StringVar(&c.Metrics, "metrics", "", `Prometheus /metrics address, e.g. 127.0.0.1:9402 ("" = off; never served on the console address)`)
	f.StringVar(&c.GRPCCert, "grpc-tls-cert", "", "TLS certificate for the plugin channel (with --grpc-tls-key and --grpc-tls-ca for mTLS)")
	f.StringVar(&c.GRPCKey, "grpc-tls-key", "", "TLS key for the plugin channel")
	f.StringVar(&c.GRPCCA, "grpc-tls-ca", "", "CA that signs worker client certificates")
	f.BoolVar(&c.WithWorker, "with-worker", false, "also run the bundled Lance and Iceberg workers as child processes")
	f.DurationVar(&c.HistoryRetention, "history-retention", observe.DefaultHistoryRetention,
		"how long each table's past figures are kept for the console's trend charts (e.g. 720h; 0 = keep none)")
	f.StringVar(&c.SoftDeleteHold, "soft-delete-hold", catalog.FormatHold(catalog.DefaultSoftDeleteHold),
		"how long a dropped table stays recently deleted (undroppable) before its data is deleted, for buckets without their own: 7d, 36h, 90m, or 0 to delete at once")
	f.IntVar(&c.MaxConnections, "max-connections", 0, "connections all listeners together may hold (0 = as many as the open-file limit allows, less a fifth for floe's own files; -1 = no limit, only behind a proxy that limits them)")
	c.S3.addFlags(f)
	c.Audit.addFlags(f)
	c.OIDC.addFlags(f)
	return cmd
}

// newLogger logs text for people at a terminal and JSON lines with
// --log-json, to w (the command's stderr).
func newLogger(w io.Writer, jsonLogs bool) *slog.Logger {
	if jsonLogs {
		return slog.New(slog.NewJSONHandler(w, nil))
	}
	return slog.New(slog.NewTextHandler(w, nil))
}

func serve(cmd *cobra.Command, c serveConfig) error {
	ctx := cmd.Context()
	logOut := newLogWriter(cmd.ErrOrStderr())
	defer logOut.Close()
	log := newLogger(logOut, c.LogJSON)
	if raw, _ := cmd.Flags().GetString("warehouse"); isS3Warehouse(raw) {
		s3wh, err := openS3Warehouse(ctx, raw, c.S3Store, log)
		if err != nil {
			return err
		}
		c.storage, c.backend = s3wh.health, s3wh.backend
		c.clients = &warehouse.ClientAccess{S3: s3wh.backend, Mode: s3wh.vend}
	}
	paths, err := resolvePaths(cmd)
	if err != nil {
		return err
	}
	s, err := startServer(ctx, c, paths, log)
	if err != nil {
		return err
	}
	defer s.Close()
	var s3b *warehouse.S3
	if c.clients != nil {
		s3b = c.clients.S3
	}
	if err := recordWarehouse(paths, s3b, c.S3); err != nil {
		return err
	}
	// The first admin is made only now, when every listener is bound and
	// every service built: a start that fails (a port in use) leaves no
	// user behind whose generated password nobody saw, and the box below is
	// the next thing written.
	adminPassword, err := bootstrapAdmin(ctx, s.st, log)
	if err != nil {
		if ctx.Err() != nil {
			return nil // stopped before serving: the next start makes the admin
		}
		return err
	}
	log.Info("floe started", "console", "http://"+s.surfaces.Console, "lance", s.surfaces.Lance, "iceberg", s.surfaces.Iceberg,
		"s3tables", s.surfaces.S3Tables, "grpc", s.surfaces.GRPC, "metrics", s.metricsAddr, "data", paths.Data, "catalog", paths.shownCatalog(), "warehouse", paths.Warehouse)
	printStartBox(cmd.OutOrStdout(), "http://"+s.surfaces.Console, adminPassword)
	return s.Run(ctx)
}

// check refuses flag combinations that cannot start, before anything is
// opened.
func (c serveConfig) check() error {
	if c.HTTP == "" {
		return usageError{"--http must name an address: the console cannot be switched off"}
	}
	if c.GRPC == "" {
		return usageError{"--grpc must name an address: workers dial it"}
	}
	if (c.GRPCCert != "" || c.GRPCKey != "" || c.GRPCCA != "") && (c.GRPCCert == "" || c.GRPCKey == "" || c.GRPCCA == "") {
		return usageError{"--grpc-tls-cert, --grpc-tls-key and --grpc-tls-ca go together: give all three for mTLS, or none"}
	}
	if c.HistoryRetention < 0 || (c.HistoryRetention > 0 && c.HistoryRetention < time.Hour) {
		return usageError{"--history-retention must be 0 (keep no history) or at least 1h, e.g. 720h"}
	}
	if _, err := c.hold(); err != nil {
		return usageError{"--soft-delete-hold: " + err.Error()}
	}
	return c.OIDC.check(c.HTTP)
}

// hold is --soft-delete-hold; unset (a config built in a test) is the
// default.
func (c serveConfig) hold() (time.Duration, error) {
	if c.SoftDeleteHold == "" {
		return catalog.DefaultSoftDeleteHold, nil
	}
	return catalog.ParseHold(c.SoftDeleteHold)
}

// bootstrapAdmin creates the first admin on an empty catalog, with the
// password from FLOE_ADMIN_PASSWORD or a random one it returns, for the
// start box to show once (never in a log line).
func bootstrapAdmin(ctx context.Context, st *catalog.Store, log *slog.Logger) (generated string, err error) {
	generated, created, err := st.EnsureAdmin(ctx, os.Getenv("FLOE_ADMIN_PASSWORD"))
	if err != nil {
		return "", fmt.Errorf("create the first admin user: %w", err)
	}
	if created && generated != "" {
		log.Warn("created the first console user admin; its password is printed once in the box below")
	} else if created {
		log.Info("created the first console user from FLOE_ADMIN_PASSWORD", "user", "admin")
	}
	return generated, nil
}

// httpURL turns a bound address into the URL workers use; "" stays "".
func httpURL(addr string) string {
	if addr == "" {
		return ""
	}
	return "http://" + addr
}
