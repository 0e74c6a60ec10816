package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/floe/floe/persist"
)

func newInitCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "init",
		Short: "Make a new, empty floe catalog in --data (floe serve makes one too); the other commands refuse a directory without one",
		Example: `  floe init --data /var/lib/floe
  floe bucket create vectors --format lance --data /var/lib/floe`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			p, err := resolvePaths(cmd)
			if err != nil {
				return err
			}
			// A PostgreSQL catalog is named by its URL and its database
			// exists already: init applies the migrations it lacks.
			existed := requireCatalog(p) == nil && !persist.IsPostgresURL(p.Catalog)
			db, st, err := openStoreAt(cmd.Context(), p, nil)
			if err != nil {
				return err
			}
			st.Close()
			db.Close()
			if persist.IsPostgresURL(p.Catalog) {
				fmt.Fprintf(cmd.OutOrStdout(), "floe catalog %s is ready; start it with floe serve --catalog …\n", p.shownCatalog())
				return nil
			}
			if existed {
				fmt.Fprintf(cmd.OutOrStdout(), "%s already holds a floe catalog (%s); nothing changed\n", p.Data, p.shownCatalog())
				return nil
			}
			fmt.Fprintf(cmd.OutOrStdout(), "made a new floe catalog %s; start it with floe serve --data %s\n", p.shownCatalog(), p.Data)
			return nil
		},
	}
}
