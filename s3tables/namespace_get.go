package s3tables

import "github.com/floe/floe/identity"

// getNamespace answers GetNamespace.
func (s *Server) getNamespace(req *request) (any, error) {
	bucket, err := s.bucketParam(req, see)
	if err != nil {
		return nil, err
	}
	levels, err := namespaceLevels("namespace", req.param("namespace"))
	if err != nil {
		return nil, err
	}
	if err := s.allow(req, identity.Resource{Bucket: bucket, Namespace: levels}, see); err != nil {
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
