package s3tables

// getTableBucket answers GetTableBucket.
func (s *Server) getTableBucket(req *request) (any, error) {
	name, err := s.bucketParam(req, see)
	if err != nil {
		return nil, err
	}
	b, err := s.cfg.Store.GetBucket(req.ctx, name)
	if err != nil {
		return nil, err
	}
	return s.bucketSummary(b), nil
}
