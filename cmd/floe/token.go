package main

import (
	"crypto/rand"
	"fmt"

	"github.com/floe/floe/catalog"
	"github.com/spf13/cobra"
)

func newTokenCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "token", Short: "Manage API keys for the Lance and Iceberg catalogs and the task API"}
	cmd.AddCommand(newTokenCreateCmd())
	return cmd
}

func newTokenCreateCmd() *cobra.Command {
	var role, bucket, name string
	cmd := &cobra.Command{
		Use:   "create --role readwrite|readonly|none [--bucket B]",
		Short: "Create an API key; the key is printed once, on its own last line",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			r := catalog.Role(role)
			if r != catalog.RoleReadWrite && r != catalog.RoleReadonly && r != catalog.RoleNone {
				return usageError{"--role must be readwrite, readonly or none (a key whose rights are only the grants given to it: floe grant add apikey:ID …)"}
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
				k, secret, err := st.CreateAPIKey(cmd.Context(), name, r, bucket, 0)
				if err != nil {
					return err
				}
				scope := "every bucket"
				if k.Bucket != "" {
					scope = "bucket " + k.Bucket
				}
				// The SigV4 pair (S3 Tables surface) comes first so the key
				// itself stays on the last line, where scripts read it.
				fmt.Fprintf(cmd.OutOrStdout(), "created %s key %s (%s) for %s; it is shown once:\nS3 Tables (SigV4): access key id %s, secret access key %s\n%s\n",
					k.Role, k.Name, k.ID, scope, k.AccessKeyID, k.SecretAccessKey, secret)
				return nil
			})
		},
	}
	cmd.Flags().StringVar(&role, "role", "", "readwrite (manage its bucket or everything), readonly (read it) or none (only what floe grant add gives it)")
	cmd.Flags().StringVar(&bucket, "bucket", "", "limit the key to one bucket")
	cmd.Flags().StringVar(&name, "name", "", "a name to recognise the key by")
	return cmd
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
	cmd.AddCommand(create)
	return cmd
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
