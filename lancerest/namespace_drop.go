package lancerest

import (
	"errors"
	"net/http"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/fault"
	"github.com/floe/floe/identity"
	"github.com/floe/floe/safety"
)

// dropNamespace: POST /v1/namespace/{id}/drop. mode Fail (404 when missing) or
// Skip; behavior Restrict (409 code 3 when not empty) or Cascade, which drops
// every Lance table inside (recently deleted for the bucket's hold, then
// their data goes). Protection inside refuses (409 code 19) unless
// ?force=true from a caller that manages it.
func dropNamespace(s *Server, w http.ResponseWriter, r *http.Request, c *call) *Error {
	var req dropNamespaceRequest
	if e := withBody(r, func(b []byte) (e *Error) { req, e = decodeDropNamespace(b, c.id); return }); e != nil {
		return e
	}
	if len(c.id) == 0 {
		return invalid("the root namespace cannot be dropped", "Drop a bucket with a one-name id, or a namespace inside it.")
	}
	if e := validateNamespaceID(c.id); e != nil {
		return e
	}
	ctx := r.Context()
	bucket := c.id[0]
	// A namespace is dropped by whoever manages it; a bucket, whose drop
	// takes everything every grantee in it holds, only by a manager of
	// everything.
	need := nsResource(c.id)
	if len(c.id) == 1 {
		need = identity.Resource{}
	}
	if e := c.require(identity.Manage, need); e != nil {
		return e
	}
	missing := func() *Error {
		if req.skip {
			return writeJSON(w, struct{}{})
		}
		return nsNotFound(c.id, c.delim)
	}
	b, e := s.lanceBucket(ctx, bucket, c.delim)
	if e != nil {
		if e.Code == CodeNamespaceNotFound {
			return missing()
		}
		return e
	}
	if req.cascade {
		if ice, err := s.hasIcebergTables(ctx, b, c.id[1:]); err != nil {
			return asError(err, CodeNamespaceNotFound)
		} else if ice {
			return icebergInside(c.id, c.delim)
		}
	}
	force, e := s.force(ctx, c, safety.NamespaceResource(bucket, c.id[1:]))
	if e != nil {
		return e
	}
	opt := catalog.CascadeOptions{Cascade: req.cascade, Force: force, By: c.principal.String()}
	var err error
	if len(c.id) == 1 {
		err = s.store.DeleteBucketWith(ctx, bucket, opt)
	} else {
		err = s.store.DropNamespaceWith(ctx, bucket, c.id[1:], opt)
	}
	switch {
	case err == nil:
		return writeJSON(w, struct{}{})
	case errors.Is(err, fault.NotFound):
		return missing()
	case errors.Is(err, fault.NotEmpty):
		return NewError(CodeNamespaceNotEmpty, "namespace "+quote(joinIdentifier(c.id, c.delim))+" is not empty",
			"Drop its tables and child namespaces first, or drop with behavior Cascade (which deletes their data).")
	}
	return asError(err, CodeNamespaceNotFound)
}
