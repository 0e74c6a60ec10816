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
	"strings"

	"github.com/floe/floe/catalog"
)

// maxBodyBytes caps a request body: the largest S3 Tables input is a
// CreateTable with an Iceberg schema, far below this; the body is read
// whole before the signature is checked, so the cap bounds what an
// unauthenticated caller can make the server hold.
const maxBodyBytes = 1 << 20

type access bool

const (
	read  access = false
	write access = true
)

// handlerFunc runs one operation; a nil output answers 204 No Content.
type handlerFunc func(req *request) (any, error)

type route struct {
	method  string
	pattern string
	access  access
	h       handlerFunc
}

// request is what a handler sees: the verified key, path parameters, query
// and body.
type request struct {
	ctx    context.Context
	key    catalog.APIKey
	params map[string]string
	query  url.Values
	body   []byte
}

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

// ServeHTTP authenticates, routes, runs and renders one request.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	out, err := s.serve(r)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if out == nil {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	buf, err := encode(out) // rendered whole before anything is written
	if err != nil {
		s.fail(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(buf)))
	w.Write(buf)
}

func (s *Server) serve(r *http.Request) (any, error) {
	body, err := io.ReadAll(http.MaxBytesReader(nil, r.Body, maxBodyBytes))
	if err != nil {
		var mb *http.MaxBytesError
		if errors.As(err, &mb) {
			return nil, badRequest("", fmt.Sprintf("the request body is larger than %d bytes", maxBodyBytes))
		}
		return nil, badRequest("", "the request body could not be read: "+err.Error())
	}
	key, err := s.authenticate(r, body)
	if err != nil {
		return nil, err
	}
	rt, params, err := s.match(r)
	if err != nil {
		return nil, err
	}
	if rt.access == write && key.Role != catalog.RoleReadWrite {
		return nil, accessDenied(fmt.Sprintf("API key %s is read-only; this operation changes the catalog and needs a readwrite key", key.ID))
	}
	return rt.h(&request{ctx: r.Context(), key: key, params: params, query: r.URL.Query(), body: body})
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

// match finds the route for the request's escaped path, so a parameter that
// holds an ARN ("arn:aws:s3tables:…:bucket/b", sent with its slash
// percent-encoded) stays one segment.
func (s *Server) match(r *http.Request) (route, map[string]string, error) {
	segs := strings.Split(strings.Trim(r.URL.EscapedPath(), "/"), "/")
	pathMatched := false
	for _, rt := range s.routes {
		params, ok := matchPattern(rt.pattern, segs)
		if !ok {
			continue
		}
		pathMatched = true
		if rt.method == r.Method {
			return rt, params, nil
		}
	}
	if pathMatched {
		return route{}, nil, &Error{Type: excMethodNotAllow, Status: http.StatusMethodNotAllowed,
			Message: fmt.Sprintf("%s is not an S3 Tables operation on %s", r.Method, r.URL.Path)}
	}
	return route{}, nil, notFound(fmt.Sprintf("%s %s is not an S3 Tables operation", r.Method, r.URL.Path))
}

func matchPattern(pattern string, segs []string) (map[string]string, bool) {
	ps := strings.Split(strings.Trim(pattern, "/"), "/")
	if len(ps) != len(segs) {
		return nil, false
	}
	var params map[string]string
	for i, p := range ps {
		if strings.HasPrefix(p, "{") {
			v, err := url.PathUnescape(segs[i])
			if err != nil || v == "" {
				return nil, false
			}
			if params == nil {
				params = map[string]string{}
			}
			params[strings.Trim(p, "{}")] = v
			continue
		}
		if p != segs[i] {
			return nil, false
		}
	}
	return params, true
}

// fail renders err as an S3 Tables error: the exception name in
// x-amzn-errortype and {"message": …}. Internal causes are logged here, once,
// and never sent.
func (s *Server) fail(w http.ResponseWriter, r *http.Request, err error) {
	e, internal := toError(err)
	if internal {
		s.log.Error("s3tables request failed", "method", r.Method, "path", r.URL.Path, "err", err)
	}
	buf, _ := json.Marshal(struct {
		Message string `json:"message"`
	}{e.Message})
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Amzn-Errortype", e.Type)
	w.WriteHeader(e.Status)
	w.Write(buf)
}
