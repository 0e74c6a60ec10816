package main

import (
	"fmt"
	"time"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/iceberg"
	"github.com/spf13/cobra"
)

// The CLI's side of issue 24: recently deleted tables (list, undrop, purge),
// protection, a bucket's hold and its destructive-maintenance switch. The
// CLI acts as the operator who holds the data directory: it may force past
// protection (--force) and is recorded as the CLI principal (cli:USER).

type deletedJSON struct {
	ID        string    `json:"table_id"`
	Bucket    string    `json:"bucket"`
	Namespace string    `json:"namespace"`
	Name      string    `json:"name"`
	Format    string    `json:"format"`
	Location  string    `json:"location"`
	DeletedAt time.Time `json:"deleted_at"`
	PurgeAt   time.Time `json:"purge_at"`
	DeletedBy string    `json:"deleted_by"`
	Reason    string    `json:"reason"`
	KeepsData bool      `json:"keeps_data,omitempty"`
}

func newTableDeletedCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "deleted BUCKET",
		Short: "List a bucket's recently deleted tables (dropped, held until their purge time; floe table undrop brings one back)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withStore(cmd, func(st *catalog.Store) error {
				out := []deletedJSON{}
				var rows [][]string
				after := ""
				for {
					page, next, err := st.ListDeletedTables(cmd.Context(), args[0], catalog.ListOptions{After: after, Limit: catalog.MaxPageSize})
					if err != nil {
						return err
					}
					for _, d := range page {
						out = append(out, deletedJSON{d.ID, d.Bucket, catalog.JoinNamespace(d.Namespace), d.Name, string(d.Format), d.Location,
							d.DeletedAt, d.PurgeAt, d.DeletedBy, d.Reason, !d.PurgeData})
						rows = append(rows, []string{d.ID, catalog.JoinNamespace(d.Namespace), d.Name, string(d.Format),
							d.DeletedAt.Format(time.RFC3339), d.PurgeAt.Format(time.RFC3339), orDash(d.DeletedBy), d.Reason})
					}
					if next == "" {
						break
					}
					after = next
				}
				return printList(cmd.OutOrStdout(), asJSON, out, []string{"TABLE_ID", "NAMESPACE", "TABLE", "FORMAT", "DELETED", "PURGE_AT", "BY", "REASON"}, rows)
			})
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func newTableUndropCmd() *cobra.Command {
	var id string
	cmd := &cobra.Command{
		Use:   "undrop BUCKET NS TABLE",
		Short: "Bring back a recently deleted table: the one last dropped as NS.TABLE, or --id's under NS.TABLE",
		Example: `  floe table undrop vectors docs docs
  floe table undrop vectors docs docs-restored --id 3f0c…   # under a new name: the old one is taken`,
		Args: cobra.ExactArgs(3),
		RunE: func(cmd *cobra.Command, args []string) error {
			ref := catalog.TableRef{Bucket: args[0], Namespace: catalog.SplitNamespace(args[1]), Name: args[2]}
			return withStore(cmd, func(st *catalog.Store) error {
				ctx := cmd.Context()
				pick := id
				if pick == "" {
					d, err := st.FindDeletedTable(ctx, ref)
					if err != nil {
						return err
					}
					pick = d.ID
				}
				t, err := st.UndropTable(ctx, pick, ref)
				if err != nil {
					return err
				}
				fmt.Fprintf(cmd.OutOrStdout(), "undropped table %s in namespace %s of bucket %s (table id %s, data at %s)\n",
					t.Name, catalog.JoinNamespace(t.Namespace), t.Bucket, t.ID, t.Location)
				return nil
			})
		},
	}
	cmd.Flags().StringVar(&id, "id", "", "the table id of the recently deleted table to bring back (floe table deleted lists them)")
	return cmd
}

func newTablePurgeCmd() *cobra.Command {
	var force bool
	cmd := &cobra.Command{
		Use:   "purge TABLE_ID",
		Short: "Delete a recently deleted table's data now instead of when its hold ends (cannot be undone)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withStore(cmd, func(st *catalog.Store) error {
				d, err := st.PurgeDeletedTable(cmd.Context(), args[0], force)
				if err != nil {
					return err
				}
				what := "its data is deleted"
				if !d.PurgeData {
					what = "its entry is forgotten; its data was kept, as its drop asked"
				}
				fmt.Fprintf(cmd.OutOrStdout(), "purged table %s (namespace %s of bucket %s): %s\n", d.Name, catalog.JoinNamespace(d.Namespace), d.Bucket, what)
				return nil
			})
		},
	}
	cmd.Flags().BoolVar(&force, "force", false, "purge a protected table too")
	return cmd
}

// protectVerb is what a protect command did.
func protectVerb(off bool) string {
	if off {
		return "unprotected"
	}
	return "protected"
}

func newTableProtectCmd() *cobra.Command {
	var off bool
	cmd := &cobra.Command{
		Use:   "protect BUCKET NS TABLE",
		Short: "Protect a table (floe.protected): it, its namespaces and its bucket refuse drop, purge, cascade, overwrite and rename unless forced (--off lifts it)",
		Args:  cobra.ExactArgs(3),
		RunE: func(cmd *cobra.Command, args []string) error {
			ref := catalog.TableRef{Bucket: args[0], Namespace: catalog.SplitNamespace(args[1]), Name: args[2]}
			return withStore(cmd, func(st *catalog.Store) error {
				ctx := cmd.Context()
				t, err := st.GetTable(ctx, ref)
				if err != nil {
					return err
				}
				if t.Format == catalog.FormatIceberg {
					// The property lives in the metadata file: a commit sets it.
					b, err := st.GetBucket(ctx, ref.Bucket)
					if err != nil {
						return err
					}
					if _, err := iceberg.New(iceberg.Config{Store: st}).SetProtected(ctx, b, ref, !off); err != nil {
						return err
					}
				} else if _, err := st.SetTableProtected(ctx, ref, !off); err != nil {
					return err
				}
				fmt.Fprintf(cmd.OutOrStdout(), "%s table %s\n", protectVerb(off), ref)
				return nil
			})
		},
	}
	cmd.Flags().BoolVar(&off, "off", false, "lift the protection")
	return cmd
}

func newNamespaceProtectCmd() *cobra.Command {
	var off bool
	cmd := &cobra.Command{
		Use:   "protect BUCKET NS",
		Short: "Protect a namespace (floe.protected): it and its bucket refuse drop, cascade and overwrite unless forced (--off lifts it)",
		Args:  cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withStore(cmd, func(st *catalog.Store) error {
				if _, err := st.SetNamespaceProtected(cmd.Context(), args[0], catalog.SplitNamespace(args[1]), !off); err != nil {
					return err
				}
				fmt.Fprintf(cmd.OutOrStdout(), "%s namespace %s of bucket %s\n", protectVerb(off), args[1], args[0])
				return nil
			})
		},
	}
	cmd.Flags().BoolVar(&off, "off", false, "lift the protection")
	return cmd
}

func newBucketProtectCmd() *cobra.Command {
	var off bool
	cmd := &cobra.Command{
		Use:   "protect NAME",
		Short: "Protect a bucket: it refuses delete unless forced (--off lifts it)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withStore(cmd, func(st *catalog.Store) error {
				if _, err := st.SetBucketProtected(cmd.Context(), args[0], !off); err != nil {
					return err
				}
				fmt.Fprintf(cmd.OutOrStdout(), "%s bucket %s\n", protectVerb(off), args[0])
				return nil
			})
		},
	}
	cmd.Flags().BoolVar(&off, "off", false, "lift the protection")
	return cmd
}

func newBucketHoldCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "soft-delete-hold NAME 7d|36h|0|default",
		Short: "Set how long a table dropped in the bucket stays recently deleted before its data goes (0: at once; default: floe serve's --soft-delete-hold)",
		Args:  cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			d := time.Duration(-1)
			if args[1] != "default" {
				var err error
				if d, err = catalog.ParseHold(args[1]); err != nil {
					return err
				}
			}
			return withStore(cmd, func(st *catalog.Store) error {
				b, err := st.SetBucketHold(cmd.Context(), args[0], d)
				if err != nil {
					return err
				}
				hold, err := st.EffectiveHold(cmd.Context(), b)
				if err != nil {
					return err
				}
				fmt.Fprintf(cmd.OutOrStdout(), "bucket %s: dropped tables are held %s\n", b.Name, holdWords(hold))
				return nil
			})
		},
	}
}

// holdWords says a hold in a sentence.
func holdWords(d time.Duration) string {
	if d == 0 {
		return "for no time: a drop deletes the data at once"
	}
	return "for " + catalog.FormatHold(d)
}

func newBucketDestructiveCmd() *cobra.Command {
	var all bool
	cmd := &cobra.Command{
		Use:   "destructive-maintenance NAME on|off",
		Short: "Let detection schedule the maintenance that deletes data (Lance cleanup, Iceberg snapshot expiry and orphan removal) in a bucket; off by default",
		Example: `  floe bucket destructive-maintenance vectors on
  floe bucket destructive-maintenance --all - on   # every bucket without its own setting`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			on := args[1] == "on"
			if !on && args[1] != "off" {
				return usageError{"the second argument is on or off"}
			}
			bucket := args[0]
			if all {
				bucket = ""
			}
			return withStore(cmd, func(st *catalog.Store) error {
				if err := st.SetDestructiveMaintenance(cmd.Context(), bucket, on); err != nil {
					return err
				}
				where := "bucket " + bucket
				if all {
					where = "every bucket without its own setting"
				}
				fmt.Fprintf(cmd.OutOrStdout(), "destructive maintenance %s for %s\n", args[1], where)
				return nil
			})
		},
	}
	cmd.Flags().BoolVar(&all, "all", false, "set it for every bucket that has no setting of its own (NAME is ignored)")
	return cmd
}

func newBucketUndropCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "undrop NAME",
		Short: "Bring back a deleted bucket that still holds recently deleted tables, with the tables its delete dropped",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withStore(cmd, func(st *catalog.Store) error {
				b, back, err := st.UndropBucket(cmd.Context(), args[0])
				if err != nil {
					return err
				}
				fmt.Fprintf(cmd.OutOrStdout(), "undropped bucket %s with %d tables\n", b.Name, len(back))
				return nil
			})
		},
	}
}

func newBucketPurgeCmd() *cobra.Command {
	var force bool
	cmd := &cobra.Command{
		Use:   "purge NAME",
		Short: "Delete the data of every recently deleted table of a deleted bucket now, and the bucket (cannot be undone)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withStore(cmd, func(st *catalog.Store) error {
				done, err := st.PurgeDeletedBucket(cmd.Context(), args[0], force)
				if err != nil {
					return err
				}
				fmt.Fprintf(cmd.OutOrStdout(), "purged bucket %s and %d tables\n", args[0], len(done))
				return nil
			})
		},
	}
	cmd.Flags().BoolVar(&force, "force", false, "purge protected tables too")
	return cmd
}
