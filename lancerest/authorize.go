package lancerest

import (
	"net/http"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/edge"
	"github.com/floe/floe/fault"
	"github.com/floe/floe/identity"
	"github.com/floe/floe/warehouse"
)

// The edge authenticates every request (Config.Auth); the authorizer
// decides what the principal may do. Each operation asks for the privilege
// it needs on the resource its identifier names, before it looks the
// resource up, so a refusal says nothing about whether it exists.

// loadRights reads the caller's rights once per request.
func (s *Server) loadRights(r *http.Request, c *call) *Error {
	p, _ := edge.PrincipalFrom(r.Context())
	c.principal = p
	rights, err := s.authz.Rights(r.Context(), p)
	if err != nil {
		return asError(err, CodeNamespaceNotFound)
	}
	c.rights = rights
	return nil
}

// require is nil when the caller holds priv on res.
func (c *call) require(priv identity.Privilege, res identity.Resource) *Error {
	if err := c.rights.Decide(priv, res); err != nil {
		return refusal(err)
	}
	return nil
}

// see is nil when the caller may see res (read it, or something inside).
func (c *call) see(res identity.Resource) *Error {
	if c.rights.Visible(res) {
		return nil
	}
	return refusal(c.rights.Decide(identity.Read, res))
}

func refusal(err error) *Error {
	if fault.KindOf(err) == fault.Unauthenticated {
		return NewError(CodeUnauthenticated, fault.Message(err, "unauthenticated"), "Send an API key as x-api-key: <key> or Authorization: Bearer <key>.")
	}
	return forbidden(fault.Message(err, "permission denied"))
}

// nsResource is the resource a namespace id names: a one-name id is a
// bucket.
func nsResource(id []string) identity.Resource {
	return identity.Resource{Bucket: id[0], Namespace: id[1:]}
}

// tableResource is the resource of a table.
func tableResource(ref catalog.TableRef) identity.Resource {
	return identity.Resource{Bucket: ref.Bucket, Namespace: ref.Namespace, Table: ref.Name}
}

// vendAccess is what the keys vended with a table may do: write when the
// caller may write the table, else only read.
func (c *call) vendAccess(res identity.Resource) warehouse.Access {
	if c.rights.Can(identity.Write, res) {
		return warehouse.AccessWrite
	}
	return warehouse.AccessRead
}
