package s3tables

import (
	"errors"
	"fmt"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/fault"
	"github.com/floe/floe/identity"
	"github.com/floe/floe/warehouse"
)

// updateMetadataLocation answers UpdateTableMetadataLocation.
func (s *Server) updateMetadataLocation(req *request) (any, error) {
	t, err := s.loadTable(req, identity.Write)
	if err != nil {
		return nil, err
	}
	var in struct {
		VersionToken     string `json:"versionToken"`
		MetadataLocation string `json:"metadataLocation"`
	}
	if err := req.decode(&in); err != nil {
		return nil, err
	}
	if in.VersionToken == "" {
		return nil, badRequest("versionToken", "versionToken is required: the token GetTable or GetTableMetadataLocation returned")
	}
	if in.MetadataLocation == "" || len(in.MetadataLocation) > maxLocationLen {
		return nil, badRequest("metadataLocation", fmt.Sprintf("metadataLocation is required, at most %d characters", maxLocationLen))
	}
	if t.Format != catalog.FormatIceberg {
		return nil, badRequest("metadataLocation", fmt.Sprintf("table %q is a %s table; only Iceberg tables have a metadata location", t.Name, t.Format))
	}
	if !within(in.MetadataLocation, t.Location) {
		return nil, badRequest("metadataLocation", fmt.Sprintf("metadataLocation must lie inside the table's warehouse location %s", locationURI(t.Location)))
	}
	t, err = s.cfg.Store.CommitTable(req.ctx, t.ID, in.VersionToken, in.MetadataLocation, nil)
	if errors.Is(err, fault.Conflict) {
		return nil, conflict("versionToken", "the table changed since versionToken was read; read the metadata location again and retry")
	}
	if err != nil {
		return nil, err
	}
	return struct {
		Name             string   `json:"name"`
		TableARN         string   `json:"tableARN"`
		Namespace        []string `json:"namespace"`
		VersionToken     string   `json:"versionToken"`
		MetadataLocation string   `json:"metadataLocation"`
	}{t.Name, s.tableARN(t), []string{catalog.JoinNamespace(t.Namespace)}, t.VersionToken, t.MetadataLocation}, nil
}

// within reports whether loc (a URI or a path) lies strictly inside the
// table location root (either form).
func within(loc, root string) bool {
	l, err := warehouse.Parse(loc)
	if err != nil {
		return false
	}
	r, err := warehouse.Parse(root)
	return err == nil && l != r && l.Within(r)
}

// maxLocationLen bounds a metadata location, as S3 Tables does (2048).
const maxLocationLen = 2048
