// Package audit keeps floe's audit trail and pushes its change events.
//
// Every write and every refusal on every HTTP surface is one Entry, handed
// over by the edge when the request ends (cmd/floe adapts edge.Record);
// the CLI records its commands the same way; the catalog's table changes
// and finished jobs are entries too. Entries reach the database through a
// bounded queue and batched inserts (Trail), so a request never waits on
// the database for its record; a background prune enforces the retention.
// The same rows are the outbox of the CloudEvents pushed to a webhook and
// to NATS (Publisher): each sink keeps how far it has delivered, so
// delivery is at least once across restarts, and each event keeps its id.
//
// The package imports neither net/http's server side nor templ: the console
// reads it through Query, the CLI through Export.
package audit

import (
	"embed"
	"io/fs"
	"strings"
	"time"

	"github.com/floe/floe/identity"
	"github.com/floe/floe/persist"
)

//go:embed migrations/*.sql migrations/postgres/*.sql
var migrations embed.FS

// MigrationOwner is the name the audit migrations are recorded under.
const MigrationOwner = "audit"

// Migrations returns the audit trail's migrations for persist.Migrate,
// which the composition root runs for every owner.
func Migrations() persist.Schema {
	sub, err := fs.Sub(migrations, "migrations")
	if err != nil {
		panic("audit: embedded migrations: " + err.Error()) // the embed pattern guarantees the folder
	}
	return persist.Schema{Owner: MigrationOwner, Files: sub}
}

// The types of entry, as CloudEvents types.
const (
	// TypeRequest is an audited request: a write, a refusal, or a read
	// when reads are audited; also a CLI command (surface "cli").
	TypeRequest = "floe.audit.request"
	// TypeTableCreated, TypeTableCommitted and TypeTableDropped are the
	// catalog's table changes, whichever surface or command made them.
	TypeTableCreated   = "floe.table.created"
	TypeTableCommitted = "floe.table.committed"
	TypeTableDropped   = "floe.table.dropped"
	// TypeJobFinished is a maintenance job that ended (succeeded, failed
	// or cancelled).
	TypeJobFinished = "floe.job.finished"
)

// Entry is one row of the trail.
type Entry struct {
	// Seq orders entries (keyset pages, delivery); 0 until stored.
	Seq int64 `json:"seq"`
	// ID is the event's stable id (CloudEvents id); made when stored.
	ID        string    `json:"id"`
	Time      time.Time `json:"time"`
	Type      string    `json:"type"`
	Surface   string    `json:"surface,omitempty"`
	Operation string    `json:"operation,omitempty"`
	Write     bool      `json:"write"`
	Refused   bool      `json:"refused"`
	// Principal is identity.Principal's String ("user:admin",
	// "apikey:k1", "anonymous", "-"); Via how it authenticated.
	Principal string `json:"principal"`
	Via       string `json:"via,omitempty"`
	// Bucket, Namespace (levels joined by ".") and Table name the resource.
	Bucket    string `json:"bucket,omitempty"`
	Namespace string `json:"namespace,omitempty"`
	Table     string `json:"table,omitempty"`
	Status    int    `json:"status,omitempty"`
	// Fault is the fault kind a refusal or failure was answered with.
	Fault     string `json:"fault,omitempty"`
	RequestID string `json:"request_id,omitempty"`
	Client    string `json:"client,omitempty"`
	Method    string `json:"method,omitempty"`
	Path      string `json:"path,omitempty"`
	// Duration is how long the request took (microseconds when stored).
	Duration time.Duration `json:"duration_ns,omitempty"`
	// Data is a change event's details as a JSON object ("" for none).
	Data string `json:"data,omitempty"`
}

// Resource is the entry's resource.
func (e Entry) Resource() identity.Resource {
	r := identity.Resource{Bucket: e.Bucket, Table: e.Table}
	if e.Namespace != "" {
		r.Namespace = strings.Split(e.Namespace, ".")
	}
	return r
}

// SetResource fills Bucket, Namespace and Table from r.
func (e *Entry) SetResource(r identity.Resource) {
	e.Bucket, e.Namespace, e.Table = r.Bucket, strings.Join(r.Namespace, "."), r.Table
}

// Outcome is the entry's outcome in one word: ok, failed or refused.
func (e Entry) Outcome() string {
	switch {
	case e.Refused:
		return OutcomeRefused
	case e.Status >= 400 || e.Fault != "":
		return OutcomeFailed
	}
	return OutcomeOK
}

// The outcomes Query filters on.
const (
	OutcomeOK      = "ok"
	OutcomeFailed  = "failed"
	OutcomeRefused = "refused"
)

// FromPrincipal fills Principal and Via from p.
func (e *Entry) FromPrincipal(p identity.Principal) {
	e.Principal, e.Via = p.String(), p.Via
}
