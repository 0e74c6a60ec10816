package s3tables

import "github.com/floe/floe/identity"

// createNamespace answers CreateNamespace.
func (s *Server) createNamespace(req *request) (any, error) {
	bucket, err := s.bucketParam(req, see)
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
	// Creating a place needs manage on it (the bucket's managers have it).
	if err := s.allow(req, identity.Resource{Bucket: bucket, Namespace: levels}, identity.Manage); err != nil {
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
