package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/floe/floe/catalog"
)

func newUserCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "user", Short: "Manage console users"}
	cmd.AddCommand(newUserAddCmd(), newUserPasswdCmd(), newUserListCmd())
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

// maxPasswordInput bounds what passwd reads: a password, not a file.
const maxPasswordInput = 1024

func newUserPasswdCmd() *cobra.Command {
	var passwordStdin bool
	cmd := &cobra.Command{
		Use:   "passwd NAME",
		Short: "Reset a console user's password: prompted for (twice, not echoed), or read from --password-stdin",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			password, err := readNewPassword(cmd, passwordStdin)
			if err != nil {
				return err
			}
			return withStore(cmd, func(st *catalog.Store) error {
				if err := st.SetUserPassword(cmd.Context(), args[0], password); err != nil {
					return err
				}
				fmt.Fprintf(cmd.OutOrStdout(), "password of user %s reset; sessions signed in before keep running until they expire\n", args[0])
				return nil
			})
		},
	}
	cmd.Flags().BoolVar(&passwordStdin, "password-stdin", false, "read the new password from standard input (for scripts)")
	return cmd
}

// readNewPassword takes the password from stdin as sent (--password-stdin,
// or stdin that is not a terminal), or prompts on a terminal without echo
// and asks again to catch a typo.
func readNewPassword(cmd *cobra.Command, fromStdin bool) (string, error) {
	in := cmd.InOrStdin()
	f, isFile := in.(*os.File)
	if fromStdin || !isFile || !term.IsTerminal(int(f.Fd())) {
		b, err := io.ReadAll(io.LimitReader(in, maxPasswordInput))
		if err != nil {
			return "", err
		}
		pw := strings.TrimRight(string(b), "\r\n")
		if pw == "" {
			return "", usageError{"no password on standard input; pipe one in, e.g. printf '%s' \"$PW\" | floe user passwd NAME --password-stdin"}
		}
		return pw, nil
	}
	prompt := func(label string) (string, error) {
		fmt.Fprint(cmd.ErrOrStderr(), label)
		b, err := term.ReadPassword(int(f.Fd()))
		fmt.Fprintln(cmd.ErrOrStderr())
		return string(b), err
	}
	pw, err := prompt("New password: ")
	if err != nil {
		return "", err
	}
	again, err := prompt("Again: ")
	if err != nil {
		return "", err
	}
	if pw != again {
		return "", usageError{"the two passwords differ; nothing changed"}
	}
	return pw, nil
}
