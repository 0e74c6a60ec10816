package s3tables

import (
	"github.com/floe/floe/catalog"
	"github.com/floe/floe/identity"
)

// putTableMaintenance answers PutTableMaintenanceConfiguration.
func (s *Server) putTableMaintenance(req *request) (any, error) {
	t, err := s.loadTable(req, identity.Maintain)
	if err != nil {
		return nil, err
	}
	kind := catalog.MaintenanceKind(req.param("type"))
	enabled, set, err := readMaintenanceValue(req, kind)
	if err != nil {
		return nil, err
	}
	return nil, s.cfg.Store.PutTableMaintenance(req.ctx, t.ID, kind, enabled, set)
}
