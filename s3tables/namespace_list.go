package s3tables

import (
	"strings"

	"github.com/floe/floe/catalog"
)

// listNamespaces answers ListNamespaces.
func (s *Server) listNamespaces(req *request) (any, error) {
	bucket, err := s.bucketParam(req, read)
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
