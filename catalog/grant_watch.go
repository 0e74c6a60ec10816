package catalog

import (
	"context"
	"sync/atomic"

	"github.com/floe/floe/persist"
	"github.com/floe/floe/persist/notify"
)

// busTopicGrants is the topic of the grants trigger's notification
// (migrations/postgres/0016_grants.sql).
const busTopicGrants = "catalog.grants"

// grantWatch tells the authorizer's in-memory index of grants whether it
// may still be current without a query, the way tableCache does for table
// entries: on PostgreSQL with FollowGrants, an epoch that moves at every
// local commit and at every grants notification, within one bus session;
// on SQLite, the database's change stamp, which any process's commit
// rewrites.
type grantWatch struct {
	bus   *notify.Bus
	epoch atomic.Uint64
}

// GrantStamp is what GrantStamp returns: equal stamps mean no grant can
// have changed in between.
type GrantStamp struct {
	epoch, session uint64
	change         persist.ChangeStamp
}

// FollowGrants makes grant changes by other processes on a shared
// PostgreSQL reach GrantStamp through bus, and every local commit move it.
// With a SQLite bus it does nothing: SQLite's change stamp says it all.
// Call it once, before serving.
func (s *Store) FollowGrants(bus *notify.Bus) {
	if !bus.Remote() {
		return
	}
	w := &s.grants
	w.bus = bus
	bus.Handle(busTopicGrants, func(notify.Message) { w.epoch.Add(1) })
	s.db.OnCommit(func() { w.epoch.Add(1) })
}

// GrantStamp returns a stamp of the grants' state and whether it can be
// trusted: ok is false when nothing says whether grants changed (PostgreSQL
// without FollowGrants or while its listener reconnects), and the caller
// must then ask GrantGeneration.
func (s *Store) GrantStamp() (GrantStamp, bool) {
	w := &s.grants
	if w.bus != nil {
		session := w.bus.Session()
		return GrantStamp{epoch: w.epoch.Load(), session: session}, session != 0
	}
	if s.db.Dialect().Name != "sqlite" {
		return GrantStamp{}, false
	}
	change, ok := s.db.ChangeStamp()
	return GrantStamp{change: change}, ok
}

// GrantGeneration is the count of changes ever made to grants, by any
// process: one row, one integer.
func (s *Store) GrantGeneration(ctx context.Context) (uint64, error) {
	var gen int64
	if err := s.ro.QueryRowContext(ctx, `SELECT gen FROM grant_generation WHERE id = 1`).Scan(&gen); err != nil {
		return 0, dbErr("read the grant generation", err)
	}
	return uint64(gen), nil
}

// maxGrantReadTries bounds AllGrants' retries while grants keep changing
// under it; past it the last read is returned with a generation that
// makes the next caller read again.
const maxGrantReadTries = 3

// unknownGeneration is never a real generation: grants read while they
// kept changing carry it, so the next caller reads them again.
const unknownGeneration = ^uint64(0)

// AllGrants reads every grant with the generation they are the state of:
// the generation is read before and after the rows, and the read is done
// again if it moved in between.
func (s *Store) AllGrants(ctx context.Context) ([]Grant, uint64, error) {
	for try := 0; ; try++ {
		before, err := s.GrantGeneration(ctx)
		if err != nil {
			return nil, 0, err
		}
		gs, err := s.queryGrants(ctx, s.ro, `SELECT `+grantColumns+` FROM grants`)
		if err != nil {
			return nil, 0, err
		}
		after, err := s.GrantGeneration(ctx)
		if err != nil {
			return nil, 0, err
		}
		if after == before {
			return gs, after, nil
		}
		if try+1 >= maxGrantReadTries {
			return gs, unknownGeneration, nil
		}
	}
}
