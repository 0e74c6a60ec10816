package authz

import (
	"errors"
	"fmt"
	"slices"

	"github.com/floe/floe/fault"
	"github.com/floe/floe/identity"
)

// Rights is what one principal may do, as the index said when the request
// asked: decisions on it are pure and allocate nothing. The zero Rights
// (no principal) may do nothing.
type Rights struct {
	p identity.Principal
	// roots are the trees that speak for p: its own, its groups', or a
	// built-in one. Most principals have one; inline room for a few keeps
	// a request's Rights off the heap.
	inline [4]*node
	n      int
	more   []*node
}

func (r *Rights) add(n *node) {
	if n == nil {
		return
	}
	if r.n < len(r.inline) {
		r.inline[r.n] = n
		r.n++
		return
	}
	r.more = append(r.more, n)
}

func (r *Rights) each(fn func(*node) bool) bool {
	for i := 0; i < r.n; i++ {
		if fn(r.inline[i]) {
			return true
		}
	}
	for _, n := range r.more {
		if fn(n) {
			return true
		}
	}
	return false
}

// Any reports whether the principal holds anything at all: a grant to
// it (or to one of its groups), or what its role gives. An identity
// provider's principal whose groups map to no role is admitted on its
// grants alone (see oidc.Rights).
func (r Rights) Any() bool { return r.n > 0 || len(r.more) > 0 }

// Principal is who these rights are for.
func (r Rights) Principal() identity.Principal { return r.p }

// Can reports whether the principal holds priv on res or on a place that
// contains it.
func (r Rights) Can(priv identity.Privilege, res identity.Resource) bool {
	want := need(priv)
	return r.each(func(n *node) bool { return n.allows(want, res) })
}

// Decide is nil when Can, else the refusal: fault.Forbidden with a
// sentence naming the privilege and the places that would give it, or
// fault.Unauthenticated for the zero principal.
func (r Rights) Decide(priv identity.Privilege, res identity.Resource) error {
	if r.Can(priv, res) {
		return nil
	}
	if r.p.Kind == "" {
		return unauthenticated()
	}
	if priv != identity.Read && r.Can(identity.Read, res) {
		e := refusal(r.p, priv, res, "it has read-only access there, and ")
		e.Err = ErrReadOnly
		return e
	}
	if b, ok := r.oneBucket(); ok && b != res.Bucket {
		return refusal(r.p, priv, res, fmt.Sprintf("its grants are limited to bucket %q, and ", b))
	}
	return Refusal(r.p, priv, res)
}

// oneBucket is the bucket all of the principal's grants lie in, when they
// lie in exactly one (a bucket-scoped key's case).
func (r Rights) oneBucket() (string, bool) {
	bucket := ""
	mixed := r.each(func(n *node) bool {
		if n.privs != 0 || len(n.kids) != 1 {
			return true
		}
		for k := range n.kids {
			if bucket != "" && bucket != k {
				return true
			}
			bucket = k
		}
		return false
	})
	return bucket, !mixed && bucket != ""
}

// ErrReadOnly is the reason of a refusal to a principal that may read the
// resource but not do what it asked (errors.Is sees it).
var ErrReadOnly = errors.New("authz: read-only access")

// Refusal is the sentence of a refused request: who, what they may not do
// to which resource, which places would have to grant it, and the command
// that grants it.
func Refusal(p identity.Principal, priv identity.Privilege, res identity.Resource) *fault.Error {
	return refusal(p, priv, res, "")
}

func refusal(p identity.Principal, priv identity.Privilege, res identity.Resource, held string) *fault.Error {
	return &fault.Error{Kind: fault.Forbidden, Field: "privilege", Message: fmt.Sprintf(
		"%s may not %s %s: %sthat needs the %s privilege on %s, which no grant gives it; someone who manages it can grant it (floe grant add %s %s %s)",
		who(p), verb(priv), describe(res), held, priv, covering(res), grantee(p), priv, res)}
}

func who(p identity.Principal) string {
	switch p.Kind {
	case identity.APIKey:
		return "API key " + p.ID
	case identity.User, identity.Token:
		return "user " + p.ID
	case identity.Anonymous:
		return "an anonymous caller"
	}
	return p.String()
}

func grantee(p identity.Principal) string {
	if p.Kind == identity.Token {
		return "user:" + p.ID
	}
	return p.String()
}

func verb(p identity.Privilege) string {
	switch p {
	case identity.Read:
		return "read"
	case identity.Write:
		return "write to"
	case identity.Maintain:
		return "maintain"
	}
	return "manage"
}

func describe(res identity.Resource) string {
	switch {
	case res.Bucket == "":
		return "everything"
	case len(res.Namespace) == 0:
		return "bucket " + res.String()
	case res.Table == "":
		return "namespace " + res.String()
	}
	return "table " + res.String()
}

// covering lists where a grant would cover res, nearest first.
func covering(res identity.Resource) string {
	switch {
	case res.Bucket == "":
		return "everything"
	case len(res.Namespace) == 0:
		return "the bucket or everything"
	case res.Table == "":
		return "the namespace, a namespace around it, its bucket or everything"
	}
	return "the table, its namespace, its bucket or everything"
}

// Visible reports whether the principal may see res in a listing: it may
// read it, or it holds a grant on something inside it (a namespace reader
// sees its bucket, with only that namespace in it).
func (r Rights) Visible(res identity.Resource) bool {
	if r.Can(identity.Read, res) {
		return true
	}
	if res.Table != "" {
		return false
	}
	return r.each(func(n *node) bool { return n.find(res) != nil })
}

// Children says what of a bucket's or namespace's direct contents the
// principal may list (parent is everything for the buckets): all when it
// may read parent, else the names (sorted, distinct) of the buckets or
// namespace levels a grant of it lies at or below.
func (r Rights) Children(parent identity.Resource) (all bool, names []string) {
	if r.Can(identity.Read, parent) {
		return true, nil
	}
	r.each(func(n *node) bool {
		if at := n.find(parent); at != nil {
			for k := range at.kids {
				names = append(names, k)
			}
		}
		return false
	})
	slices.Sort(names)
	return false, slices.Compact(names)
}

// Tables says which tables (and views) of namespace ns the principal may
// list: all when it may read ns, else the names it holds a grant on.
func (r Rights) Tables(ns identity.Resource) (all bool, names []string) {
	if r.Can(identity.Read, ns) {
		return true, nil
	}
	r.each(func(n *node) bool {
		if at := n.find(ns); at != nil {
			for k := range at.tables {
				names = append(names, k)
			}
		}
		return false
	})
	slices.Sort(names)
	return false, slices.Compact(names)
}

// VisibleTable reports whether a table of a listing is one the principal
// may read.
func (r Rights) VisibleTable(bucket string, ns []string, table string) bool {
	return r.Can(identity.Read, identity.Resource{Bucket: bucket, Namespace: ns, Table: table})
}
