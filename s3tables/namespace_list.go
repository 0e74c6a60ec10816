package s3tables

import (
	"errors"
	"strings"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/fault"
	"github.com/floe/floe/identity"
)

// listNamespaces answers ListNamespaces.
func (s *Server) listNamespaces(req *request) (any, error) {
	bucket, err := s.bucketParam(req, see)
	if err != nil {
		return nil, err
	}
	limit, err := req.intParam("maxNamespaces", minPage, maxPage, maxPage)
	if err != nil {
		return nil, err
	}
	after, err := decodeToken(req.query.Get("continuationToken"))
	if err != nil {
		return nil, err
	}
	prefix := req.query.Get("prefix")
	if after == "" {
		after = beforePrefix(prefix)
	}
	b, err := s.cfg.Store.GetBucket(req.ctx, bucket)
	if err != nil {
		return nil, err
	}
	if all, names := req.rights.Children(identity.Resource{Bucket: bucket}); !all {
		return s.listSomeNamespaces(req, b, names, prefix, after, limit)
	}
	items, next, err := s.cfg.Store.ListNamespaces(req.ctx, bucket, nil, catalog.ListOptions{After: after, Limit: limit})
	if err != nil {
		return nil, err
	}
	out := struct {
		Namespaces        []namespaceSummary `json:"namespaces"`
		ContinuationToken *string            `json:"continuationToken,omitempty"`
	}{Namespaces: []namespaceSummary{}}
	for _, n := range items {
		if !strings.HasPrefix(n.Name(), prefix) {
			if n.Name() > prefix {
				next = ""
				break
			}
			continue
		}
		out.Namespaces = append(out.Namespaces, s.namespaceSummary(b, n))
	}
	out.ContinuationToken = encodeToken(next)
	return out, nil
}

// listSomeNamespaces lists, for a caller who may not read the whole
// bucket, the namespaces its grants lie in (names, sorted), looked up one
// by one; the token names the last one shown.
func (s *Server) listSomeNamespaces(req *request, b catalog.Bucket, names []string, prefix, after string, limit int) (any, error) {
	out := struct {
		Namespaces        []namespaceSummary `json:"namespaces"`
		ContinuationToken *string            `json:"continuationToken,omitempty"`
	}{Namespaces: []namespaceSummary{}}
	for _, name := range names {
		if name <= after || !strings.HasPrefix(name, prefix) {
			continue
		}
		if len(out.Namespaces) == limit {
			out.ContinuationToken = encodeToken(out.Namespaces[len(out.Namespaces)-1].Namespace[0])
			break
		}
		n, err := s.cfg.Store.GetNamespace(req.ctx, b.Name, []string{name})
		if errors.Is(err, fault.NotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		out.Namespaces = append(out.Namespaces, s.namespaceSummary(b, n))
	}
	return out, nil
}
