package web

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"net/http"
	"net/url"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"

	"github.com/floe/floe/handlers"
)

// maxBodyBytes caps every request body: console forms are a few short fields,
// so anything near this size is not a form of ours.
const maxBodyBytes = 64 << 10

// readyTimeout bounds the readiness ping so a stuck database fails the probe
// instead of hanging it.
const readyTimeout = 2 * time.Second

// contentSecurityPolicy allows only our own scripts and styles: no inline
// script, no inline style, no framing.
const contentSecurityPolicy = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"

// requestID gives every request a fresh id (never trusting one sent by the
// client), in the context for logs and in the response for bug reports.
func requestID(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var b [8]byte
		_, _ = rand.Read(b[:])
		id := hex.EncodeToString(b[:])
		w.Header().Set("X-Request-Id", id)
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), middleware.RequestIDKey, id)))
	})
}

// instrument logs each request once and records it in the metrics, labelled
// by route pattern (not raw path) so bucket names cannot explode the series.
func (s *Server) instrument(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		ww := middleware.NewWrapResponseWriter(w, r.ProtoMajor)
		next.ServeHTTP(ww, r)
		elapsed := time.Since(start)
		status := ww.Status()
		if status == 0 {
			status = http.StatusOK
		}
		route := "unmatched"
		if rc := chi.RouteContext(r.Context()); rc != nil && rc.RoutePattern() != "" {
			route = rc.RoutePattern()
		}
		s.metrics.observe(r.Method, route, status, elapsed)
		s.log.Log(r.Context(), accessLevel(route), "http", "method", r.Method, "path", r.URL.Path, "route", route, "status", status,
			"bytes", ww.BytesWritten(), "duration", elapsed, "request_id", middleware.GetReqID(r.Context()))
	})
}

// accessLevel keeps the access log about what people did: every page view
// fetches a handful of static files and opens /live, which would otherwise
// outnumber the lines worth reading. They still log at debug.
func accessLevel(route string) slog.Level {
	switch route {
	case "/live", "/static/*":
		return slog.LevelDebug
	}
	return slog.LevelInfo
}

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

func limitBody(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ContentLength > maxBodyBytes {
			http.Error(w, "The request body is larger than the console accepts.", http.StatusRequestEntityTooLarge)
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, maxBodyBytes)
		next.ServeHTTP(w, r)
	})
}

// crossOrigin refuses state-changing requests from other sites (Go's
// Sec-Fetch-Site / Origin check), rendering the console's own 403 page.
func (s *Server) crossOrigin() *http.CrossOriginProtection {
	c := http.NewCrossOriginProtection()
	c.SetDenyHandler(s.sessions.LoadAndSave(s.withUser(http.HandlerFunc(s.h.CrossOrigin))))
	return c
}

// withUser puts the session's user (if any) into the context without
// requiring one, for pages that render either way (404, refusals).
func (s *Server) withUser(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if u, ok := s.h.SessionUser(r.Context()); ok {
			r = r.WithContext(handlers.WithUser(r.Context(), u))
		}
		next.ServeHTTP(w, r)
	})
}

// requireUser sends anonymous visitors to /login; htmx requests get
// HX-Redirect so the whole page navigates rather than a fragment swapping in.
func (s *Server) requireUser(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u, ok := s.h.SessionUser(r.Context())
		if !ok {
			to := "/login"
			if r.Method == http.MethodGet && r.URL.Path != "/" {
				to += "?next=" + url.QueryEscape(r.URL.RequestURI())
			}
			if r.Header.Get("HX-Request") == "true" {
				w.Header().Set("HX-Redirect", to)
				w.WriteHeader(http.StatusUnauthorized)
				return
			}
			http.Redirect(w, r, to, http.StatusSeeOther)
			return
		}
		next.ServeHTTP(w, r.WithContext(handlers.WithUser(r.Context(), u)))
	})
}

// requireWriter refuses every non-read method to users who may not write.
func requireWriter(h *handlers.Handlers) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			switch r.Method {
			case http.MethodGet, http.MethodHead, http.MethodOptions:
			default:
				if u, _ := handlers.UserFrom(r.Context()); !u.CanWrite() {
					h.Forbidden(w, r)
					return
				}
			}
			next.ServeHTTP(w, r)
		})
	}
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
		s.log.Warn("readiness check failed", "err", err, "request_id", middleware.GetReqID(r.Context()))
		http.Error(w, "catalog database unreachable", http.StatusServiceUnavailable)
		return
	}
	if !s.storageReady(w, r) {
		return
	}
	_, _ = w.Write([]byte("ready\n"))
}
