package s3tables

import "github.com/floe/floe/identity"

// deleteBucketEncryption answers DeleteTableBucketEncryption.
func (s *Server) deleteBucketEncryption(req *request) (any, error) {
	if _, err := s.bucketParam(req, identity.Manage); err != nil {
		return nil, err
	}
	return nil, badRequest("", "encryption at rest is the warehouse store's default for everything in it; floe cannot switch it off for one bucket")
}
