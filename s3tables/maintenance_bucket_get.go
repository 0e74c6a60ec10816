package s3tables

// getBucketMaintenance answers GetTableBucketMaintenanceConfiguration.
func (s *Server) getBucketMaintenance(req *request) (any, error) {
	bucket, err := s.bucketParam(req, see)
	if err != nil {
		return nil, err
	}
	cs, err := s.cfg.Store.BucketMaintenance(req.ctx, bucket)
	if err != nil {
		return nil, err
	}
	return struct {
		TableBucketARN string                      `json:"tableBucketARN"`
		Configuration  map[string]maintenanceValue `json:"configuration"`
	}{s.bucketARN(bucket), wireConfigs(cs)}, nil
}
