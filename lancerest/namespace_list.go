package lancerest

import (
	"errors"
	"net/http"
	"slices"
	"strings"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/fault"
	"github.com/floe/floe/identity"
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
// caller may see; deeper ids list child namespace names. A caller who may
// read the parent sees every child; one who holds grants only inside it
// sees the children those grants lie in, and its page tokens name only
// what it was shown.
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
		return s.listBuckets(w, r, c, opt)
	}
	if e := validateNamespaceID(c.id); e != nil {
		return e
	}
	if e := c.see(nsResource(c.id)); e != nil {
		return e
	}
	if e := s.namespaceVisible(ctx, c.id, c.delim); e != nil {
		return e
	}
	var parent []string // nil is the bucket's top level
	if len(c.id) > 1 {
		parent = c.id[1:]
	}
	if all, names := c.rights.Children(nsResource(c.id)); !all {
		page, next, e := pageNames(names, opt, func(name string) (bool, error) {
			_, err := s.store.GetNamespace(ctx, c.id[0], append(slices.Clip(parent), name))
			return err == nil, ignoreNotFound(err)
		})
		if e != nil {
			return e
		}
		resp.Namespaces, resp.PageToken = page, catalog.PageToken(next)
		return writeJSON(w, resp)
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

// listBuckets is the root listing: the Lance (and unset) buckets the
// caller may see.
func (s *Server) listBuckets(w http.ResponseWriter, r *http.Request, c *call, opt catalog.ListOptions) *Error {
	ctx := r.Context()
	resp := listNamespacesResponse{Namespaces: []string{}}
	if all, names := c.rights.Children(identity.Resource{}); !all {
		page, next, e := pageNames(names, opt, func(name string) (bool, error) {
			b, err := s.store.GetBucket(ctx, name)
			return err == nil && b.Format != catalog.FormatIceberg, ignoreNotFound(err)
		})
		if e != nil {
			return e
		}
		resp.Namespaces, resp.PageToken = page, catalog.PageToken(next)
		return writeJSON(w, resp)
	}
	buckets, next, err := s.store.ListBuckets(ctx, opt)
	if err != nil {
		return asError(err, CodeNamespaceNotFound)
	}
	for _, b := range buckets {
		if b.Format != catalog.FormatIceberg {
			resp.Namespaces = append(resp.Namespaces, b.Name)
		}
	}
	resp.PageToken = catalog.PageToken(next)
	return writeJSON(w, resp)
}

// pageNames pages through the sorted names a caller's grants lead to,
// keeping those keep says exist: the next cursor is the last name shown,
// and only when names remain after it.
func pageNames(names []string, opt catalog.ListOptions, keep func(string) (bool, error)) (page []string, next string, e *Error) {
	limit := opt.Limit
	if limit <= 0 {
		limit = catalog.DefaultPageSize
	}
	page = []string{}
	// A cursor may be a full namespace name (the catalog's own listings
	// make those); the names here are one level.
	after := opt.After[strings.LastIndexByte(opt.After, '.')+1:]
	i, _ := slices.BinarySearch(names, after)
	for ; i < len(names); i++ {
		if names[i] <= after {
			continue
		}
		if len(page) == limit {
			return page, page[len(page)-1], nil
		}
		ok, err := keep(names[i])
		if err != nil {
			return nil, "", asError(err, CodeNamespaceNotFound)
		}
		if ok {
			page = append(page, names[i])
		}
	}
	return page, "", nil
}

func ignoreNotFound(err error) error {
	if errors.Is(err, fault.NotFound) {
		return nil
	}
	return err
}
