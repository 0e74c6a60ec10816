package s3tables

import (
	"errors"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/fault"
	"github.com/floe/floe/identity"
)

// deleteTable answers DeleteTable.
func (s *Server) deleteTable(req *request) (any, error) {
	t, err := s.loadTable(req, identity.Manage)
	if err != nil {
		return nil, err
	}
	// Drop removes the entry and the data, as S3 Tables' DeleteTable does,
	// after the bucket's hold: until then the table is recently deleted
	// (undrop in the console or floe table undrop). A protected table
	// refuses (ConflictException): the model has no force, so the console
	// or the CLI lifts protection first. The token is checked by the catalog
	// in the drop's own transaction, so an update that lands after
	// loadTable is never dropped unseen.
	token := req.query.Get("versionToken")
	_, err = s.cfg.Store.DropTableWith(req.ctx, catalog.TableRef{Bucket: t.Bucket, Namespace: t.Namespace, Name: t.Name},
		catalog.DropOptions{VersionToken: token, By: req.by})
	var ce *fault.Error
	if errors.As(err, &ce) && ce.Field == "version_token" {
		return nil, conflict("versionToken", ce.Message)
	}
	return nil, err
}
