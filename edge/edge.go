// Package edge is the one front door of floe's HTTP surfaces (console,
// Lance Namespace REST, Lance task API, Iceberg REST, S3 Tables). Every
// request passes the same steps in the same order:
//
//  1. a request id: the client's X-Request-Id when it is short and
//     printable, else a new one; always answered (plus any extra header a
//     protocol names, e.g. x-amzn-RequestId);
//  2. panic recovery: a handler's panic answers 500 in the protocol's shape
//     with the request id, and the process lives;
//  3. a body cap, checked against Content-Length before anything is read,
//     and a read deadline for the body (DefaultBodyTimeout), so no client
//     holds a connection by trickling it;
//  4. routing by net/http.ServeMux patterns; an unknown route or a wrong
//     method (405 with Allow) is answered by the protocol's encoder;
//  5. one authentication step that yields a Principal for the handler,
//     before the handler reads the body; a refusal (or an unknown route)
//     is answered at once, without waiting for a body still arriving;
//  6. one access log line and one metrics series per request;
//  7. one audit record for every write and every refusal (audit.go): each
//     route names its operation and whether it writes (Op), the handler
//     names the resource once it has parsed it (Describe).
//
// A surface keeps one route table (Handle calls in one file) and one error
// Encoder for its protocol; nothing else about requests lives in a surface.
package edge

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"
	"sync/atomic"
	"time"

	"github.com/floe/floe/fault"
)

// Encoder writes err as the protocol's error body. err is a *fault.Error
// (map its Kind once), or anything else for a server fault, which the
// encoder answers with 500 and a sentence naming the request id, never the
// error's text.
type Encoder func(w http.ResponseWriter, r *http.Request, err error)

// Authenticator finds who sent a request. A refusal is a *fault.Error of
// kind Unauthenticated (or Unavailable while the store that holds keys is
// away); any other error is a server fault.
type Authenticator interface {
	Authenticate(r *http.Request) (Principal, error)
}

// AuthFunc adapts a function to Authenticator.
type AuthFunc func(r *http.Request) (Principal, error)

// Authenticate calls f.
func (f AuthFunc) Authenticate(r *http.Request) (Principal, error) { return f(r) }

// Config describes one surface.
type Config struct {
	// Name labels the surface in logs and metrics: console, lance, taskapi,
	// iceberg, s3tables.
	Name string
	// Encode renders every error of the surface (required).
	Encode Encoder
	// Auth authenticates every route not registered with Public; nil means
	// every route is public (then Handle's routes see the zero Principal).
	Auth Authenticator
	// MaxBody caps a request body (required; each surface names its own
	// constant with its reason).
	MaxBody int64
	// RequestIDHeaders are more response headers that carry the request id
	// (S3 Tables clients read x-amzn-RequestId).
	RequestIDHeaders []string
	// Wrap wraps the router, inside the request id, recovery and access log
	// and outside routing (the console's sessions, CSRF check, compression
	// and security headers).
	Wrap func(http.Handler) http.Handler
	Log  *slog.Logger
	// Metrics records every request; nil records nothing.
	Metrics *Metrics
	// Quiet lists route patterns whose access log line is at debug level
	// (static files, the live socket), so the log is about what people did.
	Quiet []string
	// BodyTimeout bounds how long a request body may take to arrive once
	// the headers are in; zero is DefaultBodyTimeout.
	BodyTimeout time.Duration
	// Auditor records every write and every refusal (see audit.go); nil
	// records nothing.
	Auditor Auditor
}

// Surface is one protocol's routes behind the edge.
type Surface struct {
	cfg   Config
	mux   *http.ServeMux
	quiet map[string]bool
	root  http.Handler
	// bodyTimeout is Config.BodyTimeout (a time.Duration); SetBodyTimeout
	// changes it.
	bodyTimeout atomic.Int64
	// marked and unmarked list the routes with and without Op, in order.
	marked     []Marked
	unmarked   []string
	auditReads bool
}

// New builds a surface; register its routes with Handle, then serve
// Handler.
func New(cfg Config) *Surface {
	if cfg.Encode == nil || cfg.Name == "" || cfg.MaxBody <= 0 {
		panic("edge: Config needs Name, Encode and MaxBody")
	}
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	s := &Surface{cfg: cfg, mux: http.NewServeMux(), quiet: map[string]bool{}}
	s.SetBodyTimeout(cfg.BodyTimeout)
	if cfg.Auditor != nil {
		s.auditReads = cfg.Auditor.AuditReads()
	}
	for _, q := range cfg.Quiet {
		s.quiet[q] = true
	}
	var inner http.Handler = http.HandlerFunc(s.route)
	if cfg.Wrap != nil {
		inner = cfg.Wrap(inner)
	}
	s.root = inner
	return s
}

// Option changes how one route is served.
type Option func(*routeOpts)

type routeOpts struct {
	public bool
	auth   Authenticator
	op     string
	access Access
}

// Public serves a route without authentication (sign-in, health, the
// OAuth token exchange, static files).
func Public() Option { return func(o *routeOpts) { o.public = true } }

// WithAuth authenticates a route with a instead of the surface's
// authenticator.
func WithAuth(a Authenticator) Option { return func(o *routeOpts) { o.auth = a } }

// Handle registers h for a ServeMux pattern ("POST /v1/table/{id}/describe").
func (s *Surface) Handle(pattern string, h http.Handler, opts ...Option) {
	var o routeOpts
	for _, f := range opts {
		f(&o)
	}
	auth := s.cfg.Auth
	if o.auth != nil {
		auth = o.auth
	}
	if o.public {
		auth = nil
	}
	if o.op == "" {
		s.unmarked = append(s.unmarked, pattern)
	} else {
		s.marked = append(s.marked, Marked{Pattern: pattern, Operation: o.op, Access: o.access})
	}
	s.mux.Handle(pattern, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		st := stateOf(r.Context())
		st.route = pattern
		st.op, st.access = o.op, o.access
		st.w.hold = false
		if auth != nil {
			p, err := auth.Authenticate(r)
			if err != nil {
				st.principal = p // what was learned (a key id), for the log
				st.refused = true
				cutBody(st)
				s.cfg.Encode(w, r, err)
				return
			}
			st.principal = p
		}
		h.ServeHTTP(w, r)
	}))
}

// HandleFunc is Handle for a function.
func (s *Surface) HandleFunc(pattern string, h func(http.ResponseWriter, *http.Request), opts ...Option) {
	s.Handle(pattern, http.HandlerFunc(h), opts...)
}

// Handler serves the surface.
func (s *Surface) Handler() http.Handler { return s }

// Name is the surface's label.
func (s *Surface) Name() string { return s.cfg.Name }

// ServeHTTP runs the edge's steps around the routed handler.
func (s *Surface) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	st := &state{surface: s.cfg.Name, id: requestID(r)}
	h := w.Header()
	h.Set("X-Request-Id", st.id)
	for _, name := range s.cfg.RequestIDHeaders {
		h.Set(name, st.id)
	}
	ww := &writer{ResponseWriter: w}
	st.w = ww
	r = r.WithContext(context.WithValue(r.Context(), stateKey{}, st))
	defer s.finish(ww, r, st, start)
	s.startBody(w, r, st)
	if r.ContentLength > s.cfg.MaxBody {
		cutBody(st)
		s.cfg.Encode(ww, r, tooLarge(s.cfg.MaxBody))
		return
	}
	s.root.ServeHTTP(ww, r)
}

// route is the innermost step: the mux, then the protocol's own 404/405.
func (s *Surface) route(w http.ResponseWriter, r *http.Request) {
	st := stateOf(r.Context())
	st.w.hold = true
	s.mux.ServeHTTP(w, r)
	if !st.w.hold {
		return
	}
	// The mux's own 404 or 405 ran and was held back (see writer): answer
	// in the protocol's shape instead.
	st.route = "unmatched"
	st.w.hold = false
	cutBody(st)
	if allow := st.w.held.Get("Allow"); st.w.heldStatus == http.StatusMethodNotAllowed && allow != "" {
		w.Header().Set("Allow", allow)
		s.cfg.Encode(w, r, &fault.Error{Kind: fault.MethodNotAllowed, Field: "method",
			Message: fmt.Sprintf("%s is not allowed on %s; use %s", r.Method, r.URL.Path, allow)})
		return
	}
	s.cfg.Encode(w, r, &fault.Error{Kind: fault.NotFound, Field: "route",
		Message: fmt.Sprintf("no %s route %s %s", s.cfg.Name, r.Method, r.URL.Path)})
}

// errPanic is what a recovered panic is answered as: a server fault.
var errPanic = errors.New("edge: the handler panicked")

func (s *Surface) finish(ww *writer, r *http.Request, st *state, start time.Time) {
	if v := recover(); v != nil {
		if v == http.ErrAbortHandler {
			panic(v)
		}
		s.cfg.Log.Error("handler panicked", "surface", s.cfg.Name, "route", st.route, "request_id", st.id,
			"panic", fmt.Sprint(v), "stack", string(debug.Stack()))
		if !ww.wroteHeader {
			ww.hold = false
			s.cfg.Encode(ww, r, errPanic)
		}
		st.panicked = true
	}
	status := ww.status
	if status == 0 {
		status = http.StatusOK
	}
	elapsed := time.Since(start)
	route := st.route
	if route == "" {
		route = "unmatched"
	}
	if s.cfg.Metrics != nil {
		s.cfg.Metrics.observe(s.cfg.Name, route, status, elapsed)
	}
	s.audit(r, st, status, start, elapsed)
	level := slog.LevelInfo
	if s.quiet[route] {
		level = slog.LevelDebug
	}
	if status >= 500 {
		level = slog.LevelWarn
	}
	ctx := r.Context()
	if !s.cfg.Log.Enabled(ctx, level) {
		return
	}
	s.cfg.Log.LogAttrs(ctx, level, "http",
		slog.String("surface", s.cfg.Name),
		slog.String("method", r.Method),
		slog.String("route", route),
		slog.String("path", r.URL.Path),
		slog.Int("status", status),
		slog.Int64("bytes", ww.bytes),
		slog.Duration("duration", elapsed),
		slog.String("principal", st.principal.String()),
		slog.String("request_id", st.id),
		slog.String("client", r.RemoteAddr),
	)
}

func tooLarge(limit int64) error {
	return &fault.Error{Kind: fault.TooLarge, Field: "body",
		Message: fmt.Sprintf("the request body is larger than the %d bytes this API accepts", limit)}
}

// BodyError turns a body read's failure into the domain error a surface
// answers: over the cap is TooLarge; a body that did not arrive within the
// body deadline, and anything else (the client went away, a malformed
// chunked body), is Invalid.
func BodyError(err error) error {
	if err == nil {
		return nil
	}
	var mb *http.MaxBytesError
	if errors.As(err, &mb) {
		return tooLarge(mb.Limit)
	}
	if isTimeout(err) {
		return errBodyTimeout // the edge's body deadline passed
	}
	if _, ok := fault.As(err); ok {
		return err
	}
	return &fault.Error{Kind: fault.Invalid, Field: "body", Message: "the request body could not be read: " + err.Error()}
}
