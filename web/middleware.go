package web

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/floe/floe/edge"
	"github.com/floe/floe/fault"
	"github.com/floe/floe/handlers"
	"github.com/floe/floe/identity"
	"github.com/floe/floe/static"
)

// maxBodyBytes caps every request body (the edge enforces it).
const maxBodyBytes = handlers.MaxBodyBytes

// readyTimeout bounds the readiness ping so a stuck database fails the probe
// instead of hanging it.
const readyTimeout = 2 * time.Second

// contentSecurityPolicy allows only our own scripts and styles: no inline
// script, no inline style, no framing.
const contentSecurityPolicy = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"

// securityHeaders go on every answer, the edge's own included (it runs
// outside the edge).
func securityHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", contentSecurityPolicy)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "same-origin")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Cross-Origin-Opener-Policy", "same-origin")
		next.ServeHTTP(w, r)
	})
}

// sessionless reports the public routes that never read the session:
// loading it would cost a store read — and, with the idle timeout, a write
// — for every static file a page pulls in. /live reads the session itself,
// read-only.
func sessionless(path string) bool {
	switch path {
	case "/healthz", "/readyz", "/favicon.ico", "/live":
		return true
	}
	return strings.HasPrefix(path, static.Prefix)
}

// withSession loads and saves the session around routing (the edge's Wrap),
// so the authentication step and the error pages can read it.
func (s *Server) withSession(next http.Handler) http.Handler {
	loaded := s.sessions.LoadAndSave(next)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if sessionless(r.URL.Path) {
			next.ServeHTTP(w, r)
			return
		}
		loaded.ServeHTTP(w, r)
	})
}

// crossOrigin refuses state-changing requests from other sites (Go's
// Sec-Fetch-Site / Origin check), rendering the console's own 403 page.
func (s *Server) crossOrigin(next http.Handler) http.Handler {
	c := http.NewCrossOriginProtection()
	c.SetDenyHandler(http.HandlerFunc(s.h.CrossOrigin))
	return c.Handler(next)
}

// authenticate is the console's authentication step: the session's user,
// a principal of kind user with the user's role. No session user is
// Unauthenticated, which the encoder answers with the sign-in page.
func (s *Server) authenticate(r *http.Request) (edge.Principal, error) {
	if !s.h.SessionLoaded(r.Context()) {
		return edge.Principal{}, errSessionless
	}
	u, ok := s.h.SessionUser(r.Context())
	if !ok {
		return edge.Principal{}, &fault.Error{Kind: fault.Unauthenticated, Field: "session", Message: "Sign in to use the console."}
	}
	return u.Principal(), nil
}

// errSessionless is a route table mistake: a signed-in route under a path
// that sessionless skips.
var errSessionless = errors.New("web: a signed-in route under a path whose session is never loaded")

// need is what a console route asks of the authorizer before its handler
// runs: a privilege on the place its path names (handlers.PlaceOf), or on
// everything; see (no privilege) asks only that the user may see that
// place — read it, or something inside it. A form whose place is in its
// fields (a new bucket's name, a grant's grantee) is asked again by its
// handler.
type need struct {
	priv       identity.Privilege
	everywhere bool
}

var (
	see = need{}
	// read: pages of a table's own content (a table or view page, Browse
	// Data, Connect), which need read on it, not merely something inside.
	read = need{priv: identity.Read}
)

func on(priv identity.Privilege) need     { return need{priv: priv} }
func global(priv identity.Privilege) need { return need{priv: priv, everywhere: true} }

// guard refuses a request the user's grants do not allow, with the
// authorizer's sentence, and hands the rights it read to the handler.
func guard(h *handlers.Handlers, n need, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rt, err := h.Rights(r.Context())
		if err != nil {
			h.Encode(w, r, err)
			return
		}
		res := handlers.PlaceOf(r)
		if n.everywhere {
			res = identity.Resource{}
		}
		switch {
		case n.priv != "":
			err = rt.Decide(n.priv, res)
		case !rt.Visible(res):
			err = rt.Decide(identity.Read, res)
		}
		if err != nil {
			h.Forbidden(w, r, err)
			return
		}
		next.ServeHTTP(w, handlers.WithRights(r, rt))
	})
}

func healthz(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	_, _ = w.Write([]byte("ok\n"))
}

func (s *Server) readyz(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), readyTimeout)
	defer cancel()
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	if err := s.db.Ping(ctx); err != nil {
		s.log.Warn("readiness check failed", "err", err, "request_id", edge.RequestID(r.Context()))
		http.Error(w, "catalog database unreachable", http.StatusServiceUnavailable)
		return
	}
	if !s.storageReady(w, r) {
		return
	}
	_, _ = w.Write([]byte("ready\n"))
}
