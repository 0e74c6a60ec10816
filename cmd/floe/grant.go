package main

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/floe/floe/catalog"
)

const grantHelp = `A grant gives a user, a group or an API key a privilege on a place and
everything inside it, including what is created there later:

  WHO        user:NAME, group:NAME (from the identity provider) or apikey:ID (k_…)
  PRIVILEGE  read (list, describe, load, vended keys that read), write (data
             and commits, vended keys that write), maintain (run and configure
             maintenance) or manage (create, drop, rename, grant; implies all)
  PLACE      * (everything), BUCKET, BUCKET/NAMESPACE (levels joined by .) or
             BUCKET/NAMESPACE/TABLE

The command runs with the database's own rights, as the operator; the
console's Access tabs and the S3 Tables policy operations change the same
grants for those who manage the place.`

func newGrantCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "grant", Short: "Add, remove and list grants (who may do what, where)", Long: grantHelp}
	cmd.AddCommand(newGrantChangeCmd("add"), newGrantChangeCmd("remove"), newGrantListCmd())
	return cmd
}

// parseGrant reads WHO PRIVILEGE PLACE.
func parseGrant(args []string) (catalog.Grant, error) {
	who, err := catalog.ParseGrantee(args[0])
	if err != nil {
		return catalog.Grant{}, usageError{err.Error()}
	}
	b, ns, t, err := catalog.ParsePlace(args[2])
	if err != nil {
		return catalog.Grant{}, usageError{err.Error()}
	}
	return catalog.Grant{Grantee: who, Privilege: args[1], Bucket: b, Namespace: ns, Table: t, CreatedBy: "cli"}, nil
}

func newGrantChangeCmd(verb string) *cobra.Command {
	short := "Grant WHO the PRIVILEGE on PLACE"
	if verb == "remove" {
		short = "Remove the grant of PRIVILEGE on PLACE from WHO"
	}
	return &cobra.Command{
		Use:   verb + " WHO PRIVILEGE PLACE",
		Short: short,
		Long:  grantHelp,
		Args:  cobra.ExactArgs(3),
		RunE: func(cmd *cobra.Command, args []string) error {
			g, err := parseGrant(args)
			if err != nil {
				return err
			}
			return withStore(cmd, func(st *catalog.Store) error {
				if verb == "remove" {
					if err := st.RemoveGrant(cmd.Context(), g); err != nil {
						return err
					}
					fmt.Fprintf(cmd.OutOrStdout(), "removed %s on %s from %s\n", g.Privilege, g.Place(), g.Grantee)
					return nil
				}
				_, created, err := st.AddGrant(cmd.Context(), g)
				if err != nil {
					return err
				}
				if !created {
					fmt.Fprintf(cmd.OutOrStdout(), "%s already holds %s on %s\n", g.Grantee, g.Privilege, g.Place())
					return nil
				}
				fmt.Fprintf(cmd.OutOrStdout(), "granted %s on %s to %s\n", g.Privilege, g.Place(), g.Grantee)
				return nil
			})
		},
	}
}

// grantJSON is one grant as `floe grant list --json` prints it.
type grantJSON struct {
	Grantee   string    `json:"grantee"`
	Privilege string    `json:"privilege"`
	Place     string    `json:"place"`
	CreatedAt time.Time `json:"created_at"`
	CreatedBy string    `json:"created_by"`
}

func newGrantListCmd() *cobra.Command {
	var who, place string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "list [--grantee WHO] [--place PLACE] [--json]",
		Short: "List grants: a grantee's, or those that apply on a place (on it or on a place around it)",
		Long:  grantHelp,
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var f catalog.GrantFilter
			if who != "" {
				g, err := catalog.ParseGrantee(who)
				if err != nil {
					return usageError{err.Error()}
				}
				f.Grantee = &g
			}
			if place != "" {
				b, ns, t, err := catalog.ParsePlace(place)
				if err != nil {
					return usageError{err.Error()}
				}
				f.Covering = &catalog.Grant{Bucket: b, Namespace: ns, Table: t}
			}
			return withStore(cmd, func(st *catalog.Store) error {
				gs, err := st.ListGrants(cmd.Context(), f)
				if err != nil {
					return err
				}
				out := make([]grantJSON, 0, len(gs))
				rows := make([][]string, 0, len(gs))
				for _, g := range gs {
					out = append(out, grantJSON{Grantee: g.Grantee.String(), Privilege: g.Privilege, Place: g.Place(), CreatedAt: g.CreatedAt, CreatedBy: g.CreatedBy})
					rows = append(rows, []string{g.Grantee.String(), g.Privilege, g.Place(), g.CreatedAt.Format(time.RFC3339), orDash(g.CreatedBy)})
				}
				return printList(cmd.OutOrStdout(), asJSON, out, []string{"WHO", "PRIVILEGE", "PLACE", "GRANTED", "BY"}, rows)
			})
		},
	}
	cmd.Flags().StringVar(&who, "grantee", "", "only this grantee's grants (user:NAME, group:NAME, apikey:ID)")
	cmd.Flags().StringVar(&place, "place", "", "only the grants that apply on this place (on it or around it)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}
