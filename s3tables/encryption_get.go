package s3tables

import "github.com/floe/floe/identity"

// getBucketEncryption answers GetTableBucketEncryption.
func (s *Server) getBucketEncryption(req *request) (any, error) {
	name, err := s.bucketParam(req, see)
	if err != nil {
		return nil, err
	}
	if _, err := s.cfg.Store.GetBucket(req.ctx, name); err != nil {
		return nil, err
	}
	return s.encryptionAnswer(req, "table bucket "+quote(name))
}

// getTableEncryption answers GetTableEncryption.
func (s *Server) getTableEncryption(req *request) (any, error) {
	t, err := s.loadTable(req, identity.Read)
	if err != nil {
		return nil, err
	}
	return s.encryptionAnswer(req, "table "+quote(t.Name))
}
