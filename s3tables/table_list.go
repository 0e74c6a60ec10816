package s3tables

import (
	"strconv"
	"strings"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/identity"
)

// listTables answers ListTables.
func (s *Server) listTables(req *request) (any, error) {
	bucket, err := s.bucketParam(req, see)
	if err != nil {
		return nil, err
	}
	limit, err := req.intParam("maxTables", minPage, maxPage, maxPage)
	if err != nil {
		return nil, err
	}
	cursor, err := decodeToken(req.query.Get("continuationToken"))
	if err != nil {
		return nil, err
	}
	prefix := req.query.Get("prefix")
	b, err := s.cfg.Store.GetBucket(req.ctx, bucket)
	if err != nil {
		return nil, err
	}
	ns := req.query.Get("namespace")
	var levels []string
	if ns != "" {
		if levels, err = namespaceLevels("namespace", ns); err != nil {
			return nil, err
		}
		// Checked on every call: an empty namespace can go without
		// changing the table generation the page cache relies on.
		if _, err := s.cfg.Store.GetNamespace(req.ctx, bucket, levels); err != nil {
			return nil, err
		}
	}
	if !req.rights.Can(identity.Read, identity.Resource{Bucket: bucket, Namespace: levels}) {
		// Only some tables are the caller's to see: no shared page cache.
		return s.listSomeTables(req, b, levels, prefix, cursor, limit)
	}
	// The page is a function of these inputs and the table rows, so a
	// rendered page stays true while the table generation holds.
	gen, err := s.cfg.Store.TableGeneration(req.ctx)
	if err != nil {
		return nil, err
	}
	key := strings.Join([]string{bucketID(b), ns, prefix, cursor, strconv.Itoa(limit)}, "\x00")
	if page, ok := s.pages.get(key, gen); ok {
		return page, nil
	}
	out, err := s.listTablesPage(req, b, levels, prefix, cursor, limit)
	if err != nil {
		return nil, err
	}
	page, err := encode(out)
	if err != nil {
		return nil, err
	}
	s.pages.put(key, gen, page)
	return rendered(page), nil
}

func (s *Server) listTablesPage(req *request, b catalog.Bucket, levels []string, prefix, cursor string, limit int) (tablesPage, error) {
	bucket := b.Name
	var items []catalog.Table
	var next string
	var err error
	if len(levels) > 0 {
		if cursor == "" {
			cursor = beforePrefix(prefix)
		}
		items, next, err = s.cfg.Store.ListTables(req.ctx, bucket, levels, catalog.ListTablesOptions{
			ListOptions: catalog.ListOptions{After: cursor, Limit: limit}, IncludeDeclared: true})
		if err != nil {
			return tablesPage{}, err
		}
	} else {
		// Across namespaces the catalog pages by its own cursor; the prefix
		// filters each page, so a page may hold fewer than maxTables rows.
		items, next, err = s.cfg.Store.ListAllTables(req.ctx, catalog.FormatUnset, []string{bucket}, cursor, limit)
		if err != nil {
			return tablesPage{}, err
		}
	}
	bid := bucketID(b)
	out := tablesPage{Tables: make([]tableSummary, 0, len(items))}
	byName := len(levels) > 0 // one namespace: sorted by name, so a prefix ends
	for _, t := range items {
		if strings.HasPrefix(t.Name, prefix) {
			out.Tables = append(out.Tables, s.tableSummary(bid, t))
		} else if byName && t.Name > prefix {
			next = ""
			break
		}
	}
	out.ContinuationToken = encodeToken(next)
	return out, nil
}

type tablesPage struct {
	Tables            []tableSummary `json:"tables"`
	ContinuationToken *string        `json:"continuationToken,omitempty"`
}

// listSomeTables is listTablesPage for a caller who may read only some of
// the tables: it pages through the catalog keeping the tables it may read
// until the page is full, and names the next page by the last table shown,
// so a token never carries a name it may not read.
func (s *Server) listSomeTables(req *request, b catalog.Bucket, levels []string, prefix, cursor string, limit int) (any, error) {
	bid := bucketID(b)
	out := tablesPage{Tables: []tableSummary{}}
	if len(levels) > 0 && cursor == "" {
		cursor = beforePrefix(prefix)
	}
	for {
		var items []catalog.Table
		var next string
		var err error
		if len(levels) > 0 {
			items, next, err = s.cfg.Store.ListTables(req.ctx, b.Name, levels, catalog.ListTablesOptions{
				ListOptions: catalog.ListOptions{After: cursor, Limit: limit}, IncludeDeclared: true})
		} else {
			items, next, err = s.cfg.Store.ListAllTables(req.ctx, catalog.FormatUnset, []string{b.Name}, cursor, limit)
		}
		if err != nil {
			return nil, err
		}
		for i, t := range items {
			if len(levels) > 0 && t.Name > prefix && !strings.HasPrefix(t.Name, prefix) {
				return out, nil // sorted by name: nothing further matches
			}
			if !strings.HasPrefix(t.Name, prefix) || !req.rights.Can(identity.Read, identity.Resource{Bucket: t.Bucket, Namespace: t.Namespace, Table: t.Name}) {
				continue
			}
			out.Tables = append(out.Tables, s.tableSummary(bid, t))
			if len(out.Tables) == limit {
				if i < len(items)-1 || next != "" {
					c := t.Name
					if len(levels) == 0 {
						c = catalog.TableCursor(t)
					}
					out.ContinuationToken = encodeToken(c)
				}
				return out, nil
			}
		}
		if next == "" {
			return out, nil
		}
		cursor = next
	}
}
