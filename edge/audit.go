package edge

import (
	"context"
	"net/http"
	"time"

	"github.com/floe/floe/fault"
	"github.com/floe/floe/identity"
)

// Access says what an operation does: a write changes something (the
// catalog, a table's data or commits, a key, a setting), a read does not.
// It is decided per operation, not per HTTP method: the Lance REST's reads
// are POSTs.
type Access uint8

// The accesses a route is marked with.
const (
	Reads Access = iota + 1
	Writes
)

// Op names a route's operation in the audit trail ("DropTable",
// "updateTable", "CreateBucket") and marks whether it writes. Every route of
// a surface with an Auditor carries one.
func Op(name string, a Access) Option {
	return func(o *routeOpts) { o.op, o.access = name, a }
}

// Record is one audited request: who did what to which resource, through
// which surface, and how it ended.
type Record struct {
	Time      time.Time
	Surface   string
	Operation string
	// Write: the route's operation writes; a refused read has it false.
	Write bool
	// Refused: authentication or authorization said no (401, 403, or a
	// fault.Unauthenticated or fault.Forbidden the encoder answered).
	Refused   bool
	Principal identity.Principal
	Resource  identity.Resource
	// Status is the HTTP status answered; Kind the fault kind the
	// surface's encoder was given ("" for a success or a server fault).
	Status    int
	Kind      fault.Kind
	RequestID string
	// Method and Path are the request's own, for a refusal that came
	// before the handler parsed a resource (authentication).
	Method, Path string
	// Client is the caller's address (host:port), as the console's
	// trusted-proxy rule found it.
	Client   string
	Duration time.Duration
}

// Auditor takes the records of a surface. Audit is called on the request's
// goroutine once the status is known, so it must not block: the audit
// trail queues and writes in batches elsewhere.
type Auditor interface {
	Audit(Record)
	// AuditReads says whether successful reads are recorded too (off by
	// default: reads are most requests and change nothing).
	AuditReads() bool
}

// Describe names the resource a request acts on, once the handler (or the
// surface's one adapter) has parsed it: the audit trail records it.
func Describe(ctx context.Context, res identity.Resource) {
	if st, _ := ctx.Value(stateKey{}).(*state); st != nil {
		st.resource = res
	}
}

// DescribeOp renames the operation of this request, for a route that
// serves more than one (the console's job-type form saves or runs).
func DescribeOp(ctx context.Context, name string, a Access) {
	if st, _ := ctx.Value(stateKey{}).(*state); st != nil {
		st.op, st.access = name, a
	}
}

// Failed tells the edge which error a surface's encoder is answering, so
// the audit record carries its fault kind: a *fault.Error in err's chain,
// or a bare fault.Kind (a protocol's own error type mapped back). Every
// encoder calls it once.
func Failed(ctx context.Context, err error) {
	st, _ := ctx.Value(stateKey{}).(*state)
	if st == nil {
		return
	}
	if k, ok := err.(fault.Kind); ok {
		st.kind = k
	} else if k := fault.KindOf(err); k != "" {
		st.kind = k
	}
}

// SetClient records the caller's address when a surface learns a truer
// one than the connection's (the console behind a trusted proxy).
func SetClient(ctx context.Context, addr string) {
	if st, _ := ctx.Value(stateKey{}).(*state); st != nil {
		st.client = addr
	}
}

// Operation is the operation of the route the request matched ("" before
// routing or for an unmarked route).
func Operation(ctx context.Context) string {
	if st, _ := ctx.Value(stateKey{}).(*state); st != nil {
		return st.op
	}
	return ""
}

// refusal reports whether a request ended refused.
func refusal(st *state, status int) bool {
	return st.refused || status == http.StatusUnauthorized || status == http.StatusForbidden ||
		st.kind == fault.Unauthenticated || st.kind == fault.Forbidden
}

// audit hands the request's record to the auditor when it is a write, a
// refusal, or a read on a surface that audits reads. A request that
// matched no route (404, 405) or was refused before routing (an oversized
// body) names no operation and is not an audit record.
func (s *Surface) audit(r *http.Request, st *state, status int, start time.Time, elapsed time.Duration) {
	if s.cfg.Auditor == nil || st.route == "" || st.route == "unmatched" {
		return
	}
	refused := refusal(st, status)
	write := st.access == Writes
	if !write && !refused && !s.auditReads {
		return
	}
	op := st.op
	if op == "" {
		op = st.route // an unmarked route: still recorded, under its pattern
	}
	client := st.client
	if client == "" {
		client = r.RemoteAddr
	}
	s.cfg.Auditor.Audit(Record{
		Time: start, Surface: s.cfg.Name, Operation: op, Write: write, Refused: refused,
		Principal: st.principal, Resource: st.resource, Status: status, Kind: st.kind,
		RequestID: st.id, Method: r.Method, Path: r.URL.Path, Client: client, Duration: elapsed,
	})
}

// Unmarked lists the route patterns registered without Op, for each
// surface's test that every route names its operation.
func (s *Surface) Unmarked() []string {
	return append([]string(nil), s.unmarked...)
}

// Marked is one route's pattern with its operation, for tests and docs.
type Marked struct {
	Pattern, Operation string
	Access             Access
}

// Routes lists every route registered with its operation, in the order
// registered.
func (s *Surface) Routes() []Marked {
	return append([]Marked(nil), s.marked...)
}
