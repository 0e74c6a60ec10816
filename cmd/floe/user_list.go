package main

import (
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/floe/floe/catalog"
)

// userJSON is one user as `floe user list --json` prints it.
type userJSON struct {
	Name         string     `json:"name"`
	Role         string     `json:"role"`   // "" for a user of the identity provider whose groups give none
	Source       string     `json:"source"` // local or idp
	Issuer       string     `json:"issuer,omitempty"`
	Subject      string     `json:"subject,omitempty"`
	Groups       []string   `json:"groups,omitempty"`
	CreatedAt    time.Time  `json:"created_at"`
	LastSignInAt *time.Time `json:"last_sign_in_at,omitempty"`
	Disabled     *time.Time `json:"disabled,omitempty"` // when an admin disabled the user
}

func newUserListCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "list [--json]",
		Short: "List console users: local ones and those the identity provider signed in (with their groups), and which are disabled",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return withStore(cmd, func(st *catalog.Store) error {
				users, err := st.ListUsers(cmd.Context())
				if err != nil {
					return err
				}
				out := []userJSON{}
				var rows [][]string
				for _, u := range users {
					j := userJSON{Name: u.Name, Role: string(u.Role), Source: "local", CreatedAt: u.CreatedAt, Disabled: timeOrNil(u.DisabledAt)}
					state := "enabled"
					if u.Disabled() {
						state = "disabled " + u.DisabledAt.Format(time.RFC3339)
					}
					last := "-"
					if u.FromIdP() {
						j.Source, j.Issuer, j.Subject, j.Groups = "idp", u.Issuer, u.Subject, u.Groups
						if !u.LastSignInAt.IsZero() {
							t := u.LastSignInAt
							j.LastSignInAt = &t
							last = t.Format(time.RFC3339)
						}
					}
					out = append(out, j)
					rows = append(rows, []string{u.Name, orDash(string(u.Role)), j.Source, orDash(strings.Join(u.Groups, ",")), last, state})
				}
				return printList(cmd.OutOrStdout(), asJSON, out, []string{"NAME", "ROLE", "SOURCE", "GROUPS", "LAST SIGN-IN", "STATE"}, rows)
			})
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}
