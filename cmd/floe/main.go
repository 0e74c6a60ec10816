// Command floe serves the table-bucket console and catalogs, and manages the
// catalog from the command line. Every subcommand that touches state takes
// --data and is safe to run while `floe serve` uses the same directory.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := newRootCmd().ExecuteContext(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "floe:", err)
		os.Exit(exitCode(err))
	}
}

// version is stamped at build time with -ldflags "-X main.version=…".
var version = "dev"

func newRootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:   "floe",
		Short: "A console and catalog for table buckets holding Lance datasets and Iceberg tables",
		Long: `floe serves an operator console, the Lance Namespace REST catalog, the Lance
maintenance task API, an Iceberg REST catalog and a gRPC channel for
maintenance workers, all over one catalog in a data directory.

Start everything with "floe serve"; the other commands change the same
catalog and are safe to run while the server is up.`,
		Version:       version,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.PersistentFlags().String("data", "./floe-data", "data directory holding catalog.db and, by default, the warehouse")
	root.PersistentFlags().String("catalog", "", "catalog database: a postgres://user:pass@host/db URL for PostgreSQL (several floe serve replicas may share it), or a SQLite file (default DATA/catalog.db)")
	root.AddCommand(
		newServeCmd(),
		newInitCmd(),
		newBucketCmd(),
		newNamespaceCmd(),
		newTableCmd(),
		newUserCmd(),
		newTokenCmd(),
		newGrantCmd(),
		newWorkerTokenCmd(),
		newWorkerCmd(),
		newAuditCmd(),
	)
	refuseUnknownSubcommands(root)
	return root
}
