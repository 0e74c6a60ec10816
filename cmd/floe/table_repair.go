package main

import (
	"errors"
	"fmt"
	"io"
	"log/slog"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/fault"
	"github.com/floe/floe/iceberg"
	"github.com/spf13/cobra"
)

func newTableRepairCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "repair BUCKET NS TABLE",
		Short: "Rewrite an Iceberg table's metadata without what readers refuse (a new metadata version; data untouched)",
		Long: `Repair writes the Iceberg table's current metadata again as a new version,
without the snapshot-ref retention values an older floe stored as clients sent
them (non-positive values, or branch-only retention on tags). Such a table
fails every iceberg-go LoadTable and is skipped by floe's Iceberg worker.
Data files, snapshots and refs stay; a table that needs nothing is left alone.
Safe while floe serve runs: the swap is a commit like any other.`,
		Args: cobra.ExactArgs(3),
		RunE: func(cmd *cobra.Command, args []string) error {
			ref := catalog.TableRef{Bucket: args[0], Namespace: catalog.SplitNamespace(args[1]), Name: args[2]}
			return withStore(cmd, func(st *catalog.Store) error {
				tables := iceberg.New(iceberg.Config{Store: st, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
				rep, err := tables.RepairTable(cmd.Context(), ref)
				var ie *fault.Error
				if errors.As(err, &ie) {
					return usageError{ie.Message}
				}
				if err != nil {
					return err
				}
				out := cmd.OutOrStdout()
				if len(rep.Fixed) == 0 {
					fmt.Fprintf(out, "%s needs no repair: its metadata holds nothing readers refuse\n", ref)
					return nil
				}
				for _, f := range rep.Fixed {
					fmt.Fprintf(out, "repaired %s: %s\n", ref, f)
				}
				fmt.Fprintf(out, "new metadata: %s\n", rep.MetadataLocation)
				return nil
			})
		},
	}
}
