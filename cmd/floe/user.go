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
	cmd.AddCommand(newUserAddCmd(), newUserListCmd(), newUserPasswdCmd(), newUserRoleCmd(),
		newUserDisableCmd(true), newUserDisableCmd(false))
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

func newUserRoleCmd() *cobra.Command {
	return &cobra.Command{
		Use:     "role NAME admin|readonly",
		Short:   "Change a console user's role (the last enabled admin stays admin)",
		Example: `  floe user role alice readonly`,
		Args:    cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withStore(cmd, func(st *catalog.Store) error {
				u, err := st.SetUserRole(cmd.Context(), args[0], catalog.Role(args[1]))
				if err != nil {
					return err
				}
				fmt.Fprintf(cmd.OutOrStdout(), "user %s is %s from their next page\n", u.Name, u.Role)
				return nil
			})
		},
	}
}

// newUserDisableCmd is user disable (disable true) or user enable.
func newUserDisableCmd(disable bool) *cobra.Command {
	use, short, done := "enable NAME", "Let a disabled console user sign in again", "enabled; they can sign in again"
	if disable {
		use, short, done = "disable NAME", "Disable a console user: sign-in refused and every session signed out (the user is kept; enable undoes it)", "disabled; their sessions are signed out"
	}
	return &cobra.Command{
		Use:   use,
		Short: short,
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withStore(cmd, func(st *catalog.Store) error {
				u, err := st.SetUserDisabled(cmd.Context(), args[0], disable)
				if err != nil {
					return err
				}
				fmt.Fprintf(cmd.OutOrStdout(), "user %s %s\n", u.Name, done)
				return nil
			})
		},
	}
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
				fmt.Fprintf(cmd.OutOrStdout(), "password of user %s reset; every session signed in before is signed out\n", args[0])
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
