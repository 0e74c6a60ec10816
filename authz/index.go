package authz

import (
	"github.com/floe/floe/catalog"
	"github.com/floe/floe/identity"
)

// privSet is a set of privileges, one bit each.
type privSet uint8

const (
	bitRead privSet = 1 << iota
	bitWrite
	bitMaintain
	bitManage
)

func bitOf(p string) privSet {
	switch identity.Privilege(p) {
	case identity.Read:
		return bitRead
	case identity.Write:
		return bitWrite
	case identity.Maintain:
		return bitMaintain
	case identity.Manage:
		return bitManage
	}
	return 0
}

// satisfying is the set of privileges that give p (those that imply it).
func satisfying(p identity.Privilege) privSet {
	var s privSet
	for _, q := range []identity.Privilege{identity.Read, identity.Write, identity.Maintain, identity.Manage} {
		if q.Implies(p) {
			s |= bitOf(string(q))
		}
	}
	return s
}

// Precomputed, so a decision allocates nothing.
var (
	needRead     = satisfying(identity.Read)
	needWrite    = satisfying(identity.Write)
	needMaintain = satisfying(identity.Maintain)
	needManage   = satisfying(identity.Manage)
)

func need(p identity.Privilege) privSet {
	switch p {
	case identity.Read:
		return needRead
	case identity.Write:
		return needWrite
	case identity.Maintain:
		return needMaintain
	case identity.Manage:
		return needManage
	}
	return 0
}

// node is one place in one holder's tree of grants: the root is
// everything, its kids the buckets, a bucket's kids its top-level
// namespaces, a namespace's kids its child levels and its tables the
// tables (and views) in it. A node exists only where a grant is at or
// below it, which is what makes a place visible.
type node struct {
	privs  privSet
	kids   map[string]*node
	tables map[string]privSet
}

func (n *node) kid(name string) *node {
	if n.kids == nil {
		n.kids = map[string]*node{}
	}
	k := n.kids[name]
	if k == nil {
		k = &node{}
		n.kids[name] = k
	}
	return k
}

// add records a grant under the root n.
func (n *node) add(bucket string, ns []string, table string, p privSet) {
	if bucket == "" {
		n.privs |= p
		return
	}
	at := n.kid(bucket)
	for _, l := range ns {
		at = at.kid(l)
	}
	if table == "" || len(ns) == 0 {
		at.privs |= p
		return
	}
	if at.tables == nil {
		at.tables = map[string]privSet{}
	}
	at.tables[table] |= p
}

// allows walks from the root toward res and reports whether any place on
// the way holds a privilege in want.
func (n *node) allows(want privSet, res identity.Resource) bool {
	if n.privs&want != 0 {
		return true
	}
	if res.Bucket == "" {
		return false
	}
	at := n.kids[res.Bucket]
	if at == nil {
		return false
	}
	if at.privs&want != 0 {
		return true
	}
	for _, l := range res.Namespace {
		if at = at.kids[l]; at == nil {
			return false
		}
		if at.privs&want != 0 {
			return true
		}
	}
	return res.Table != "" && len(res.Namespace) > 0 && at.tables[res.Table]&want != 0
}

// find is the node at a bucket or namespace, nil when no grant lies at or
// below it.
func (n *node) find(res identity.Resource) *node {
	if res.Bucket == "" {
		return n
	}
	at := n.kids[res.Bucket]
	for _, l := range res.Namespace {
		if at == nil {
			return nil
		}
		at = at.kids[l]
	}
	return at
}

// index is every holder's tree, built once per generation of grants.
type index struct {
	gen     uint64
	holders map[catalog.Grantee]*node
	count   int
}

func build(grants []catalog.Grant, gen uint64) *index {
	idx := &index{gen: gen, holders: make(map[catalog.Grantee]*node), count: len(grants)}
	for _, g := range grants {
		p := bitOf(g.Privilege)
		if p == 0 {
			continue // a privilege this build does not know gives nothing
		}
		root := idx.holders[g.Grantee]
		if root == nil {
			root = &node{}
			idx.holders[g.Grantee] = root
		}
		root.add(g.Bucket, g.Namespace, g.Table, p)
	}
	return idx
}

// Built-in rights of the principals no grant can name.
var (
	// systemRoot: floe itself (scheduled jobs, purges) manages everything.
	systemRoot = &node{privs: bitManage}
	// workerRoot: a worker on the plugin channel proposes and runs
	// maintenance on any table it can see; its catalog calls go through
	// the API keys floe mints for each job, which hold grants of their own.
	workerRoot = &node{privs: bitMaintain}
	// idpManageRoot, idpReadRoot: what the identity provider's admin and
	// read-only groups give on everything (see rightsOf).
	idpManageRoot = &node{privs: bitManage}
	idpReadRoot   = &node{privs: bitRead}
)

// rightsOf gathers the trees that speak for p.
func (idx *index) rightsOf(p identity.Principal) Rights {
	r := Rights{p: p}
	switch p.Kind {
	case identity.User, identity.Token:
		// An identity provider's bearer is its subject: a user name, as
		// far as grants go.
		r.add(idx.holders[catalog.Grantee{Kind: catalog.GranteeUser, ID: p.ID}])
		for _, g := range p.Groups {
			r.add(idx.holders[catalog.Grantee{Kind: catalog.GranteeGroup, ID: g}])
		}
		// The identity provider's principals also hold what floe serve's
		// --oidc-admin-group / --oidc-readonly-group give their groups
		// (Role, decided at each sign-in or token check): manage or read
		// on everything. A local user's role is stored as grants instead.
		if p.FromIdP() {
			switch roleGrant(p.Role) {
			case string(identity.Manage):
				r.add(idpManageRoot)
			case string(identity.Read):
				r.add(idpReadRoot)
			}
		}
	case identity.APIKey:
		r.add(idx.holders[catalog.Grantee{Kind: catalog.GranteeAPIKey, ID: p.ID}])
	case identity.Anonymous:
		// A surface's anonymous mode: what its anonymous key's role gives
		// on its scope (apikey.AnonymousKey: manage everything).
		if bit := bitOf(roleGrant(p.Role)); bit != 0 {
			root := &node{}
			root.add(p.Bucket, nil, "", bit)
			r.add(root)
		}
	case identity.Worker:
		r.add(workerRoot)
	case identity.System:
		r.add(systemRoot)
	}
	return r
}

// roleGrant mirrors the catalog's reading of a role, for the one principal
// whose role is not stored as a grant (a surface's anonymous identity).
func roleGrant(role catalog.Role) string {
	switch role {
	case catalog.RoleAdmin, catalog.RoleReadWrite:
		return string(identity.Manage)
	case catalog.RoleReadonly:
		return string(identity.Read)
	}
	return ""
}
