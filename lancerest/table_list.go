package lancerest

import (
	"encoding/json"
	"errors"
	"net/http"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/fault"
	"github.com/floe/floe/identity"
)

type listTablesResponse struct {
	Tables    []string `json:"tables"`
	PageToken string   `json:"page_token,omitempty"`
}

// includeDeclared reads include_declared (default true) from the body or query.
func includeDeclared(c *call, req listRequest) (bool, *Error) {
	if req.IncludeDeclared != nil {
		return *req.IncludeDeclared, nil
	}
	return queryBool(c, "include_declared", true)
}

// keepTable applies include_declared=false: a table only declared in the
// catalog counts once the SDK has written its dataset.
func (s *Server) keepTable(r *http.Request, t catalog.Table, withDeclared bool) bool {
	if t.Format != catalog.FormatLance || t.State == catalog.StateDeregistered {
		return false
	}
	return withDeclared || s.observeCreated(r.Context(), t)
}

// listTables: GET /v1/namespace/{id}/table/list. Names of the Lance tables
// directly in a namespace; one catalog query when the namespace has tables.
func listTables(s *Server, w http.ResponseWriter, r *http.Request, c *call) *Error {
	req, opt, e := pageParams(r, c)
	if e == nil {
		e = nameCursor(&opt)
	}
	if e != nil {
		return e
	}
	withDeclared, e := includeDeclared(c, req)
	if e != nil {
		return e
	}
	ctx := r.Context()
	resp := listTablesResponse{Tables: []string{}}
	if len(c.id) == 0 {
		return writeJSON(w, resp) // tables live in namespaces of buckets, never at the root
	}
	if e := validateNamespaceID(c.id); e != nil {
		return e
	}
	res := nsResource(c.id)
	if e := c.see(res); e != nil {
		return e
	}
	if len(c.id) == 1 {
		if _, e := s.lanceBucket(ctx, c.id[0], c.delim); e != nil {
			return e
		}
		return writeJSON(w, resp)
	}
	if all, names := c.rights.Tables(res); !all {
		// Only some of the namespace's tables are the caller's to see: look
		// up those its grants name (the namespace still has to exist).
		if e := s.namespaceVisible(ctx, c.id, c.delim); e != nil {
			return e
		}
		page, next, e := pageNames(names, opt, func(name string) (bool, error) {
			t, err := s.store.GetTable(ctx, catalog.TableRef{Bucket: c.id[0], Namespace: c.id[1:], Name: name})
			if err != nil {
				return false, ignoreNotFound(err)
			}
			return s.keepTable(r, t, withDeclared), nil
		})
		if e != nil {
			return e
		}
		resp.Tables, resp.PageToken = page, catalog.PageToken(next)
		return writeJSON(w, resp)
	}
	// Names only: the listing needs nothing else, and a 1,000-table page
	// must stay cheap: a page the catalog has cached keeps its encoded
	// answer, so a repeated listing encodes nothing. Deregistered tables
	// are filtered by the query.
	page, err := s.store.ListTableNamePage(ctx, c.id[0], c.id[1:], catalog.ListTablesOptions{
		ListOptions: opt, Format: catalog.FormatLance, IncludeDeclared: withDeclared,
	})
	if errors.Is(err, fault.NotFound) {
		return nsNotFound(c.id, c.delim)
	}
	if err != nil {
		return asError(err, CodeNamespaceNotFound)
	}
	if len(page.Names) == 0 && opt.After == "" {
		// An empty answer may also mean a bucket declared for Iceberg, which
		// the Lance API does not serve; only then pay for the check.
		if e := s.namespaceVisible(ctx, c.id, c.delim); e != nil {
			return e
		}
	}
	body := page.Memo(func() []byte {
		// Strings only: Marshal cannot fail.
		b, _ := json.Marshal(listTablesResponse{Tables: page.Names, PageToken: catalog.PageToken(page.Next)})
		return b
	})
	return writeJSONBytes(w, body)
}

// listAllTables: GET /v1/table. Full ids of every Lance table the caller
// may read. A caller who may read everything pages through the catalog as
// it is; any other looks only in the buckets its grants lie in, keeps the
// tables it may read and names its next page by the last one it was shown,
// so a token never carries a name it may not read.
func listAllTables(s *Server, w http.ResponseWriter, r *http.Request, c *call) *Error {
	req, opt, e := pageParams(r, c)
	if e != nil {
		return e
	}
	withDeclared, e := includeDeclared(c, req)
	if e != nil {
		return e
	}
	all, buckets := c.rights.Children(identity.Resource{})
	if all {
		buckets = nil // every bucket
	} else if buckets == nil {
		buckets = []string{} // none
	}
	limit := opt.Limit
	if limit <= 0 {
		limit = catalog.DefaultPageSize
	}
	resp := listTablesResponse{Tables: make([]string, 0, min(limit, 64))}
	id := make([]string, 0, 8)
	cursor := opt.After
	for {
		items, next, err := s.store.ListAllTables(r.Context(), catalog.FormatLance, buckets, cursor, limit)
		if err != nil {
			return asError(err, CodeNamespaceNotFound)
		}
		for i, t := range items {
			if !all && !c.rights.VisibleTable(t.Bucket, t.Namespace, t.Name) || !s.keepTable(r, t, withDeclared) {
				continue
			}
			id = append(append(append(id[:0], t.Bucket), t.Namespace...), t.Name)
			resp.Tables = append(resp.Tables, joinIdentifier(id, c.delim))
			if !all && len(resp.Tables) == limit {
				if i < len(items)-1 || next != "" {
					resp.PageToken = catalog.TableCursor(t)
				}
				return writeJSON(w, resp)
			}
		}
		if all || next == "" {
			// Everything readable: one catalog page, as the catalog pages it.
			resp.PageToken = next
			return writeJSON(w, resp)
		}
		cursor = next
	}
}
