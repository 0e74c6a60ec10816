package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/floe/floe/audit"
)

func newAuditCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "audit", Short: "Read the audit trail"}
	cmd.AddCommand(newAuditExportCmd())
	return cmd
}

func newAuditExportCmd() *cobra.Command {
	var since, until string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "export [--since T] [--until T] [--json]",
		Short: "Write the audit trail, oldest first: NDJSON with --json, else one line per entry",
		Long: `Write every entry of the audit trail (writes and refusals on every surface, CLI
commands, table changes and finished jobs) between --since and --until, oldest
first. With --json each line is one entry as a JSON object (NDJSON), the same
fields the Activity page shows and the CloudEvents carry. Times are RFC 3339
(2026-12-01T09:30:00Z), a date (2026-12-01, UTC midnight) or a duration back
from now (24h).`,
		Example: `  floe audit export --json > audit.ndjson
  floe audit export --since 24h
  floe audit export --since 2026-11-01 --until 2026-12-01 --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			now := time.Now()
			var f audit.Filter
			var err error
			if f.Since, err = parseExportTime(since, now); err != nil {
				return usageError{"--since: " + err.Error()}
			}
			if f.Until, err = parseExportTime(until, now); err != nil {
				return usageError{"--until: " + err.Error()}
			}
			db, st, p, err := openStore(cmd.Context(), cmd)
			if err != nil {
				return err
			}
			defer db.Close()
			defer st.Close()
			adb, closeAudit, err := openAuditDB(cmd.Context(), p, db)
			if err != nil {
				return err
			}
			defer closeAudit()
			out := bufio.NewWriter(cmd.OutOrStdout())
			enc := json.NewEncoder(out)
			err = audit.NewStore(adb).Export(cmd.Context(), f, func(e audit.Entry) error {
				if asJSON {
					return enc.Encode(e)
				}
				_, err := fmt.Fprintf(out, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", e.Time.Format(time.RFC3339), e.Principal,
					dashed(e.Surface), exportOperation(e), e.Resource(), e.Outcome(), dashed(e.RequestID))
				return err
			})
			if err != nil {
				return err
			}
			return out.Flush()
		},
	}
	cmd.Flags().StringVar(&since, "since", "", "first time to include (RFC 3339, a date, or a duration back from now such as 24h)")
	cmd.Flags().StringVar(&until, "until", "", "time to stop before (same forms)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "one JSON object per line (NDJSON)")
	return cmd
}

func exportOperation(e audit.Entry) string {
	if e.Type != audit.TypeRequest {
		return strings.TrimPrefix(e.Type, "floe.")
	}
	return e.Operation
}

func dashed(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// parseExportTime reads RFC 3339, a date, or a duration back from now.
func parseExportTime(s string, now time.Time) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		return t, nil
	}
	if d, err := time.ParseDuration(s); err == nil && d > 0 {
		return now.Add(-d), nil
	}
	return time.Time{}, fmt.Errorf("%q is not a time: give 2026-12-01T09:30:00Z, 2026-12-01 or 24h", s)
}
