package s3tables

import (
	"github.com/floe/floe/catalog"
	"github.com/floe/floe/identity"
)

// deleteNamespace answers DeleteNamespace.
func (s *Server) deleteNamespace(req *request) (any, error) {
	bucket, err := s.bucketParam(req, see)
	if err != nil {
		return nil, err
	}
	levels, err := namespaceLevels("namespace", req.param("namespace"))
	if err != nil {
		return nil, err
	}
	if err := s.allow(req, identity.Resource{Bucket: bucket, Namespace: levels}, identity.Manage); err != nil {
		return nil, err
	}
	return nil, s.cfg.Store.DropNamespaceWith(req.ctx, bucket, levels, catalog.CascadeOptions{By: req.by})
}
