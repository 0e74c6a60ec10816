package s3tables

// getNamespace answers GetNamespace.
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
