package icebergrest

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/edge"
	"github.com/floe/floe/iceberg"
	"github.com/floe/floe/identity"
	"github.com/floe/floe/safety"
)

// undropTable: POST /v1/{prefix}/namespaces/{ns}/undrop, floe's extension
// beside register. Body {"name": "t"} brings back the Iceberg table most
// recently dropped as {ns}.t; {"name": "t2", "table-id": "<floe table id>"}
// brings back that one under a new name (the namespace may differ from the
// one it was dropped from, the bucket may not). It answers as LoadTable
// does. Needs the manage privilege.
func (s *Server) undropTable(w http.ResponseWriter, r *http.Request, b catalog.Bucket) error {
	ns, err := namespaceParam(r)
	if err != nil {
		return err
	}
	var in struct {
		Name    string `json:"name"`
		TableID string `json:"table-id"`
	}
	if err := decodeBody(r, &in); err != nil {
		return err
	}
	if err := catalog.ValidateTableName(in.Name); err != nil {
		return badRequest("table name %q: %v", in.Name, err)
	}
	ref := catalog.TableRef{Bucket: b.Name, Namespace: ns, Name: in.Name}
	if err := safety.Require(r.Context(), s.manager, principal(r), safety.TableResource(ref), "undrop"); err != nil {
		return err
	}
	res, err := s.tables.UndropTable(r.Context(), ref, in.TableID)
	if err != nil {
		return err
	}
	return s.writeLoadResult(w, r, res, new(tableRes(ref)))
}

// principal is who the edge authenticated for r.
func principal(r *http.Request) identity.Principal {
	p, _ := edge.PrincipalFrom(r.Context())
	return p
}

// force reads ?force= (floe's extension on drop, rename, register and
// namespace drop) and answers whether the caller may have it: asking
// without the manage privilege on res is refused, not ignored.
func (s *Server) force(r *http.Request, res identity.Resource) (bool, error) {
	v := r.URL.Query().Get("force")
	if v == "" {
		return false, nil
	}
	asked, err := strconv.ParseBool(v)
	if err != nil {
		return false, badRequest("force must be true or false, not %q", v)
	}
	return safety.Force(r.Context(), s.manager, principal(r), res, asked)
}

// guardProtection refuses a commit that sets or removes floe.protected
// unless the caller manages the table: protecting and unprotecting need
// manage, while the rest of a commit needs write.
func (s *Server) guardProtection(ctx context.Context, r *http.Request, ref catalog.TableRef, updates []json.RawMessage) error {
	if !iceberg.TouchesProperty(updates, catalog.ProtectedProperty) {
		return nil
	}
	return safety.Require(ctx, s.manager, principal(r), safety.TableResource(ref), "changing "+catalog.ProtectedProperty)
}
