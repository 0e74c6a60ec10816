package persist

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Retries of a write that met another process's lock. Inside this process
// writers queue on writeSlot and never meet each other; the busy timeout of
// the connection already waits for other processes, so a busy error here
// means that wait ran out, and a few more attempts with a pause ride out a
// long write of the CLI beside the server.
const (
	maxWriteAttempts = 5
	busyBackoff      = 50 * time.Millisecond
)

// Tx is a write transaction. It offers what *sql.Tx does, with placeholders
// rewritten for the dialect. A statement the transaction runs a second time
// is prepared then and reused for the rest of it, so a transaction of many
// like statements (a bulk create) parses each once; a statement run once
// costs what it did (on PostgreSQL a prepare is a round trip of its own).
type Tx struct {
	tx      *sql.Tx
	dialect Dialect
	seen    map[string]*sql.Stmt // nil value: run once, not prepared yet
	trace   func(Statement)      // the DB's (WithTrace)
}

// txStmtCap bounds the statements one transaction keeps prepared.
const txStmtCap = 64

// stmt is the prepared statement for query once it has run before in this
// transaction (nil the first time, or when it cannot be prepared: the
// caller then runs the query as it is).
func (t *Tx) stmt(ctx context.Context, query string) *sql.Stmt {
	st, ok := t.seen[query]
	if st != nil {
		return st
	}
	if t.seen == nil {
		t.seen = map[string]*sql.Stmt{}
	}
	if !ok {
		// A script of several statements is never prepared: a prepared
		// statement would run its first one only.
		if len(t.seen) < txStmtCap && !strings.Contains(strings.TrimRight(query, "; \n\t"), ";") {
			t.seen[query] = nil
		}
		return nil
	}
	st, err := t.tx.PrepareContext(ctx, query)
	if err != nil {
		delete(t.seen, query)
		return nil
	}
	t.seen[query] = st // closed with the transaction
	return st
}

// ExecContext runs a statement in the transaction.
func (t *Tx) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	query = t.dialect.Rebind(query)
	traceStmt(t.trace, query, args)
	if st := t.stmt(ctx, query); st != nil {
		return st.ExecContext(ctx, args...)
	}
	return t.tx.ExecContext(ctx, query, args...)
}

// QueryContext runs a query in the transaction.
func (t *Tx) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	query = t.dialect.Rebind(query)
	traceStmt(t.trace, query, args)
	if st := t.stmt(ctx, query); st != nil {
		return st.QueryContext(ctx, args...)
	}
	return t.tx.QueryContext(ctx, query, args...)
}

// QueryRowContext runs a one-row query in the transaction.
func (t *Tx) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	query = t.dialect.Rebind(query)
	traceStmt(t.trace, query, args)
	if st := t.stmt(ctx, query); st != nil {
		return st.QueryRowContext(ctx, args...)
	}
	return t.tx.QueryRowContext(ctx, query, args...)
}

// PrepareContext prepares a statement used several times in the transaction.
func (t *Tx) PrepareContext(ctx context.Context, query string) (*sql.Stmt, error) {
	query = t.dialect.Rebind(query)
	traceStmt(t.trace, query, nil) // once, without arguments: the statement's runs are not seen
	return t.tx.PrepareContext(ctx, query)
}

// Write runs fn in a write transaction and commits when fn returns nil; an
// error from fn rolls back and is returned as it is. Writes of this process
// run one at a time, in arrival order, through one queue; a caller waiting
// in it gives up when ctx ends.
//
// On SQLite the transaction takes the write lock when it begins (BEGIN
// IMMEDIATE), so another process holding the lock past the busy timeout
// shows up there, before fn ran: that begin is retried here, in one place,
// and fn runs at most once. On PostgreSQL the transaction is SERIALIZABLE,
// so replicas writing at once behave as one writer; the one that loses
// learns it from a statement or the commit, and the whole transaction is
// retried here, so fn may run more than once there and must keep its side
// effects inside tx. Inside fn only tx may touch the database: a second
// connection wanting the write lock would wait on ourselves.
func (db *DB) Write(ctx context.Context, fn func(tx *Tx) error) error {
	select {
	case db.writeSlot <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { <-db.writeSlot }()
	for attempt := 1; ; attempt++ {
		err := db.writeOnce(ctx, fn)
		if err == nil || !db.dialect.BeginSerializable || !db.dialect.IsBusy(err) || attempt == maxWriteAttempts {
			return err
		}
		select {
		case <-time.After(busyBackoff * time.Duration(attempt)):
		case <-ctx.Done():
			return err
		}
	}
}

func (db *DB) writeOnce(ctx context.Context, fn func(tx *Tx) error) error {
	stx, err := db.begin(ctx)
	if err != nil {
		return err
	}
	defer stx.Rollback()
	if err := fn(&Tx{tx: stx, dialect: db.dialect, trace: db.trace}); err != nil {
		return err
	}
	err = stx.Commit()
	db.afterCommit() // even on a failed commit: its outcome is unknown
	if err != nil {
		return &Error{Op: "commit", Err: err}
	}
	return nil
}

// OnCommit registers fn to run after every write transaction of this
// process commits (or fails to commit: the outcome is then unknown), on the
// writer's goroutine before Write returns. A read cache drops its entries
// there, so a caller's own write is never hidden by it. fn must be quick.
func (db *DB) OnCommit(fn func()) {
	db.hooksMu.Lock()
	defer db.hooksMu.Unlock()
	db.hooks = append(db.hooks, fn)
}

func (db *DB) afterCommit() {
	db.hooksMu.Lock()
	hooks := db.hooks
	db.hooksMu.Unlock()
	for _, fn := range hooks {
		fn()
	}
}

// begin starts a write transaction, retrying while the database is busy.
func (db *DB) begin(ctx context.Context) (*sql.Tx, error) {
	var opts *sql.TxOptions
	if db.dialect.BeginSerializable {
		opts = &sql.TxOptions{Isolation: sql.LevelSerializable}
	}
	for attempt := 1; ; attempt++ {
		stx, err := db.sql.BeginTx(ctx, opts)
		if err == nil {
			return stx, nil
		}
		if !db.dialect.IsBusy(err) || attempt == maxWriteAttempts {
			return nil, &Error{Op: "begin transaction", Err: err}
		}
		select {
		case <-time.After(busyBackoff * time.Duration(attempt)):
		case <-ctx.Done():
			return nil, &Error{Op: "begin transaction", Err: err}
		}
	}
}

// ExecContext runs one write statement through the write queue (a
// transaction of one statement).
func (db *DB) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	var res sql.Result
	err := db.Write(ctx, func(tx *Tx) error {
		var err error
		res, err = tx.ExecContext(ctx, query, args...)
		return err
	})
	return res, err
}

// Error is a failure of the database itself (begin, commit), not of a
// caller's statement. It unwraps to the driver's error.
type Error struct {
	Op  string
	Err error
}

func (e *Error) Error() string { return fmt.Sprintf("persist: %s: %v", e.Op, e.Err) }
func (e *Error) Unwrap() error { return e.Err }

// IsBusy reports whether err is the database being locked by another
// process past every retry.
func (db *DB) IsBusy(err error) bool { return err != nil && db.dialect.IsBusy(err) }

// IsUnavailable reports that err comes from a database server that cannot
// be reached (PostgreSQL stopped, restarting or cut off); callers answer
// "try again" (503) rather than an internal error.
func (db *DB) IsUnavailable(err error) bool {
	if err == nil || db.dialect.IsUnavailable == nil ||
		errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false // the caller gave up; the database may be fine
	}
	return db.dialect.IsUnavailable(err)
}

// IsUniqueViolation reports a UNIQUE or PRIMARY KEY conflict.
func (db *DB) IsUniqueViolation(err error) bool {
	return err != nil && !errors.Is(err, context.Canceled) && db.dialect.IsUniqueViolation(err)
}
