package main

import (
	"context"
	"log/slog"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/floe/floe/warehouse"
	iceworker "github.com/floe/floe/workers/iceberg"
)

// The Iceberg maintenance worker is Go, so it lives in this binary as
// `floe worker iceberg`: one build ships it, and `floe serve --with-worker`
// runs it as a child process of the same executable (separate, so a crash
// or a kill -9 of the worker never takes the console down).
func newWorkerCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "worker", Short: "Run a maintenance worker that dials floe's plugin channel"}
	cmd.AddCommand(newIcebergWorkerCmd())
	return cmd
}

func newIcebergWorkerCmd() *cobra.Command {
	env := func(k, def string) string {
		if v := os.Getenv(k); v != "" {
			return v
		}
		return def
	}
	envInt := func(k string, def int) int {
		if n, err := strconv.Atoi(os.Getenv(k)); err == nil && n > 0 {
			return n
		}
		return def
	}
	host, _ := os.Hostname()
	var cfg iceworker.Config
	var ca, cert, key string
	var s3 warehouse.S3Config
	cmd := &cobra.Command{
		Use:   "iceberg",
		Short: "Run the Iceberg maintenance worker (expire snapshots, remove orphans, compact, rewrite manifests)",
		Long: `The Iceberg worker dials the plugin channel with a worker token, offers the
iceberg_* job types in the iceberg lane, observes Iceberg tables and runs
their maintenance through floe's Iceberg REST catalog and the warehouse.
Flags default to the FLOE_* environment variables named in their help.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if cfg.Token == "" {
				return usageError{"the worker needs a worker token: --token or FLOE_WORKER_TOKEN (create one with 'floe worker-token create')"}
			}
			creds, err := iceworker.ClientTLS(ca, cert, key)
			if err != nil {
				return usageError{err.Error()}
			}
			cfg.TLS = creds
			cfg.Files = &iceworker.WarehouseFiles{S3: s3}
			cfg.Logger = workerLogger()
			iceworker.LimitProcessMemory() // this process runs only the worker
			return iceworker.New(cfg).Run(cmd.Context())
		},
	}
	f := cmd.Flags()
	f.StringVar(&cfg.GRPC, "grpc", env("FLOE_GRPC", "127.0.0.1:9401"), "plugin channel address (FLOE_GRPC)")
	f.StringVar(&cfg.Token, "token", os.Getenv("FLOE_WORKER_TOKEN"), "worker token (FLOE_WORKER_TOKEN)")
	f.StringVar(&cfg.WorkerID, "id", env("FLOE_WORKER_ID", "iceberg-"+host), "worker id, unique per worker (FLOE_WORKER_ID)")
	f.IntVar(&cfg.DetectSlots, "detect-slots", envInt("FLOE_DETECT_SLOTS", 2), "concurrent detections (FLOE_DETECT_SLOTS)")
	f.IntVar(&cfg.ExecuteSlots, "execute-slots", envInt("FLOE_EXECUTE_SLOTS", 1), "concurrent jobs (FLOE_EXECUTE_SLOTS)")
	f.StringVar(&ca, "grpc-tls-ca", os.Getenv("FLOE_GRPC_TLS_CA"), "CA of the console's certificate (FLOE_GRPC_TLS_CA)")
	f.StringVar(&cert, "grpc-tls-cert", os.Getenv("FLOE_GRPC_TLS_CERT"), "worker certificate for mTLS (FLOE_GRPC_TLS_CERT)")
	f.StringVar(&key, "grpc-tls-key", os.Getenv("FLOE_GRPC_TLS_KEY"), "worker key for mTLS (FLOE_GRPC_TLS_KEY)")
	f.BoolVar(&cfg.ExitOnShutdown, "exit-on-shutdown", os.Getenv("FLOE_EXIT_ON_SHUTDOWN") == "1", "exit when the console shuts down instead of waiting for it (FLOE_EXIT_ON_SHUTDOWN=1)")
	f.StringVar(&s3.Endpoint, "s3-endpoint", os.Getenv("FLOE_S3_ENDPOINT"), "URL of the S3-compatible store of s3:// tables; empty = AWS (FLOE_S3_ENDPOINT; keys from the AWS chain)")
	f.StringVar(&s3.Region, "s3-region", os.Getenv("FLOE_S3_REGION"), "region of the S3 store (FLOE_S3_REGION; default: the AWS configuration's, else us-east-1)")
	f.BoolVar(&s3.PathStyle, "s3-path-style", os.Getenv("FLOE_S3_PATH_STYLE") == "1", "address the store as ENDPOINT/BUCKET/KEY (FLOE_S3_PATH_STYLE=1)")
	return cmd
}

// workerLogger writes "level=info msg=…" lines without a time, the shape
// the parent's lineLogger turns back into records at the same level.
func workerLogger() *slog.Logger {
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
		switch {
		case len(groups) == 0 && a.Key == slog.TimeKey:
			return slog.Attr{}
		case len(groups) == 0 && a.Key == slog.LevelKey:
			return slog.String(slog.LevelKey, strings.ToLower(a.Value.String()))
		}
		return a
	}}))
}

// icebergWorkerChild returns supervise, which runs `floe worker iceberg`
// (this executable) with env added, restarts it with backoff when it dies,
// and stops it (SIGTERM, then a kill after workerStopGrace) when ctx ends;
// supervise returns once it has stopped for good.
func icebergWorkerChild(ctx context.Context, log *slog.Logger, env []string) (supervise func(), err error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	log = log.With("component", "iceberg-worker")
	run := func() error {
		cmd := exec.CommandContext(ctx, exe, "worker", "iceberg")
		cmd.Env = append(os.Environ(), env...)
		cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
		cmd.WaitDelay = workerStopGrace
		out := &lineLogger{log: log}
		cmd.Stdout, cmd.Stderr = out, out
		err := cmd.Run()
		out.flush()
		return err
	}
	return func() { superviseChild(ctx, log, "iceberg worker", run) }, nil
}
