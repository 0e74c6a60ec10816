// Package safety holds the rules around floe's destructive operations that
// need a principal: who may force past protection, undrop, purge and
// protect (the manage privilege), and the sweep that purges recently
// deleted tables whose hold has ended. The catalog enforces protection and
// holds; it takes a plain Force flag, and surfaces set it only through
// Force here, so the one decision about a principal lives in one place.
// It imports no net/http.
package safety

import (
	"context"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/fault"
	"github.com/floe/floe/identity"
)

// Manager decides whether a principal holds the manage privilege on a
// resource: Grants (the authorizer's identity.Manage) in floe serve;
// Interim, today's rule from roles, where no authorizer is given.
type Manager interface {
	CanManage(ctx context.Context, p identity.Principal, r identity.Resource) bool
}

// Interim is today's rule, from roles: a console user with the admin role,
// or a readwrite API key whose bucket scope holds the resource, manages
// it. Nobody else does — not read-only users or keys, not an anonymous
// caller (a surface in anonymous mode lets anyone write, never force), and
// not an identity provider's token (its grants decide once they exist).
type Interim struct{}

// CanManage implements Manager.
func (Interim) CanManage(_ context.Context, p identity.Principal, r identity.Resource) bool {
	switch p.Kind {
	case identity.User:
		return p.Role == catalog.RoleAdmin
	case identity.APIKey:
		return p.Role == catalog.RoleReadWrite && (p.Bucket == "" || p.Bucket == r.Bucket)
	case identity.System:
		return true
	}
	return false
}

// Decider is the one authorizer's question (authz.Authorizer.Decide):
// nil when p holds priv on res.
type Decider interface {
	Decide(ctx context.Context, p identity.Principal, priv identity.Privilege, res identity.Resource) error
}

// Grants is the Manager of the grants: p manages r when the authorizer
// says p holds identity.Manage on r (or on anything containing it).
type Grants struct{ D Decider }

// CanManage implements Manager.
func (g Grants) CanManage(ctx context.Context, p identity.Principal, r identity.Resource) bool {
	return g.D.Decide(ctx, p, identity.Manage, r) == nil
}

// orInterim is m, or Interim when nil.
func orInterim(m Manager) Manager {
	if m == nil {
		return Interim{}
	}
	return m
}

// Force answers a request that may ask to override protection: false when
// it did not ask; true when it asked and p manages r; a fault.Forbidden
// naming what is missing when it asked and p does not.
func Force(ctx context.Context, m Manager, p identity.Principal, r identity.Resource, asked bool) (bool, error) {
	if !asked {
		return false, nil
	}
	if orInterim(m).CanManage(ctx, p, r) {
		return true, nil
	}
	return false, fault.New(fault.Forbidden, "force",
		"force overrides protection and needs the manage privilege on %s, which %s does not have; ask someone who manages it, or unprotect the resource first",
		r, p)
}

// Require refuses (fault.Forbidden) an operation that needs manage on r —
// undrop, purge, protect and unprotect — unless p has it. what names the
// operation for the sentence.
func Require(ctx context.Context, m Manager, p identity.Principal, r identity.Resource, what string) error {
	if orInterim(m).CanManage(ctx, p, r) {
		return nil
	}
	return fault.New(fault.Forbidden, "principal", "%s needs the manage privilege on %s, which %s does not have", what, r, p)
}

// TableResource is the resource of a table.
func TableResource(ref catalog.TableRef) identity.Resource {
	return identity.Resource{Bucket: ref.Bucket, Namespace: ref.Namespace, Table: ref.Name}
}

// NamespaceResource is the resource of a namespace (no levels: the bucket).
func NamespaceResource(bucket string, levels []string) identity.Resource {
	return identity.Resource{Bucket: bucket, Namespace: levels}
}
