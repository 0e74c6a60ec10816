package persist

import (
	"context"
	"database/sql"
	"sync"
)

// maxCachedStatements bounds the prepared-statement cache. Queries are
// built from constant fragments, so the distinct set is small; the cap only
// guards against a future caller building SQL from data.
const maxCachedStatements = 256

// stmtCache prepares each distinct read query once and reuses it, so hot
// reads (describe, key checks, listings) skip statement compilation.
// database/sql re-prepares a Stmt per connection on first use there, which
// stays correct across the pool.
type stmtCache struct {
	db      *sql.DB
	dialect Dialect
	mu      sync.RWMutex
	m       map[string]*sql.Stmt
}

func newStmtCache(db *sql.DB, d Dialect) *stmtCache {
	return &stmtCache{db: db, dialect: d, m: make(map[string]*sql.Stmt)}
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
	st, err := c.db.PrepareContext(ctx, c.dialect.Rebind(query))
	if err != nil {
		return nil // the unprepared path reports the error
	}
	c.m[query] = st
	return st
}

func (c *stmtCache) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, st := range c.m {
		st.Close()
	}
	c.m = nil
}

// QueryContext runs a read outside any transaction, through a cached
// prepared statement.
func (db *DB) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	if db.trace != nil {
		db.trace(Statement{Query: db.dialect.Rebind(query), Args: args})
	}
	if st := db.reads.stmt(ctx, query); st != nil {
		return st.QueryContext(ctx, args...)
	}
	return db.sql.QueryContext(ctx, db.dialect.Rebind(query), args...)
}

// QueryRowContext is QueryContext for one row.
func (db *DB) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	if db.trace != nil {
		db.trace(Statement{Query: db.dialect.Rebind(query), Args: args})
	}
	if st := db.reads.stmt(ctx, query); st != nil {
		return st.QueryRowContext(ctx, args...)
	}
	return db.sql.QueryRowContext(ctx, db.dialect.Rebind(query), args...)
}
