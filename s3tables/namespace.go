package s3tables

import (
	"strings"

	"github.com/floe/floe/catalog"
)

type namespaceSummary struct {
	Namespace      []string `json:"namespace"`
	CreatedAt      string   `json:"createdAt"`
	CreatedBy      string   `json:"createdBy"`
	OwnerAccountID string   `json:"ownerAccountId"`
	NamespaceID    string   `json:"namespaceId"`
	TableBucketID  string   `json:"tableBucketId"`
}

func (s *Server) namespaceSummary(b catalog.Bucket, n catalog.Namespace) namespaceSummary {
	bid := bucketID(b)
	return namespaceSummary{Namespace: []string{n.Name()}, CreatedAt: timestamp(n.CreatedAt), CreatedBy: s.cfg.Account,
		OwnerAccountID: s.cfg.Account, NamespaceID: namespaceID(bid, n.Name()), TableBucketID: bid}
}

// namespaceLevels reads a namespace name: one S3 Tables namespace, which
// may name a nested floe namespace by joining its levels with ".".
func namespaceLevels(field, name string) ([]string, error) {
	if name == "" {
		return nil, badRequest(field, field+" is required")
	}
	levels := catalog.SplitNamespace(name)
	for _, l := range levels {
		if err := catalog.ValidateNamespaceLevel(l); err != nil {
			return nil, badRequest(field, field+" "+quote(name)+": "+err.Error())
		}
	}
	return levels, nil
}

func quote(s string) string { return "\"" + s + "\"" }

func (s *Server) createNamespace(req *request) (any, error) {
	bucket, err := s.bucketParam(req, write)
	if err != nil {
		return nil, err
	}
	var in struct {
		Namespace []string `json:"namespace"`
	}
	if err := req.decode(&in); err != nil {
		return nil, err
	}
	if len(in.Namespace) != 1 {
		return nil, badRequest("namespace", "namespace must be a list of exactly one name")
	}
	levels, err := namespaceLevels("namespace", in.Namespace[0])
	if err != nil {
		return nil, err
	}
	n, err := s.cfg.Store.CreateNamespace(req.ctx, bucket, levels, nil)
	if err != nil {
		return nil, err
	}
	return struct {
		TableBucketARN string   `json:"tableBucketARN"`
		Namespace      []string `json:"namespace"`
	}{s.bucketARN(bucket), []string{n.Name()}}, nil
}

func (s *Server) getNamespace(req *request) (any, error) {
	bucket, err := s.bucketParam(req, read)
	if err != nil {
		return nil, err
	}
	levels, err := namespaceLevels("namespace", req.param("namespace"))
	if err != nil {
		return nil, err
	}
	b, err := s.cfg.Store.GetBucket(req.ctx, bucket)
	if err != nil {
		return nil, err
	}
	n, err := s.cfg.Store.GetNamespace(req.ctx, bucket, levels)
	if err != nil {
		return nil, err
	}
	return s.namespaceSummary(b, n), nil
}

func (s *Server) deleteNamespace(req *request) (any, error) {
	bucket, err := s.bucketParam(req, write)
	if err != nil {
		return nil, err
	}
	levels, err := namespaceLevels("namespace", req.param("namespace"))
	if err != nil {
		return nil, err
	}
	return nil, s.cfg.Store.DropNamespace(req.ctx, bucket, levels, false)
}

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
