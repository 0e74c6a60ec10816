package lancerest

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strconv"

	"github.com/floe/floe/apikey"
	"github.com/floe/floe/catalog"
	"github.com/floe/floe/fault"
)

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

// authenticate checks the request's API key once (apikey: x-api-key or
// Bearer, the shared cache, anonymous mode lets only key-less requests
// through) and keeps it in the request state.
func (s *Server) authenticate(r *http.Request, st *reqState) *Error {
	if st.authed {
		return nil
	}
	key, f := s.auth.Check(r)
	if f != nil {
		if f.Reason == apikey.Failed && errors.Is(f.Err, fault.Unavailable) {
			return &Error{Code: CodeServiceUnavailable, Msg: "catalog unavailable",
				Detail: "The API key could not be checked: the catalog database is unreachable (stopped or restarting); retry shortly.", cause: f.Err}
		}
		if f.Reason == apikey.Failed {
			return &Error{Code: CodeInternal, Msg: "internal error", Detail: "The API key could not be checked; the server log has the cause under this request id.", cause: f.Err}
		}
		return NewError(CodeUnauthenticated, "API key not accepted", f.Message+".")
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
