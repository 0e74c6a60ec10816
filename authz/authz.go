// Package authz is floe's one authorizer: every surface (the console's
// pages and forms, the Lance REST, the task API, the Iceberg REST, S3
// Tables, the plugin channel's job submissions) asks it whether the
// principal the edge found may do something to a resource, and lists only
// what it may see. It decides from grants — a principal (user, group, API
// key) holds a privilege (read, write, maintain, manage) on a place
// (everything, a bucket, a namespace, a table), inherited downward — kept
// in the catalog and read here into an in-memory index that the hot path
// consults without a query while the catalog's stamp says no grant has
// changed. It imports no net/http: each surface renders a refusal
// (*fault.Error of kind Forbidden, with a sentence) in its own protocol.
package authz

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/fault"
	"github.com/floe/floe/identity"
)

// Source is where grants live (the catalog's Store).
type Source interface {
	// GrantStamp says, without a query, whether grants may have changed
	// since another stamp was taken; ok false means it cannot say.
	GrantStamp() (catalog.GrantStamp, bool)
	// GrantGeneration counts every change to grants ever made.
	GrantGeneration(ctx context.Context) (uint64, error)
	// AllGrants reads every grant with the generation it is the state of.
	AllGrants(ctx context.Context) ([]catalog.Grant, uint64, error)
}

// Authorizer decides from the grants of one Source. It is safe for
// concurrent use; build one per process and hand it to every surface.
type Authorizer struct {
	src  Source
	snap atomic.Pointer[snapshot]
	mu   sync.Mutex // one reload at a time
}

// snapshot is the index with the stamp under which it was last known to
// be current.
type snapshot struct {
	idx     *index
	stamp   catalog.GrantStamp
	stamped bool
}

// New builds an Authorizer over src. It reads nothing until first asked.
func New(src Source) *Authorizer { return &Authorizer{src: src} }

// Rights reads what p may do, once per request: the index current at this
// moment (a query only when grants may have changed) and p's grants in it.
// A database that cannot be asked is the error (fault.Unavailable).
func (a *Authorizer) Rights(ctx context.Context, p identity.Principal) (Rights, error) {
	idx, err := a.current(ctx)
	if err != nil {
		return Rights{}, err
	}
	return idx.rightsOf(p), nil
}

// Decide is nil when p holds priv on res (or on anything containing it),
// else a *fault.Error of kind Forbidden whose sentence names what is
// missing (Unauthenticated for the zero principal).
func (a *Authorizer) Decide(ctx context.Context, p identity.Principal, priv identity.Privilege, res identity.Resource) error {
	r, err := a.Rights(ctx, p)
	if err != nil {
		return err
	}
	return r.Decide(priv, res)
}

// current returns the index, re-reading grants only when they changed.
func (a *Authorizer) current(ctx context.Context) (*index, error) {
	snap := a.snap.Load()
	st, ok := a.src.GrantStamp()
	if snap != nil && ok && snap.stamped && snap.stamp == st {
		return snap.idx, nil
	}
	// The stamp moved (some write happened) or cannot be trusted: one
	// integer says whether it was a grant.
	gen, err := a.src.GrantGeneration(ctx)
	if err != nil {
		return nil, err
	}
	if snap != nil && gen == snap.idx.gen {
		if ok {
			a.snap.CompareAndSwap(snap, &snapshot{idx: snap.idx, stamp: st, stamped: true})
		}
		return snap.idx, nil
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if cur := a.snap.Load(); cur != nil && cur.idx.gen == gen {
		return cur.idx, nil // another request reloaded meanwhile
	}
	// The stamp is taken again before the read, so a change landing during
	// it makes the next request look again.
	st, ok = a.src.GrantStamp()
	grants, gen, err := a.src.AllGrants(ctx)
	if err != nil {
		return nil, err
	}
	idx := build(grants, gen)
	a.snap.Store(&snapshot{idx: idx, stamp: st, stamped: ok})
	return idx, nil
}

// Unauthenticated is the refusal of a request that reached the authorizer
// with no principal.
func unauthenticated() error {
	return fault.New(fault.Unauthenticated, "credential", "sign in or send a credential: this request names nobody the grants could be about")
}
