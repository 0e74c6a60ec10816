package edge

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"net"
	"net/http"
	"strconv"
	"sync/atomic"

	"github.com/floe/floe/fault"
	"github.com/floe/floe/identity"
)

// state is what the edge knows of one request; one allocation, carried in
// the request's context.
type state struct {
	surface   string
	id        string
	route     string
	principal Principal
	refused   bool // authentication refused the request
	panicked  bool
	w         *writer
	body      body // the request's body as the edge hands it on

	// for the audit record (audit.go)
	op       string
	access   Access
	resource identity.Resource
	kind     fault.Kind
	client   string
}

type stateKey struct{}

func stateOf(ctx context.Context) *state {
	st, _ := ctx.Value(stateKey{}).(*state)
	if st == nil {
		return &state{w: &writer{}}
	}
	return st
}

// RequestID is the id of the request being served ("" outside the edge).
func RequestID(ctx context.Context) string {
	if st, _ := ctx.Value(stateKey{}).(*state); st != nil {
		return st.id
	}
	return ""
}

// PrincipalFrom is who the edge authenticated for this request; ok is
// false outside the edge or on a public route.
func PrincipalFrom(ctx context.Context) (Principal, bool) {
	if st, _ := ctx.Value(stateKey{}).(*state); st != nil && st.principal.Kind != "" {
		return st.principal, true
	}
	return Principal{}, false
}

// Route is the pattern the request matched ("" before routing).
func Route(ctx context.Context) string {
	if st, _ := ctx.Value(stateKey{}).(*state); st != nil {
		return st.route
	}
	return ""
}

// SetPrincipal records who a public route found the caller to be (the
// console's sign-in, a token exchange), for the access log and audit.
func SetPrincipal(ctx context.Context, p Principal) {
	if st, _ := ctx.Value(stateKey{}).(*state); st != nil {
		st.principal = p
	}
}

// maxClientRequestID bounds an id a client may bring: longer ones are
// replaced, so a log line cannot be stuffed through this header.
const maxClientRequestID = 128

// requestID accepts the client's X-Request-Id when it is short and
// printable ASCII (no spaces, no quotes that could break a log line), else
// makes one.
func requestID(r *http.Request) string {
	if id := r.Header.Get("X-Request-Id"); id != "" && len(id) <= maxClientRequestID && printable(id) {
		return id
	}
	return newRequestID()
}

func printable(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c <= ' ' || c > '~' || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

// Request ids floe makes: a random per-process prefix and a counter, unique
// across restarts and replicas without a random read per request.
var (
	idPrefix = func() string {
		var b [6]byte
		_, _ = rand.Read(b[:])
		return hex.EncodeToString(b[:]) + "-"
	}()
	idSeq atomic.Uint64
)

func newRequestID() string {
	b := make([]byte, 0, len(idPrefix)+12)
	b = append(b, idPrefix...)
	b = strconv.AppendUint(b, idSeq.Add(1), 10)
	return string(b)
}

// writer records status and size, and holds back the ServeMux's own plain
// 404/405 until the edge can answer in the protocol's shape: while the mux
// looks for a route (hold), writes are kept aside; a route of the surface
// claiming the request ends the hold.
type writer struct {
	http.ResponseWriter
	status      int
	bytes       int64
	wroteHeader bool
	hold        bool

	held       http.Header
	heldStatus int
}

func (w *writer) Header() http.Header {
	if w.hold {
		if w.held == nil {
			w.held = http.Header{}
		}
		return w.held
	}
	return w.ResponseWriter.Header()
}

func (w *writer) WriteHeader(code int) {
	if w.hold {
		w.heldStatus = code
		return
	}
	if w.wroteHeader {
		return
	}
	if code >= 200 || code == http.StatusSwitchingProtocols {
		w.wroteHeader = true
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *writer) Write(b []byte) (int, error) {
	if w.hold {
		return len(b), nil
	}
	if !w.wroteHeader {
		w.WriteHeader(http.StatusOK)
	}
	n, err := w.ResponseWriter.Write(b)
	w.bytes += int64(n)
	return n, err
}

// Unwrap lets http.ResponseController reach the connection (deadlines,
// flush) through the edge.
func (w *writer) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// Flush passes through for streaming answers.
func (w *writer) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		if !w.wroteHeader {
			w.WriteHeader(http.StatusOK)
		}
		f.Flush()
	}
}

// Hijack passes through for the console's websocket; the status is 101.
func (w *writer) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	h, ok := w.ResponseWriter.(http.Hijacker)
	if !ok {
		return nil, nil, errors.New("edge: the connection cannot be hijacked")
	}
	w.wroteHeader, w.status = true, http.StatusSwitchingProtocols
	return h.Hijack()
}
