package main

import (
	"fmt"
	"time"

	"github.com/floe/floe/catalog"
	"github.com/spf13/cobra"
)

func newNamespaceCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "namespace", Short: "Create and list namespaces inside a bucket"}
	cmd.AddCommand(newNamespaceCreateCmd(), newNamespaceListCmd(), newNamespaceProtectCmd())
	return cmd
}

func newNamespaceCreateCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "create BUCKET NS[.NS…]",
		Short: "Create a namespace; a multi-level one (a.b) needs its parent (a) first",
		Example: `  floe namespace create vectors docs
  floe namespace create lake sales
  floe namespace create lake sales.eu`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withStore(cmd, func(st *catalog.Store) error {
				ns, err := st.CreateNamespace(cmd.Context(), args[0], catalog.SplitNamespace(args[1]), nil)
				if err != nil {
					return err
				}
				fmt.Fprintf(cmd.OutOrStdout(), "created namespace %s in bucket %s\n", ns.Name(), ns.Bucket)
				return nil
			})
		},
	}
}

type namespaceJSON struct {
	Bucket     string            `json:"bucket"`
	Namespace  string            `json:"namespace"`
	Levels     []string          `json:"levels"`
	Properties map[string]string `json:"properties,omitempty"`
	Created    time.Time         `json:"created"`
}

func newNamespaceListCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "list BUCKET",
		Short: "List every namespace of a bucket, at every depth",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withStore(cmd, func(st *catalog.Store) error {
				list, err := st.ListAllNamespaces(cmd.Context(), args[0])
				if err != nil {
					return err
				}
				out := []namespaceJSON{}
				var rows [][]string
				for _, n := range list {
					out = append(out, namespaceJSON{n.Bucket, n.Name(), n.Levels, n.Properties, n.CreatedAt})
					rows = append(rows, []string{n.Name(), n.CreatedAt.Format(time.RFC3339)})
				}
				return printList(cmd.OutOrStdout(), asJSON, out, []string{"NAMESPACE", "CREATED"}, rows)
			})
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}
