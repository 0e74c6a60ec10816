package s3tables

import (
	"errors"
	"fmt"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/fault"
	"github.com/floe/floe/identity"
)

// renameTable answers RenameTable.
func (s *Server) renameTable(req *request) (any, error) {
	t, err := s.loadTable(req, identity.Manage)
	if err != nil {
		return nil, err
	}
	var in struct {
		NewNamespaceName string `json:"newNamespaceName"`
		NewName          string `json:"newName"`
		VersionToken     string `json:"versionToken"`
	}
	if err := req.decode(&in); err != nil {
		return nil, err
	}
	if in.NewName == "" && in.NewNamespaceName == "" {
		return nil, badRequest("newName", "give newName, newNamespaceName or both")
	}
	// The token is checked again by the catalog inside the rename's own
	// transaction; this early check only answers before any name parsing.
	if err := checkToken(t, in.VersionToken); err != nil {
		return nil, err
	}
	toNs := t.Namespace
	if in.NewNamespaceName != "" {
		if toNs, err = namespaceLevels("newNamespaceName", in.NewNamespaceName); err != nil {
			return nil, err
		}
	}
	toName := t.Name
	if in.NewName != "" {
		if err := catalog.ValidateTableName(in.NewName); err != nil {
			return nil, badRequest("newName", err.Error())
		}
		toName = in.NewName
	}
	// A rename also creates the table in its new place: manage there too.
	if err := s.allow(req, identity.Resource{Bucket: t.Bucket, Namespace: toNs, Table: toName}, identity.Manage); err != nil {
		return nil, err
	}
	_, err = s.cfg.Store.RenameTableAtVersion(req.ctx, catalog.TableRef{Bucket: t.Bucket, Namespace: t.Namespace, Name: t.Name}, toNs, toName, in.VersionToken)
	var ce *fault.Error
	if errors.As(err, &ce) && ce.Field == "version_token" {
		return nil, conflict("versionToken", ce.Message)
	}
	return nil, err
}

// checkToken refuses a write whose versionToken (when the client gave one)
// is not the table's current one.
func checkToken(t catalog.Table, token string) error {
	if token != "" && token != t.VersionToken {
		return conflict("versionToken", fmt.Sprintf("table %q changed since it was read (version token mismatch); read it again and retry", t.Name))
	}
	return nil
}
