package main

import (
	"time"

	"github.com/floe/floe/catalog"
	"github.com/spf13/cobra"
)

func newTableCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "table", Short: "List tables, undrop or purge recently deleted ones, protect them, and repair an Iceberg table older floe left unreadable"}
	cmd.AddCommand(newTableListCmd(), newTableRepairCmd(), newTableDeletedCmd(), newTableUndropCmd(), newTablePurgeCmd(), newTableProtectCmd())
	return cmd
}

type tableJSON struct {
	ID        string    `json:"table_id"`
	Bucket    string    `json:"bucket"`
	Namespace string    `json:"namespace"`
	Name      string    `json:"name"`
	Format    string    `json:"format"`
	State     string    `json:"state,omitempty"`
	Location  string    `json:"location"`
	ARN       string    `json:"arn"`
	Created   time.Time `json:"created"`
}

func newTableListCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "list BUCKET [NS]",
		Short: "List the tables of one namespace, or of every namespace in the bucket",
		Args:  cobra.RangeArgs(1, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			return withStorePaths(cmd, func(st *catalog.Store, p dataPaths) error {
				var namespaces [][]string
				if len(args) == 2 {
					namespaces = [][]string{catalog.SplitNamespace(args[1])}
				} else {
					all, err := st.ListAllNamespaces(ctx, args[0])
					if err != nil {
						return err
					}
					for _, n := range all {
						namespaces = append(namespaces, n.Levels)
					}
				}
				out := []tableJSON{}
				var rows [][]string
				for _, ns := range namespaces {
					after := ""
					for {
						opt := catalog.ListTablesOptions{ListOptions: catalog.ListOptions{After: after, Limit: catalog.MaxPageSize}, IncludeDeclared: true, IncludeDeregistered: true}
						page, next, err := st.ListTables(ctx, args[0], ns, opt)
						if err != nil {
							return err
						}
						for _, t := range page {
							out = append(out, tableJSON{t.ID, t.Bucket, catalog.JoinNamespace(t.Namespace), t.Name, string(t.Format), string(t.State), t.Location, p.shownARN(t.ARN), t.CreatedAt})
							rows = append(rows, []string{catalog.JoinNamespace(t.Namespace), t.Name, string(t.Format), orDash(string(t.State)), t.CreatedAt.Format(time.RFC3339)})
						}
						if next == "" {
							break
						}
						after = next
					}
				}
				return printList(cmd.OutOrStdout(), asJSON, out, []string{"NAMESPACE", "TABLE", "FORMAT", "STATE", "CREATED"}, rows)
			})
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}
