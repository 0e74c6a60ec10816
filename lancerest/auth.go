package lancerest

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strconv"
	"strings"

	"github.com/floe/floe/catalog"
)

// anonymousKey is the identity given to requests without a key when
// Config.Anonymous is on: read and write on every bucket.
var anonymousKey = catalog.APIKey{ID: "anonymous", Name: "anonymous", Role: catalog.RoleReadWrite}

// reqState travels in the request context: one allocation carries the
// request id, the caller's key and the logger.
type reqState struct {
	id     string
	key    catalog.APIKey
	authed bool
	log    *slog.Logger
}

type ctxKey struct{}

func stateFrom(ctx context.Context) *reqState {
	st, _ := ctx.Value(ctxKey{}).(*reqState)
	return st
}

// RequestID returns the request id floe assigned (also sent as X-Request-Id
// and as "instance" in error bodies); "" outside a request served here.
func RequestID(ctx context.Context) string {
	if st := stateFrom(ctx); st != nil {
		return st.id
	}
	return ""
}

// KeyFrom returns the API key that authenticated the request; ok is false
// when Authenticate has not run.
func KeyFrom(ctx context.Context) (key catalog.APIKey, ok bool) {
	if st := stateFrom(ctx); st != nil && st.authed {
		return st.key, true
	}
	return catalog.APIKey{}, false
}

func loggerFrom(ctx context.Context) *slog.Logger {
	if st := stateFrom(ctx); st != nil && st.log != nil {
		return st.log
	}
	return slog.Default()
}

// begin gives the request an id and a state in its context, unless an outer
// layer of this server already did.
func (s *Server) begin(w http.ResponseWriter, r *http.Request) (*http.Request, *reqState) {
	if st := stateFrom(r.Context()); st != nil {
		return r, st
	}
	st := &reqState{id: s.newRequestID(), log: s.log}
	w.Header().Set("X-Request-Id", st.id)
	return r.WithContext(context.WithValue(r.Context(), ctxKey{}, st)), st
}

func (s *Server) newRequestID() string {
	n := s.seq.Add(1)
	b := make([]byte, 0, len(s.idPrefix)+12)
	b = append(b, s.idPrefix...)
	b = strconv.AppendUint(b, n, 10)
	return string(b)
}

// Authenticate is the API-key middleware shared by every surface on the Lance
// address: it assigns a request id (X-Request-Id) if none was given, verifies
// the key from x-api-key or Authorization: Bearer, and puts it in the context
// (read it with KeyFrom). Failures are written with WriteError: no key → 401
// code 16 (unless Config.Anonymous), unknown key → 401 code 16.
func (s *Server) Authenticate(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r, st := s.begin(w, r)
		if e := s.authenticate(r, st); e != nil {
			writeAPIError(w, r, e, nil)
			return
		}
		next.ServeHTTP(w, r)
	})
}

func (s *Server) authenticate(r *http.Request, st *reqState) *Error {
	if st.authed {
		return nil
	}
	secret := r.Header.Get("X-Api-Key")
	if secret == "" {
		if h := r.Header.Get("Authorization"); h != "" {
			scheme, tok, ok := strings.Cut(h, " ")
			if !ok || !strings.EqualFold(scheme, "Bearer") || strings.TrimSpace(tok) == "" {
				return NewError(CodeUnauthenticated, "Authorization header is not a Bearer token",
					"Send the API key as x-api-key: <key> or Authorization: Bearer <key>.")
			}
			secret = strings.TrimSpace(tok)
		}
	}
	if secret == "" {
		if s.anonymous {
			st.key, st.authed = anonymousKey, true
			return nil
		}
		return NewError(CodeUnauthenticated, "API key required",
			"Send an API key as x-api-key: <key> or Authorization: Bearer <key>; create one with `floe token create` or on the console's API keys page.")
	}
	key, err := s.keys.verify(r.Context(), secret)
	if err != nil {
		if errors.Is(err, catalog.ErrNotFound) {
			return NewError(CodeUnauthenticated, "API key not recognised",
				"The key is unknown, revoked or expired; create a new one with `floe token create` or on the console's API keys page.")
		}
		return asError(err, CodeUnauthenticated)
	}
	st.key, st.authed = key, true
	return nil
}

// canRead and canWrite check the caller's key against a bucket.
func canRead(k catalog.APIKey, bucket string) *Error {
	if !k.CanRead(bucket) {
		return forbidden("this API key may not read bucket " + quote(bucket))
	}
	return nil
}

func canWrite(k catalog.APIKey, bucket string) *Error {
	if !k.CanRead(bucket) {
		return forbidden("this API key may not use bucket " + quote(bucket))
	}
	if !k.CanWrite(bucket) {
		return forbidden("this API key is read-only")
	}
	return nil
}
