package s3tables

import "fmt"

// bucketParam reads the table bucket ARN path parameter and checks the key
// may act on that bucket (bucket-scoped keys reach only their own).
func (s *Server) bucketParam(req *request, a access) (string, error) {
	name, err := s.parseBucketARN("tableBucketARN", req.param("tableBucketARN"))
	if err != nil {
		return "", err
	}
	return name, s.allow(req, name, a)
}

func (s *Server) allow(req *request, bucket string, a access) error {
	if !req.key.CanRead(bucket) {
		return accessDenied(fmt.Sprintf("API key %s is limited to bucket %q and cannot reach bucket %q", req.key.ID, req.key.Bucket, bucket))
	}
	if a == write && !req.key.CanWrite(bucket) {
		return accessDenied(fmt.Sprintf("API key %s is read-only; this operation needs a readwrite key", req.key.ID))
	}
	return nil
}
