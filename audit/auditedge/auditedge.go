// Package auditedge joins the edge to the audit trail: it is the one
// place an edge.Record becomes an audit.Entry. It lives apart from audit
// so the trail, a service, imports nothing of the HTTP layer.
package auditedge

import (
	"github.com/floe/floe/audit"
	"github.com/floe/floe/edge"
)

// Auditor is an edge.Auditor that queues every record on a trail.
type Auditor struct {
	trail *audit.Trail
	reads bool
}

// New returns the auditor for trail; reads also records successful reads.
func New(trail *audit.Trail, reads bool) *Auditor { return &Auditor{trail: trail, reads: reads} }

// AuditReads implements edge.Auditor.
func (a *Auditor) AuditReads() bool { return a.reads }

// Audit implements edge.Auditor: it never waits longer than the trail's
// Block (see audit.Trail.Add).
func (a *Auditor) Audit(r edge.Record) { a.trail.Add(Entry(r)) }

// Entry is r as an entry of the trail.
func Entry(r edge.Record) audit.Entry {
	e := audit.Entry{
		Type: audit.TypeRequest, Time: r.Time, Surface: r.Surface, Operation: r.Operation, Write: r.Write, Refused: r.Refused,
		Status: r.Status, Fault: string(r.Kind), RequestID: r.RequestID, Client: r.Client, Method: r.Method, Path: r.Path,
		Duration: r.Duration,
	}
	e.FromPrincipal(r.Principal)
	e.SetResource(r.Resource)
	return e
}
