package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/floe/floe/catalog"
	"github.com/spf13/cobra"
)

func newUserCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "user", Short: "Manage console users"}
	cmd.AddCommand(newUserAddCmd())
	return cmd
}

func newUserAddCmd() *cobra.Command {
	var role string
	var passwordStdin bool
	cmd := &cobra.Command{
		Use:   "add NAME --role admin|readonly",
		Short: "Add a console user; the password comes from FLOE_USER_PASSWORD, --password-stdin, or is generated and printed",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			r := catalog.Role(role)
			if r != catalog.RoleAdmin && r != catalog.RoleReadonly {
				return usageError{"--role must be admin or readonly"}
			}
			password := os.Getenv("FLOE_USER_PASSWORD")
			if passwordStdin {
				b, err := io.ReadAll(io.LimitReader(cmd.InOrStdin(), 1024))
				if err != nil {
					return err
				}
				password = strings.TrimRight(string(b), "\r\n")
			}
			generated := password == ""
			if generated {
				password = randomPassword()
			}
			return withStore(cmd, func(st *catalog.Store) error {
				u, err := st.CreateUser(cmd.Context(), args[0], password, r)
				if err != nil {
					return err
				}
				fmt.Fprintf(cmd.OutOrStdout(), "added %s user %s\n", u.Role, u.Name)
				if generated {
					fmt.Fprintf(cmd.OutOrStdout(), "password (shown once):\n%s\n", password)
				}
				return nil
			})
		},
	}
	cmd.Flags().StringVar(&role, "role", "", "admin (every action) or readonly (reads only)")
	cmd.Flags().BoolVar(&passwordStdin, "password-stdin", false, "read the password from standard input")
	return cmd
}
