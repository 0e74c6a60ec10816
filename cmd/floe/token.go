package main

import (
	"crypto/rand"
	"fmt"
	"time"

	"github.com/floe/floe/catalog"
	"github.com/spf13/cobra"
)

func newTokenCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "token", Short: "Manage API keys for the Lance and Iceberg catalogs, the task API and S3 Tables"}
	cmd.AddCommand(newTokenCreateCmd(), newTokenListCmd(), newTokenRevokeCmd())
	return cmd
}

func newTokenCreateCmd() *cobra.Command {
	var role, bucket, name, expiresIn string
	cmd := &cobra.Command{
		Use:   "create --role readwrite|readonly|none [--bucket B] [--expires-in 30d]",
		Short: "Create an API key; the key is printed once, on its own last line",
		Example: `  floe token create --role readonly --bucket vectors
  floe token create --role readwrite --expires-in 12h`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			r := catalog.Role(role)
			if r != catalog.RoleReadWrite && r != catalog.RoleReadonly && r != catalog.RoleNone {
				return usageError{"--role must be readwrite, readonly or none (a key whose rights are only the grants given to it: floe grant add apikey:ID …)"}
			}
			ttl, err := catalog.ParseKeyLifetime(expiresIn)
			if err != nil {
				return usageError{"--expires-in: " + err.Error()}
			}
			return withStore(cmd, func(st *catalog.Store) error {
				if bucket != "" {
					if _, err := st.GetBucket(cmd.Context(), bucket); err != nil {
						return err
					}
				}
				if name == "" {
					name = "cli-" + role
				}
				k, secret, err := st.CreateAPIKey(cmd.Context(), name, r, bucket, ttl)
				if err != nil {
					return err
				}
				scope := "every bucket"
				if k.Bucket != "" {
					scope = "bucket " + k.Bucket
				}
				expiry := "never expires"
				if !k.ExpiresAt.IsZero() {
					expiry = "expires " + k.ExpiresAt.Format(time.RFC3339)
				}
				// The SigV4 pair (S3 Tables surface) comes first so the key
				// itself stays on the last line, where scripts read it.
				fmt.Fprintf(cmd.OutOrStdout(), "created %s key %s (%s) for %s, %s; it is shown once:\nS3 Tables (SigV4): access key id %s, secret access key %s\n%s\n",
					k.Role, k.Name, k.ID, scope, expiry, k.AccessKeyID, k.SecretAccessKey, secret)
				return nil
			})
		},
	}
	cmd.Flags().StringVar(&role, "role", "", "readwrite (manage its bucket or everything), readonly (read it) or none (only what floe grant add gives it)")
	cmd.Flags().StringVar(&bucket, "bucket", "", "limit the key to one bucket")
	cmd.Flags().StringVar(&name, "name", "", "a name to recognise the key by")
	cmd.Flags().StringVar(&expiresIn, "expires-in", "", "refuse the key after this long: 90s, 45m, 12h, 30d or 2w (default: never)")
	return cmd
}

// keyJSON is one API key in token list --json; never a secret.
type keyJSON struct {
	ID          string     `json:"id"`
	Name        string     `json:"name"`
	Role        string     `json:"role"`
	Bucket      string     `json:"bucket"` // "" = every bucket
	AccessKeyID string     `json:"access_key_id,omitempty"`
	Created     time.Time  `json:"created"`
	LastUsed    *time.Time `json:"last_used,omitempty"`
	Expires     *time.Time `json:"expires,omitempty"`
	// System is what floe made the key for itself ("" = a person made it).
	System string `json:"system,omitempty"`
	// Expired marks a person's key past its expiry, kept so its holder
	// learns why they are refused (listed with --expired).
	Expired bool `json:"expired,omitempty"`
}

func timeOrNil(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}

func timeOr(t time.Time, none string) string {
	if t.IsZero() {
		return none
	}
	return t.Format(time.RFC3339)
}

func newTokenListCmd() *cobra.Command {
	var asJSON, system, expired bool
	cmd := &cobra.Command{
		Use:   "list [--system] [--expired] [--json]",
		Short: "List API keys (never their secrets); keys floe made for itself only with --system, expired ones only with --expired",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return withStore(cmd, func(st *catalog.Store) error {
				keys, err := st.ListAPIKeys(cmd.Context())
				if err != nil {
					return err
				}
				live := len(keys)
				if expired {
					old, err := st.ListExpiredAPIKeys(cmd.Context())
					if err != nil {
						return err
					}
					keys = append(keys, old...)
				}
				out := []keyJSON{}
				var rows [][]string
				for i, k := range keys {
					if k.System != "" && !system {
						continue
					}
					gone := i >= live
					out = append(out, keyJSON{k.ID, k.Name, string(k.Role), k.Bucket, k.AccessKeyID, k.CreatedAt,
						timeOrNil(k.LastUsedAt), timeOrNil(k.ExpiresAt), string(k.System), gone})
					scope := k.Bucket
					if scope == "" {
						scope = "every bucket"
					}
					expires := timeOr(k.ExpiresAt, "never")
					if gone {
						expires += " (expired)"
					}
					rows = append(rows, []string{k.ID, k.Name, string(k.Role), scope, k.CreatedAt.Format(time.RFC3339),
						timeOr(k.LastUsedAt, "never"), expires, orDash(string(k.System))})
				}
				return printList(cmd.OutOrStdout(), asJSON, out, []string{"ID", "NAME", "ROLE", "BUCKET", "CREATED", "LAST USED", "EXPIRES", "SYSTEM"}, rows)
			})
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	cmd.Flags().BoolVar(&system, "system", false, "also list the keys floe made for itself (bundled workers, the demo seeder, keys minted for jobs)")
	cmd.Flags().BoolVar(&expired, "expired", false, "also list people's keys past their expiry (refused, kept so their holders learn why; revoke removes one)")
	return cmd
}

func newTokenRevokeCmd() *cobra.Command {
	return &cobra.Command{
		Use:     "revoke ID",
		Short:   "Revoke an API key by its id (token list shows ids); clients using it are refused at once",
		Example: `  floe token revoke k_3f9a0c1d2e4b5a69`,
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withStore(cmd, func(st *catalog.Store) error {
				if err := st.RevokeAPIKey(cmd.Context(), args[0]); err != nil {
					return err
				}
				fmt.Fprintf(cmd.OutOrStdout(), "revoked API key %s; clients using it are refused from now on\n", args[0])
				return nil
			})
		},
	}
}

func newWorkerTokenCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "worker-token", Short: "Manage tokens that workers present on the plugin channel"}
	var name string
	create := &cobra.Command{
		Use:   "create",
		Short: "Create a worker token; the token is printed once, on its own last line",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return withStore(cmd, func(st *catalog.Store) error {
				t, secret, err := st.CreateWorkerToken(cmd.Context(), name)
				if err != nil {
					return err
				}
				fmt.Fprintf(cmd.OutOrStdout(), "created worker token %s (%s); it is shown once:\n%s\n", t.Name, t.ID, secret)
				return nil
			})
		},
	}
	create.Flags().StringVar(&name, "name", "worker", "a name to recognise the token by")
	cmd.AddCommand(create, newWorkerTokenListCmd(), newWorkerTokenRevokeCmd())
	return cmd
}

// workerTokenJSON is one worker token in worker-token list --json.
type workerTokenJSON struct {
	ID       string     `json:"id"`
	Name     string     `json:"name"`
	Created  time.Time  `json:"created"`
	LastUsed *time.Time `json:"last_used,omitempty"`
	System   string     `json:"system,omitempty"`
}

func newWorkerTokenListCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "list [--json]",
		Short: "List worker tokens (never their secrets), the bundled workers' marked system",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return withStore(cmd, func(st *catalog.Store) error {
				tokens, err := st.ListWorkerTokens(cmd.Context())
				if err != nil {
					return err
				}
				out := []workerTokenJSON{}
				var rows [][]string
				for _, w := range tokens {
					out = append(out, workerTokenJSON{w.ID, w.Name, w.CreatedAt, timeOrNil(w.LastUsedAt), string(w.System)})
					rows = append(rows, []string{w.ID, w.Name, w.CreatedAt.Format(time.RFC3339), timeOr(w.LastUsedAt, "never"), orDash(string(w.System))})
				}
				return printList(cmd.OutOrStdout(), asJSON, out, []string{"ID", "NAME", "CREATED", "LAST USED", "SYSTEM"}, rows)
			})
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func newWorkerTokenRevokeCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "revoke ID",
		Short: "Revoke a worker token and every API key minted under it; workers with it are refused",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withStore(cmd, func(st *catalog.Store) error {
				if err := st.RevokeWorkerToken(cmd.Context(), args[0]); err != nil {
					return err
				}
				// On SQLite a serve process hears of a revocation by another
				// process only when the worker next authenticates; on
				// PostgreSQL the notification disconnects it at once.
				fmt.Fprintf(cmd.OutOrStdout(), "revoked worker token %s and the API keys minted under it; a worker using it is refused from its next connection (the console's Revoke also disconnects it at once)\n", args[0])
				return nil
			})
		},
	}
}

// randomPassword returns 20 characters from an unambiguous alphabet.
func randomPassword() string {
	const alphabet = "abcdefghjkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789"
	b := make([]byte, 20)
	if _, err := rand.Read(b); err != nil {
		panic(err) // crypto/rand never fails on supported platforms
	}
	for i := range b {
		b[i] = alphabet[int(b[i])%len(alphabet)]
	}
	return string(b)
}
