package lancerest

import (
	"net/http"

	"github.com/floe/floe/catalog"
)

type listNamespacesResponse struct {
	Namespaces []string `json:"namespaces"`
	PageToken  string   `json:"page_token,omitempty"`
}

// pageParams reads page_token and limit from the query, or from the body of
// a POST.
func pageParams(r *http.Request, c *call) (req listRequest, opt catalog.ListOptions, e *Error) {
	if r.Method == http.MethodPost {
		if e = withBody(r, func(b []byte) (e *Error) { req, e = decodeList(b, c.id); return }); e != nil {
			return
		}
	}
	if req.PageToken != nil {
		opt.After = *req.PageToken
	} else if opt.After, e = queryString(c, "page_token"); e != nil {
		return
	}
	if req.Limit != nil {
		if *req.Limit < 0 {
			e = invalid("limit must be a non-negative integer", "Pass limit 100, or leave it out for the default page size.")
			return
		}
		opt.Limit = *req.Limit
	} else if opt.Limit, e = queryLimit(c); e != nil {
		return
	}
	if opt.Limit > catalog.MaxPageSize {
		opt.Limit = catalog.MaxPageSize
	}
	return
}

// nameCursor turns the page token of a listing by name (namespaces,
// tables) back into its cursor; a token this server did not issue is a
// 400, never a listing started somewhere else.
func nameCursor(opt *catalog.ListOptions) *Error {
	after, err := catalog.ParsePageToken(opt.After)
	if err != nil {
		return invalid(err.Error(), "Pass the page_token a listing returned unchanged, or leave it out for the first page.")
	}
	opt.After = after
	return nil
}

// listNamespaces: GET /v1/namespace/{id}/list. The root lists the buckets the
// key may see; deeper ids list child namespace names.
func listNamespaces(s *Server, w http.ResponseWriter, r *http.Request, c *call) *Error {
	_, opt, e := pageParams(r, c)
	if e == nil {
		e = nameCursor(&opt)
	}
	if e != nil {
		return e
	}
	ctx := r.Context()
	resp := listNamespacesResponse{Namespaces: []string{}}
	if len(c.id) == 0 {
		buckets, next, err := s.store.ListBuckets(ctx, opt)
		if err != nil {
			return asError(err, CodeNamespaceNotFound)
		}
		for _, b := range buckets {
			if b.Format != catalog.FormatIceberg && c.key.CanRead(b.Name) {
				resp.Namespaces = append(resp.Namespaces, b.Name)
			}
		}
		resp.PageToken = catalog.PageToken(next)
		return writeJSON(w, resp)
	}
	if e := validateNamespaceID(c.id); e != nil {
		return e
	}
	if e := canRead(c.key, c.id[0]); e != nil {
		return e
	}
	if e := s.namespaceVisible(ctx, c.id, c.delim); e != nil {
		return e
	}
	var parent []string // nil is the bucket's top level
	if len(c.id) > 1 {
		parent = c.id[1:]
	}
	items, next, err := s.store.ListNamespaces(ctx, c.id[0], parent, opt)
	if err != nil {
		return asError(err, CodeNamespaceNotFound)
	}
	for _, ns := range items {
		if len(ns.Levels) > 0 {
			resp.Namespaces = append(resp.Namespaces, ns.Levels[len(ns.Levels)-1])
		}
	}
	resp.PageToken = catalog.PageToken(next)
	return writeJSON(w, resp)
}
