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

	"github.com/floe/floe/authz"
	"github.com/floe/floe/catalog"
	"github.com/floe/floe/edge"
	"github.com/floe/floe/identity"
)

// maxBodyBytes caps a request body: the largest S3 Tables input is a
// CreateTable with an Iceberg schema, far below this. The signature check
// reads the body only once the access key is known, so the cap bounds what
// a key holder (not any caller) can make the server hold.
const maxBodyBytes = 1 << 20

type access bool

const (
	read  access = false
	write access = true
)

// handlerFunc runs one operation; a nil output answers 204 No Content.
type handlerFunc func(req *request) (any, error)

// request is what a handler sees: the verified key and what it may do,
// path parameters, query and body.
type request struct {
	ctx    context.Context
	r      *http.Request
	key    catalog.APIKey
	rights authz.Rights
	by     string // the principal, as the recently deleted list records who dropped
	query  url.Values
	body   []byte
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

// serve adapts an operation to the edge: it reads the body and the
// caller's rights (each handler asks them for what it needs on the place it
// names), runs the handler and renders its answer (or hands its error to
// the encoder). a is whether the operation writes, as the route table
// says it; the authorizer, not a, decides access.
func (s *Server) serve(a access, h handlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, _ := edge.PrincipalFrom(r.Context())
		s.describe(r)
		body, err := io.ReadAll(r.Body)
		if err != nil {
			s.encode(w, r, edge.BodyError(err))
			return
		}
		rights, err := s.authz.Rights(r.Context(), p)
		if err != nil {
			s.encode(w, r, err)
			return
		}
		out, err := h(&request{ctx: r.Context(), r: r, key: p.Key, rights: rights, by: p.String(), query: r.URL.Query(), body: body})
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

// describe names the operation's resource for the audit trail from the
// path or query (a bucket or table ARN, a namespace, a table name); a part
// that does not parse is left out, and the handler refuses it.
func (s *Server) describe(r *http.Request) {
	arn := r.PathValue("tableBucketARN")
	q := r.URL.Query()
	if arn == "" {
		arn = q.Get("tableBucketARN")
	}
	var res identity.Resource
	if arn != "" {
		b, err := s.parseBucketARN("tableBucketARN", arn)
		if err != nil {
			return
		}
		res.Bucket = b
	} else if ra := r.PathValue("resourceArn"); ra != "" {
		if b, err := s.parseBucketARN("resourceArn", ra); err == nil {
			res.Bucket = b
		} else if b, _, err := s.parseTableARN("resourceArn", ra); err == nil {
			res.Bucket = b // a table's ARN names its id, not its name
		}
	}
	if res.Bucket == "" {
		return
	}
	ns := r.PathValue("namespace")
	if ns == "" {
		ns = q.Get("namespace")
	}
	if ns != "" {
		res.Namespace = []string{ns}
		res.Table = r.PathValue("name")
		if res.Table == "" {
			res.Table = q.Get("name")
		}
	}
	edge.Describe(r.Context(), res)
}
