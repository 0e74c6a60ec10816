package s3tables

import (
	"github.com/floe/floe/catalog"
	"github.com/floe/floe/identity"
)

// putBucketMaintenance answers PutTableBucketMaintenanceConfiguration.
func (s *Server) putBucketMaintenance(req *request) (any, error) {
	bucket, err := s.bucketParam(req, identity.Maintain)
	if err != nil {
		return nil, err
	}
	kind := catalog.MaintenanceKind(req.param("type"))
	enabled, set, err := readMaintenanceValue(req, kind)
	if err != nil {
		return nil, err
	}
	return nil, s.cfg.Store.PutBucketMaintenance(req.ctx, bucket, kind, enabled, set)
}
