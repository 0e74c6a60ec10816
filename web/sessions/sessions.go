// Package sessions stores the console's scs sessions in floe's database, so
// a signed-in browser survives a restart (and, with a shared database, may
// reach any replica). It owns the sessions table and its migrations.
//
// Renewal is coarse: scs commits a session on every request to push its
// idle expiry on, and a commit that changes nothing but the expiry, and
// that by less than renewSlack, is not written (see CommitCtx). So most
// requests write nothing, and a session idle for its whole timeout still
// expires; one may expire up to renewSlack (a minute at most, a twentieth
// of the idle timeout when that is shorter) before its timeout has run
// from its last request.
package sessions

import (
	"bytes"
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"sync"
	"time"

	"github.com/floe/floe/persist"
)

//go:embed migrations/*.sql migrations/postgres/*.sql
var migrations embed.FS

// MigrationOwner is the name the session migrations are recorded under.
const MigrationOwner = "sessions"

// Store is an scs.Store and scs.CtxStore over the database.
type Store struct {
	db  *persist.DB
	now func() time.Time

	mu   sync.Mutex
	seen map[string]stored // token → the row as this process last read or wrote it
}

// stored is a session row as last read or written here.
type stored struct {
	data   []byte
	expiry time.Time
}

// maxSeen bounds the remembered rows (a few hundred bytes each); past it
// they are forgotten at once, and the next commit of each writes again.
const maxSeen = 10_000

// renewSlack is how far a commit may push a session's expiry on without
// writing it: a twentieth of the time left (the idle timeout, while the
// absolute lifetime is further away), at most a minute.
func renewSlack(left time.Duration) time.Duration { return min(left/20, time.Minute) }

// Migrations returns the session migrations for persist.Migrate, which the
// composition root runs for every owner when it opens the database.
func Migrations() persist.Schema {
	sub, err := fs.Sub(migrations, "migrations")
	if err != nil {
		panic("sessions: embedded migrations: " + err.Error()) // the embed pattern guarantees the folder
	}
	return persist.Schema{Owner: MigrationOwner, Files: sub}
}

// New returns the store over a database the session migrations (Migrations)
// have been applied to. now is the clock; nil means time.Now.
func New(db *persist.DB, now func() time.Time) (*Store, error) {
	if db == nil {
		return nil, errors.New("sessions: an open database is required")
	}
	if now == nil {
		now = time.Now
	}
	return &Store{db: db, now: now}, nil
}

// Find returns session data for a token (scs.Store). Expired sessions are
// not found.
func (s *Store) Find(token string) ([]byte, bool, error) {
	return s.FindCtx(context.Background(), token)
}

// Commit stores session data until expiry (scs.Store).
func (s *Store) Commit(token string, b []byte, expiry time.Time) error {
	return s.CommitCtx(context.Background(), token, b, expiry)
}

// Delete removes a session (scs.Store).
func (s *Store) Delete(token string) error { return s.DeleteCtx(context.Background(), token) }

// FindCtx is Find with the request's context (scs.CtxStore, which scs
// prefers when a store offers it).
func (s *Store) FindCtx(ctx context.Context, token string) ([]byte, bool, error) {
	var b []byte
	var expiry int64
	err := s.db.QueryRowContext(ctx, `SELECT data, expiry FROM sessions WHERE token = ? AND expiry > ?`,
		token, persist.Micros(s.now())).Scan(&b, &expiry)
	if errors.Is(err, sql.ErrNoRows) {
		s.forget(token)
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("sessions: find: %w", err)
	}
	s.remember(token, b, time.UnixMicro(expiry))
	return b, true, nil
}

func (s *Store) remember(token string, b []byte, expiry time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.seen == nil || len(s.seen) >= maxSeen {
		s.seen = make(map[string]stored)
	}
	s.seen[token] = stored{data: bytes.Clone(b), expiry: expiry}
}

func (s *Store) forget(token string) {
	s.mu.Lock()
	delete(s.seen, token)
	s.mu.Unlock()
}

// unchanged reports whether committing b until expiry would only push the
// row's expiry on, by less than renewSlack: the row as last read here has
// the same data and an expiry at most that much earlier. The request that
// commits has just read the row (scs loads before it saves), so what is
// remembered is the row as that request found it.
func (s *Store) unchanged(token string, b []byte, expiry time.Time) bool {
	s.mu.Lock()
	r, ok := s.seen[token]
	s.mu.Unlock()
	if !ok || !bytes.Equal(r.data, b) {
		return false
	}
	ahead := expiry.Sub(r.expiry)
	return ahead >= 0 && ahead < renewSlack(expiry.Sub(s.now()))
}

// CommitCtx is Commit with the request's context (scs.CtxStore).
func (s *Store) CommitCtx(ctx context.Context, token string, b []byte, expiry time.Time) error {
	if b == nil {
		b = []byte{}
	}
	expiry = time.UnixMicro(expiry.UnixMicro()) // as stored
	if s.unchanged(token, b, expiry) {
		return nil // a renewal within the slack: see the package comment
	}
	_, err := s.db.ExecContext(ctx, `INSERT INTO sessions(token, data, expiry) VALUES (?, ?, ?)
		ON CONFLICT(token) DO UPDATE SET data = excluded.data, expiry = excluded.expiry`, token, b, persist.Micros(expiry))
	if err != nil {
		s.forget(token)
		return fmt.Errorf("sessions: commit: %w", err)
	}
	s.remember(token, b, expiry)
	return nil
}

// DeleteCtx is Delete with the request's context (scs.CtxStore).
func (s *Store) DeleteCtx(ctx context.Context, token string) error {
	s.forget(token)
	if _, err := s.db.ExecContext(ctx, `DELETE FROM sessions WHERE token = ?`, token); err != nil {
		return fmt.Errorf("sessions: delete: %w", err)
	}
	return nil
}

// DeleteExpired removes sessions past their expiry; call it now and then
// (floe serve runs it on a ticker).
func (s *Store) DeleteExpired(ctx context.Context) error {
	if _, err := s.db.ExecContext(ctx, `DELETE FROM sessions WHERE expiry <= ?`, persist.Micros(s.now())); err != nil {
		return fmt.Errorf("sessions: delete expired: %w", err)
	}
	return nil
}
