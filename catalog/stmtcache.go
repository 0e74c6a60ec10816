package catalog

import (
	"context"
	"database/sql"
	"sync"
)

// maxCachedStatements bounds the prepared-statement cache. Queries are
// built from constant fragments, so the distinct set is small; the cap only
// guards against a future caller building SQL from data.
const maxCachedStatements = 256

// stmtCache is a querier over *sql.DB that prepares each distinct query once
// and reuses it, so hot reads (describe, key checks, listings) skip SQLite's
// statement compilation. database/sql re-prepares a Stmt per connection on
// first use there, which stays correct across the pool.
type stmtCache struct {
	db *sql.DB
	mu sync.RWMutex
	m  map[string]*sql.Stmt
}

func newStmtCache(db *sql.DB) *stmtCache {
	return &stmtCache{db: db, m: make(map[string]*sql.Stmt)}
}

func (c *stmtCache) stmt(ctx context.Context, query string) *sql.Stmt {
	c.mu.RLock()
	st := c.m[query]
	c.mu.RUnlock()
	if st != nil {
		return st
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if st = c.m[query]; st != nil {
		return st
	}
	if c.m == nil || len(c.m) >= maxCachedStatements { // closed, or full
		return nil
	}
	st, err := c.db.PrepareContext(ctx, query)
	if err != nil {
		return nil // the unprepared path reports the error
	}
	c.m[query] = st
	return st
}

func (c *stmtCache) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	if st := c.stmt(ctx, query); st != nil {
		return st.ExecContext(ctx, args...)
	}
	return c.db.ExecContext(ctx, query, args...)
}

func (c *stmtCache) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	if st := c.stmt(ctx, query); st != nil {
		return st.QueryContext(ctx, args...)
	}
	return c.db.QueryContext(ctx, query, args...)
}

func (c *stmtCache) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	if st := c.stmt(ctx, query); st != nil {
		return st.QueryRowContext(ctx, args...)
	}
	return c.db.QueryRowContext(ctx, query, args...)
}

func (c *stmtCache) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, st := range c.m {
		st.Close()
	}
	c.m = nil
}
