// Package identity names who acts and on what: the Principal the edge's
// one authentication step finds for a request, the resources of floe's
// data model (everything, a bucket, a namespace, a table) and the four
// privileges a grant gives. It has no behaviour of its own and imports no
// net/http, so services (the authorizer, the audit trail, the catalog) can
// take a principal without depending on the HTTP layer.
package identity

import (
	"context"
	"strings"

	"github.com/floe/floe/catalog"
)

// Kind says what sort of caller a Principal is.
type Kind string

// The kinds of caller.
const (
	// Anonymous: no credential, on a surface whose anonymous mode is on.
	Anonymous Kind = "anonymous"
	// User: a console user signed in with a session (local or through the
	// identity provider).
	User Kind = "user"
	// APIKey: an API key (x-api-key, Bearer, floe's OAuth bearer for it,
	// or its SigV4 access key pair).
	APIKey Kind = "apikey"
	// Token: a bearer token issued by the organization's identity
	// provider (ID is its subject).
	Token Kind = "token"
	// Worker: a maintenance worker on the plugin channel (ID is its
	// worker token's id).
	Worker Kind = "worker"
	// System: floe itself (a scheduled job, the purge of a hold that
	// ended), for the audit trail.
	System Kind = "system"
)

// Principal is who made a request, as the one authentication step found
// them: the identity authorization decides on and audit records.
type Principal struct {
	Kind Kind
	// ID is stable: a user's name, an API key's id, a token's subject.
	ID string
	// Name is for people: a key's label, a user's name.
	Name string
	// Role is the coarse role (admin, readonly, readwrite) that predates
	// grants; the authorizer reads grants, not this.
	Role catalog.Role
	// Bucket scopes an API key to one bucket; "" is every bucket.
	Bucket string
	// Groups are the groups a user belongs to (floe's own, or mapped from
	// the identity provider's groups claim).
	Groups []string
	// Via says how the credential came: session, oidc, x-api-key, bearer,
	// oauth-token, sigv4, idp-token, anonymous.
	Via string
	// Key is the API key behind an APIKey principal.
	Key catalog.APIKey
}

// The two ways the organization's identity provider vouches for a
// principal: a console sign-in through it, and its access token.
const (
	ViaIdPSignIn = "oidc"
	ViaIdPToken  = "idp-token"
)

// FromIdP reports whether the identity provider vouched for p (its Role
// then comes from the provider's groups, not from floe's users table).
func (p Principal) FromIdP() bool { return p.Via == ViaIdPSignIn || p.Via == ViaIdPToken }

// String is the principal as logs and the audit trail write it:
// "apikey:k1", "user:admin", "anonymous", or "-" for nobody.
func (p Principal) String() string {
	switch p.Kind {
	case "":
		return "-"
	case Anonymous:
		return "anonymous"
	}
	return string(p.Kind) + ":" + p.ID
}

// FromKey is the principal of an API key (a real key, or the anonymous
// identity of a surface in anonymous mode).
func FromKey(k catalog.APIKey, via string) Principal {
	kind := APIKey
	if via == "anonymous" {
		kind = Anonymous
	}
	return Principal{Kind: kind, ID: k.ID, Name: k.Name, Role: k.Role, Bucket: k.Bucket, Via: via, Key: k}
}

// Privilege is what a grant allows on a resource and everything inside
// it. Manage implies the other three; write and maintain each imply read.
type Privilege string

// The privileges.
const (
	// Read: list, describe, load, browse data, vended keys that read.
	Read Privilege = "read"
	// Write: data and commits (appends, Iceberg commits, Lance versions),
	// vended keys that write.
	Write Privilege = "write"
	// Maintain: run and configure maintenance (tasks, Fix, job settings).
	Maintain Privilege = "maintain"
	// Manage: create, drop, rename, protect, purge, force, and grant.
	Manage Privilege = "manage"
)

// Implies reports whether holding p gives q.
func (p Privilege) Implies(q Privilege) bool {
	switch p {
	case Manage:
		return true
	case Write, Maintain:
		return q == p || q == Read
	case Read:
		return q == Read
	}
	return false
}

// Resource is a place in floe's data model: the zero Resource is
// everything; a Bucket alone is a table bucket; with Namespace a namespace
// (one or more levels); with Table a table.
type Resource struct {
	Bucket    string
	Namespace []string
	Table     string
}

// String is the resource as grants, logs and the audit trail write it:
// "*", "bucket", "bucket/ns.sub", "bucket/ns.sub/table".
func (r Resource) String() string {
	if r.Bucket == "" {
		return "*"
	}
	s := r.Bucket
	if len(r.Namespace) > 0 {
		s += "/" + strings.Join(r.Namespace, ".")
		if r.Table != "" {
			s += "/" + r.Table
		}
	}
	return s
}

// Contains reports whether o lies at or below r (a grant on r covers o).
func (r Resource) Contains(o Resource) bool {
	if r.Bucket == "" {
		return true
	}
	if r.Bucket != o.Bucket {
		return false
	}
	if len(r.Namespace) > len(o.Namespace) {
		return false
	}
	for i, l := range r.Namespace {
		if o.Namespace[i] != l {
			return false
		}
	}
	if r.Table == "" {
		return true
	}
	return len(r.Namespace) == len(o.Namespace) && r.Table == o.Table
}

type principalKey struct{}

// NewContext carries p to services a request calls (the job queue checks
// who submits), for callers that hold no request.
func NewContext(ctx context.Context, p Principal) context.Context {
	return context.WithValue(ctx, principalKey{}, p)
}

// FromContext is the principal NewContext put in ctx.
func FromContext(ctx context.Context) (Principal, bool) {
	p, ok := ctx.Value(principalKey{}).(Principal)
	return p, ok
}
