package main

import (
	"context"
	"fmt"
	"os/user"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/floe/floe/audit"
	"github.com/floe/floe/catalog"
	"github.com/floe/floe/fault"
	"github.com/floe/floe/identity"
	"github.com/floe/floe/persist"
)

// cliAudit records a CLI command that changes state in the audit trail, as
// the edge does for a request: one entry with the command, its resource
// and its outcome, plus the table changes it made. Listing commands are
// reads and are not recorded.
type cliAudit struct {
	cmd    *cobra.Command
	start  time.Time
	tables []catalog.TableEvent
}

// watchCLI starts recording cmd over st; finish stores the entries.
func watchCLI(cmd *cobra.Command, st *catalog.Store) *cliAudit {
	a := &cliAudit{cmd: cmd, start: time.Now()}
	st.OnTableEvent(func(e catalog.TableEvent) { a.tables = append(a.tables, e) }) // the CLI's one goroutine
	return a
}

// cliWrites says whether a command changes state.
func cliWrites(cmd *cobra.Command) bool { return cmd.Name() != "list" && cmd.Name() != "export" }

// finish stores the command's entries; a failure to record is reported on
// stderr and does not undo or fail the command that ran.
func (a *cliAudit) finish(ctx context.Context, p dataPaths, catalogDB *persist.DB, args []string, runErr error) {
	if !cliWrites(a.cmd) {
		return
	}
	e := audit.Entry{Type: audit.TypeRequest, Time: a.start, Surface: "cli", Operation: strings.TrimPrefix(a.cmd.CommandPath(), "floe "),
		Write: true, Duration: time.Since(a.start)}
	e.FromPrincipal(cliPrincipal())
	e.SetResource(cliResource(a.cmd, args))
	if runErr != nil {
		e.Fault = string(fault.KindOf(runErr))
		if e.Fault == "" {
			e.Fault = "error"
		}
	}
	entries := []audit.Entry{e}
	for _, t := range a.tables {
		entries = append(entries, tableEntry(t))
	}
	// the command's own context may be ending (a signal): the record still goes
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if err := insertCLI(rctx, p, catalogDB, entries); err != nil {
		fmt.Fprintln(a.cmd.ErrOrStderr(), "floe: warning: the audit trail did not record this command:", err)
	}
}

// insertCLI stores entries in the trail of the catalog on catalogDB, where
// floe serve keeps it (openAuditDB).
func insertCLI(ctx context.Context, p dataPaths, catalogDB *persist.DB, entries []audit.Entry) error {
	db, closeDB, err := openAuditDB(ctx, p, catalogDB)
	if err != nil {
		return err
	}
	defer closeDB()
	_, err = audit.NewStore(db).Insert(ctx, entries)
	return err
}

// cliPrincipal is the operator at the terminal: floe itself acting for the
// OS user who can open the data directory.
func cliPrincipal() identity.Principal {
	name := "unknown"
	if u, err := user.Current(); err == nil && u.Username != "" {
		name = u.Username
	}
	return identity.Principal{Kind: identity.System, ID: "cli:" + name, Name: name, Via: "cli"}
}

// cliResource is what a command's arguments name.
func cliResource(cmd *cobra.Command, args []string) identity.Resource {
	var r identity.Resource
	parent := ""
	if cmd.Parent() != nil {
		parent = cmd.Parent().Name()
	}
	switch parent {
	case "bucket":
		if len(args) > 0 {
			r.Bucket = args[0]
		}
	case "namespace":
		if len(args) > 1 {
			r.Bucket, r.Namespace = args[0], strings.Split(args[1], ".")
		}
	case "table":
		if len(args) > 2 {
			r.Bucket, r.Namespace, r.Table = args[0], strings.Split(args[1], "."), args[2]
		}
	case "token":
		if f := cmd.Flags().Lookup("bucket"); f != nil {
			r.Bucket = f.Value.String()
		}
	}
	return r
}
