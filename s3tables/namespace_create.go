package s3tables

// createNamespace answers CreateNamespace.
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
