package s3tables

import "github.com/floe/floe/identity"

// getMetadataLocation answers GetTableMetadataLocation.
func (s *Server) getMetadataLocation(req *request) (any, error) {
	t, err := s.loadTable(req, identity.Read)
	if err != nil {
		return nil, err
	}
	return struct {
		VersionToken      string `json:"versionToken"`
		MetadataLocation  string `json:"metadataLocation,omitempty"`
		WarehouseLocation string `json:"warehouseLocation"`
	}{t.VersionToken, t.MetadataLocation, locationURI(t.Location)}, nil
}
