package main

import (
	"fmt"
	"time"

	"github.com/floe/floe/catalog"
	"github.com/spf13/cobra"
)

func newBucketCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "bucket", Short: "Create, list and delete table buckets"}
	cmd.AddCommand(newBucketCreateCmd(), newBucketListCmd(), newBucketDeleteCmd(), newBucketManagedVersioningCmd(),
		newBucketProtectCmd(), newBucketHoldCmd(), newBucketDestructiveCmd(), newBucketUndropCmd(), newBucketPurgeCmd())
	return cmd
}

func newBucketCreateCmd() *cobra.Command {
	var format, owner string
	var managed bool
	cmd := &cobra.Command{
		Use:   "create NAME --format lance|iceberg",
		Short: "Create a table bucket that holds tables of one format",
		Example: `  floe bucket create vectors --format lance
  floe bucket create vectors --format lance --managed-versioning
  floe bucket create lake --format iceberg`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			f, err := catalog.ParseFormat(format)
			if err != nil {
				return err
			}
			if f == catalog.FormatUnset {
				return usageError{"--format is required: lance or iceberg"}
			}
			return withStorePaths(cmd, func(st *catalog.Store, p dataPaths) error {
				b, err := st.CreateBucket(cmd.Context(), catalog.CreateBucketInput{Name: args[0], Format: f, Owner: owner, ManagedVersioning: managed})
				if err != nil {
					return err
				}
				fmt.Fprintf(cmd.OutOrStdout(), "created %s bucket %s (%s)\n", b.Format, b.Name, p.shownARN(b.ARN))
				if b.ManagedVersioning {
					fmt.Fprintln(cmd.OutOrStdout(), "managed versioning is on: Lance clients commit every version through floe")
				}
				return nil
			})
		},
	}
	cmd.Flags().StringVar(&format, "format", "", "table format the bucket holds: lance or iceberg (required)")
	cmd.Flags().StringVar(&owner, "owner", "cli", "owner recorded on the bucket")
	cmd.Flags().BoolVar(&managed, "managed-versioning", false, "Lance buckets: floe coordinates every commit (clients need LanceDB 0.39 or newer; see README)")
	return cmd
}

func newBucketManagedVersioningCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "managed-versioning NAME on|off",
		Short: "Turn managed versioning of a Lance bucket on or off (floe as the commit authority of its tables)",
		Long: `With managed versioning on, DescribeTable answers managed_versioning true and
Lance clients that know it (LanceDB 0.39 and newer) commit each new version through
floe's CreateTableVersion; the catalog records every version. Writers that go
straight to storage (older clients, pylance without the namespace) are seen only
when a commit through floe meets their version. Off (the default) leaves commits
to the object store's conditional PUT, as before.`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			var on bool
			switch args[1] {
			case "on":
				on = true
			case "off":
			default:
				return usageError{"say on or off, not " + args[1]}
			}
			return withStore(cmd, func(st *catalog.Store) error {
				if err := st.SetManagedVersioning(cmd.Context(), args[0], on); err != nil {
					return err
				}
				fmt.Fprintf(cmd.OutOrStdout(), "managed versioning of bucket %s is %s\n", args[0], args[1])
				return nil
			})
		},
	}
}

type bucketJSON struct {
	Name    string            `json:"name"`
	Format  string            `json:"format"`
	ARN     string            `json:"arn"`
	Owner   string            `json:"owner"`
	Tables  int               `json:"tables"`
	Created time.Time         `json:"created"`
	Tags    map[string]string `json:"tags,omitempty"`
	// ManagedVersioning: floe is the commit authority of the bucket's
	// Lance tables.
	ManagedVersioning bool `json:"managed_versioning"`
}

func newBucketListCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List table buckets",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return withStorePaths(cmd, func(st *catalog.Store, p dataPaths) error {
				out := []bucketJSON{}
				var rows [][]string
				after := ""
				for {
					page, next, err := st.ListBuckets(cmd.Context(), catalog.ListOptions{After: after, Limit: catalog.MaxPageSize})
					if err != nil {
						return err
					}
					for _, b := range page {
						out = append(out, bucketJSON{b.Name, formatWord(b.Format), p.shownARN(b.ARN), b.Owner, b.TableCount, b.CreatedAt, b.Tags, b.ManagedVersioning})
						rows = append(rows, []string{b.Name, formatWord(b.Format), fmt.Sprint(b.TableCount), b.CreatedAt.Format(time.RFC3339), p.shownARN(b.ARN)})
					}
					if next == "" {
						break
					}
					after = next
				}
				return printList(cmd.OutOrStdout(), asJSON, out, []string{"NAME", "FORMAT", "TABLES", "CREATED", "ARN"}, rows)
			})
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func newBucketDeleteCmd() *cobra.Command {
	var cascade, force bool
	cmd := &cobra.Command{
		Use:   "delete NAME",
		Short: "Delete an empty table bucket (--cascade also drops its tables: recently deleted for the bucket's hold, then their data goes)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withStore(cmd, func(st *catalog.Store) error {
				if err := st.DeleteBucketWith(cmd.Context(), args[0], catalog.CascadeOptions{Cascade: cascade, Force: force, By: cliPrincipal().String()}); err != nil {
					return err
				}
				fmt.Fprintf(cmd.OutOrStdout(), "deleted bucket %s\n", args[0])
				if n, err := st.CountDeletedTables(cmd.Context(), args[0]); err == nil && n > 0 {
					fmt.Fprintf(cmd.OutOrStdout(), "its %d recently deleted tables are held until their purge time: floe bucket undrop %s brings it back\n", n, args[0])
				}
				return nil
			})
		},
	}
	cmd.Flags().BoolVar(&cascade, "cascade", false, "also drop every namespace and table in the bucket (recently deleted for the hold, then their data is deleted)")
	cmd.Flags().BoolVar(&force, "force", false, "delete even if the bucket or something in it is protected")
	return cmd
}

func formatWord(f catalog.Format) string {
	if f == catalog.FormatUnset {
		return "unset"
	}
	return string(f)
}
