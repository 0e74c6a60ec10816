package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/handlers"
	"github.com/floe/floe/plugin"
	"github.com/floe/floe/web"
	"github.com/spf13/cobra"
)

// serveConfig is everything `floe serve` reads from its flags.
type serveConfig struct {
	HTTP, GRPC, Lance, Iceberg string
	LogJSON                    bool
	LanceAnonymous             bool
	IcebergAnonymous           bool
	SecureCookies              bool
	GRPCCert, GRPCKey, GRPCCA  string
	WithWorker                 bool
	S3                         s3tablesConfig
}

// Timeouts for the HTTP servers: headers must arrive quickly (slowloris), a
// whole request may take longer (uploads are capped in size elsewhere), and
// shutdown gives in-flight requests a few seconds to finish.
const (
	readHeaderTimeout = 10 * time.Second
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
	f.String("warehouse", "", "warehouse directory for table data (default DATA/warehouse)")
	f.BoolVar(&c.LogJSON, "log-json", false, "log JSON lines instead of text")
	f.BoolVar(&c.LanceAnonymous, "lance-anonymous", false, "let the Lance REST serve requests without an API key (never on a shared network)")
	f.BoolVar(&c.IcebergAnonymous, "iceberg-anonymous", false, "let the Iceberg REST serve requests without an API key (never on a shared network)")
	f.BoolVar(&c.SecureCookies, "secure-cookies", false, "mark session cookies Secure (set when a TLS proxy fronts the console)")
	f.StringVar(&c.GRPCCert, "grpc-tls-cert", "", "TLS certificate for the plugin channel (with --grpc-tls-key and --grpc-tls-ca for mTLS)")
	f.StringVar(&c.GRPCKey, "grpc-tls-key", "", "TLS key for the plugin channel")
	f.StringVar(&c.GRPCCA, "grpc-tls-ca", "", "CA that signs worker client certificates")
	f.BoolVar(&c.WithWorker, "with-worker", false, "also run the bundled Lance worker as a child process")
	c.S3.addFlags(f)
	return cmd
}

// newLogger logs text for people at a terminal and JSON lines with --log-json.
func newLogger(jsonLogs bool) *slog.Logger {
	if jsonLogs {
		return slog.New(slog.NewJSONHandler(os.Stderr, nil))
	}
	return slog.New(slog.NewTextHandler(os.Stderr, nil))
}

// listener is one surface bound to an address.
type listener struct {
	name string
	ln   net.Listener
	h    http.Handler
}

func serve(cmd *cobra.Command, c serveConfig) error {
	ctx := cmd.Context()
	log := newLogger(c.LogJSON)
	db, st, paths, err := openStore(ctx, cmd)
	if err != nil {
		return err
	}
	defer db.Close()
	defer st.Close()

	if err := bootstrapAdmin(ctx, st, log); err != nil {
		return err
	}

	// Bind every address first so the console can show the real ones and a
	// port conflict fails the start instead of half-starting.
	bind := func(name, addr string) (net.Listener, error) {
		if addr == "" {
			return nil, nil
		}
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			return nil, fmt.Errorf("%s: listen on %s: %w (is another floe running? pick another address with --%s)", name, addr, err, name)
		}
		return ln, nil
	}
	var lns []listener
	defer func() {
		for _, l := range lns {
			l.ln.Close()
		}
	}()
	httpLn, err := bind("http", c.HTTP)
	if err != nil {
		return err
	}
	if httpLn == nil {
		return usageError{"--http must name an address: the console cannot be switched off"}
	}
	surfaces := web.Surfaces{Console: httpLn.Addr().String()}
	lanceLn, err := bind("lance", c.Lance)
	if err != nil {
		httpLn.Close()
		return err
	}
	if lanceLn != nil {
		surfaces.Lance = lanceLn.Addr().String()
	}
	icebergLn, err := bind("iceberg", c.Iceberg)
	if err != nil {
		httpLn.Close()
		return err
	}
	if icebergLn != nil {
		surfaces.Iceberg = icebergLn.Addr().String()
	}
	s3Ln, err := bind("s3tables", c.S3.Addr)
	if err != nil {
		httpLn.Close()
		return err
	}
	surfaces.S3TablesRegion, surfaces.S3TablesAccount = c.S3.Region, c.S3.Account
	if s3Ln != nil {
		surfaces.S3Tables = s3Ln.Addr().String()
	}

	grpcLn, err := bind("grpc", c.GRPC)
	if err != nil {
		return err
	}
	if grpcLn == nil {
		return usageError{"--grpc must name an address: workers dial it"}
	}
	surfaces.GRPC = grpcLn.Addr().String()
	if (c.GRPCCert != "" || c.GRPCKey != "" || c.GRPCCA != "") && (c.GRPCCert == "" || c.GRPCKey == "" || c.GRPCCA == "") {
		grpcLn.Close()
		return usageError{"--grpc-tls-cert, --grpc-tls-key and --grpc-tls-ca go together: give all three for mTLS, or none"}
	}

	svc, err := newServices(ctx, db, st, log, httpURL(surfaces.Lance), httpURL(surfaces.Iceberg))
	if err != nil {
		grpcLn.Close()
		return err
	}
	defer svc.close()

	srv, err := web.New(web.Config{DB: db, Store: st, Logger: log, Surfaces: surfaces, SecureCookies: c.SecureCookies,
		Stats: handlers.StatsFromRows(svc.observe), Plugin: svc.plugin, Observe: svc.observe, Preview: svc.preview, Tasks: svc.tasks})
	if err != nil {
		grpcLn.Close()
		return err
	}
	lns = append(lns, listener{"console", httpLn, srv.Handler()})
	if lanceLn != nil {
		lns = append(lns, listener{"lance", lanceLn, lanceHandler(st, log, c, svc.tasks)})
	}
	if icebergLn != nil {
		lns = append(lns, listener{"iceberg", icebergLn, icebergHandler(st, log, c)})
	}
	if s3Ln != nil {
		lns = append(lns, listener{"s3tables", s3Ln, s3tablesHandler(st, log, c.S3, svc.plugin)})
	}

	log.Info("floe started", "console", "http://"+surfaces.Console, "lance", surfaces.Lance, "iceberg", surfaces.Iceberg, "s3tables", surfaces.S3Tables, "grpc", surfaces.GRPC, "data", paths.Data, "catalog", paths.shownCatalog(), "warehouse", paths.Warehouse)
	fmt.Fprintf(cmd.OutOrStdout(), "floe console: http://%s\n", surfaces.Console)

	var wg sync.WaitGroup
	runCtx, cancelRun := context.WithCancel(ctx)
	defer cancelRun()
	errc := make(chan error, len(lns)+1)
	var tlsCfg *plugin.TLSConfig
	if c.GRPCCert != "" {
		tlsCfg = &plugin.TLSConfig{CertFile: c.GRPCCert, KeyFile: c.GRPCKey, CAFile: c.GRPCCA}
	}
	grpcOpts, err := plugin.ServerOptions(tlsCfg)
	if err != nil {
		grpcLn.Close()
		return err
	}
	wg.Go(func() {
		if err := svc.plugin.Serve(runCtx, grpcLn, grpcOpts...); err != nil {
			errc <- fmt.Errorf("grpc: %w", err)
		}
	})
	wg.Go(func() { svc.run(runCtx, st, log) })
	if c.WithWorker {
		if err := startBundledWorker(runCtx, st, log, paths, surfaces, &wg); err != nil {
			log.Error("the bundled Lance worker did not start; floe runs without it", "err", err)
		}
	}
	servers := make([]*http.Server, 0, len(lns))
	for _, l := range lns {
		hs := &http.Server{Handler: l.h, ReadHeaderTimeout: readHeaderTimeout, IdleTimeout: idleTimeout, ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn)}
		servers = append(servers, hs)
		wg.Go(func() {
			if err := hs.Serve(l.ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
				errc <- fmt.Errorf("%s: %w", l.name, err)
			}
		})
	}
	lns = nil // the servers own the listeners now

	var runErr error
	select {
	case <-ctx.Done():
		log.Info("shutting down")
	case runErr = <-errc:
		log.Error("a surface stopped", "err", runErr)
	}
	sctx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
	defer cancel()
	for _, hs := range servers {
		hs.Shutdown(sctx)
	}
	srv.Close() // Shutdown leaves hijacked websocket connections open
	cancelRun()
	wg.Wait()
	return runErr
}

// bootstrapAdmin creates the first admin on an empty catalog, with the
// password from FLOE_ADMIN_PASSWORD or a random one printed once.
func bootstrapAdmin(ctx context.Context, st *catalog.Store, log *slog.Logger) error {
	generated, created, err := st.EnsureAdmin(ctx, os.Getenv("FLOE_ADMIN_PASSWORD"))
	if err != nil {
		return fmt.Errorf("create the first admin user: %w", err)
	}
	if created && generated != "" {
		log.Warn("created the first console user; this password is shown once", "user", "admin", "password", generated)
	} else if created {
		log.Info("created the first console user from FLOE_ADMIN_PASSWORD", "user", "admin")
	}
	return nil
}

// httpURL turns a bound address into the URL workers use; "" stays "".
func httpURL(addr string) string {
	if addr == "" {
		return ""
	}
	return "http://" + addr
}
