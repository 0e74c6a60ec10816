package s3tables

import "github.com/floe/floe/identity"

// getTableMaintenance answers GetTableMaintenanceConfiguration.
func (s *Server) getTableMaintenance(req *request) (any, error) {
	t, err := s.loadTable(req, identity.Read)
	if err != nil {
		return nil, err
	}
	cs, err := s.cfg.Store.TableMaintenance(req.ctx, t.ID)
	if err != nil {
		return nil, err
	}
	return struct {
		TableARN      string                      `json:"tableARN"`
		Configuration map[string]maintenanceValue `json:"configuration"`
	}{s.tableARN(t), wireConfigs(cs)}, nil
}
