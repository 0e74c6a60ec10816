package s3tables

// deleteTableBucket answers DeleteTableBucket.
func (s *Server) deleteTableBucket(req *request) (any, error) {
	name, err := s.bucketParam(req, see)
	if err == nil {
		err = s.allowEverything(req, name)
	}
	if err != nil {
		return nil, err
	}
	return nil, s.cfg.Store.DeleteBucket(req.ctx, name, false)
}
