// Package sessions stores the console's scs sessions in floe's database, so
// a signed-in browser survives a restart (and, with a shared database, may
// reach any replica). It owns the sessions table and its migrations.
package sessions

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
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
}

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
	err := s.db.QueryRowContext(ctx, `SELECT data FROM sessions WHERE token = ? AND expiry > ?`,
		token, persist.Micros(s.now())).Scan(&b)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("sessions: find: %w", err)
	}
	return b, true, nil
}

// CommitCtx is Commit with the request's context (scs.CtxStore).
func (s *Store) CommitCtx(ctx context.Context, token string, b []byte, expiry time.Time) error {
	if b == nil {
		b = []byte{}
	}
	_, err := s.db.ExecContext(ctx, `INSERT INTO sessions(token, data, expiry) VALUES (?, ?, ?)
		ON CONFLICT(token) DO UPDATE SET data = excluded.data, expiry = excluded.expiry`, token, b, persist.Micros(expiry))
	if err != nil {
		return fmt.Errorf("sessions: commit: %w", err)
	}
	return nil
}

// DeleteCtx is Delete with the request's context (scs.CtxStore).
func (s *Store) DeleteCtx(ctx context.Context, token string) error {
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
