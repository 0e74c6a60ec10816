package s3tables

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/edge"
	"github.com/floe/floe/fault"
)

// maxBodyBytes caps a request body: the largest S3 Tables input is a
// CreateTable with an Iceberg schema, far below this. The signature check
// reads the body only once the access key is known, so the cap bounds what
// a key holder (not any caller) can make the server hold.
const maxBodyBytes = 1 << 20

// bodyReadTimeout bounds reading a request body: maxBodyBytes arrives in
// well under this on any working link, and a client trickling bytes to hold
// a connection open is cut off (#23 item 2a).
const bodyReadTimeout = 30 * time.Second

type access bool

const (
	read  access = false
	write access = true
)

// handlerFunc runs one operation; a nil output answers 204 No Content.
type handlerFunc func(req *request) (any, error)

// request is what a handler sees: the verified key, path parameters, query
// and body.
type request struct {
	ctx   context.Context
	r     *http.Request
	key   catalog.APIKey
	by    string // the principal, as the recently deleted list records who dropped
	query url.Values
	body  []byte
}

// param is a path parameter, percent-decoded (an ARN's "/" arrives encoded
// and stays in its one segment).
func (r *request) param(name string) string { return r.r.PathValue(name) }

// decode reads the JSON body into v. Unknown fields are ignored, as the
// SDKs expect of a service that may be older than they are.
func (r *request) decode(v any) error {
	if len(bytes.TrimSpace(r.body)) == 0 {
		return nil
	}
	if err := json.Unmarshal(r.body, v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return badRequest(te.Field, fmt.Sprintf("field %q must be a JSON %s, not %s", te.Field, jsonKind(te.Type.Kind().String()), te.Value))
		}
		return badRequest("", "the request body is not valid JSON: "+err.Error())
	}
	return nil
}

func jsonKind(goKind string) string {
	switch goKind {
	case "string":
		return "string"
	case "slice", "array":
		return "array"
	case "struct", "map", "ptr":
		return "object"
	case "bool":
		return "boolean"
	}
	return "number"
}

// intParam reads an optional integer query parameter within [lo, hi].
func (r *request) intParam(name string, lo, hi, def int) (int, error) {
	v := r.query.Get(name)
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < lo || n > hi {
		return 0, badRequest(name, fmt.Sprintf("%s must be a whole number from %d to %d", name, lo, hi))
	}
	return n, nil
}

// bodyDeadline gives the request body a read deadline before the edge
// authenticates (the signature check reads the body); serve lifts it once
// the body is in, so a long operation is not cut off by it.
func (s *Server) bodyDeadline(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body != nil && r.Body != http.NoBody {
			// Not every ResponseWriter reaches a connection (httptest's
			// recorder does not); then there is no socket to hold open.
			_ = http.NewResponseController(w).SetReadDeadline(time.Now().Add(s.bodyTimeout))
		}
		next.ServeHTTP(w, r)
	})
}

// serve adapts an operation to the edge: it reads the body, checks a
// write operation's key may write, runs the handler and renders its answer
// (or hands its error to the encoder).
func (s *Server) serve(a access, h handlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, _ := edge.PrincipalFrom(r.Context())
		body, err := io.ReadAll(r.Body)
		if err != nil {
			s.encode(w, r, edge.BodyError(err))
			return
		}
		if len(body) > 0 {
			_ = http.NewResponseController(w).SetReadDeadline(time.Time{})
		}
		if a == write && p.Key.Role != catalog.RoleReadWrite {
			s.encode(w, r, fault.New(fault.Forbidden, "role",
				"API key %s is read-only; this operation changes the catalog and needs a readwrite key", p.Key.ID))
			return
		}
		out, err := h(&request{ctx: r.Context(), r: r, key: p.Key, by: p.String(), query: r.URL.Query(), body: body})
		if err == nil && out == nil {
			w.WriteHeader(http.StatusNoContent)
			return
		}
		var buf []byte
		if err == nil {
			buf, err = encode(out) // rendered whole before anything is written
		}
		if err != nil {
			s.encode(w, r, err)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", strconv.Itoa(len(buf)))
		w.Write(buf)
	})
}

func encode(out any) ([]byte, error) {
	if b, ok := out.(rendered); ok {
		return b, nil
	}
	b, err := json.Marshal(out)
	if err != nil {
		return nil, fmt.Errorf("encode response: %w", err)
	}
	return b, nil
}
