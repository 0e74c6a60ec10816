package catalog

import (
	"context"
	"database/sql"
	"errors"
	"time"
)

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
	err := s.ro.QueryRowContext(ctx, `SELECT data FROM sessions WHERE token = ? AND expiry > ?`, token, s.now().UnixNano()).Scan(&b)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, dbErr("find session", err)
	}
	return b, true, nil
}

// CommitCtx is Commit with the request's context (scs.CtxStore).
func (s *Store) CommitCtx(ctx context.Context, token string, b []byte, expiry time.Time) error {
	if b == nil {
		b = []byte{}
	}
	_, err := s.db.ExecContext(ctx, `INSERT INTO sessions(token, data, expiry) VALUES (?, ?, ?)
		ON CONFLICT(token) DO UPDATE SET data = excluded.data, expiry = excluded.expiry`, token, b, expiry.UnixNano())
	if err != nil {
		return dbErr("commit session", err)
	}
	return nil
}

// DeleteCtx is Delete with the request's context (scs.CtxStore).
func (s *Store) DeleteCtx(ctx context.Context, token string) error {
	if _, err := s.db.ExecContext(ctx, `DELETE FROM sessions WHERE token = ?`, token); err != nil {
		return dbErr("delete session", err)
	}
	return nil
}

// DeleteExpiredSessions removes sessions past their expiry; call it now and
// then (floe serve runs it on a ticker).
func (s *Store) DeleteExpiredSessions(ctx context.Context) error {
	if _, err := s.db.ExecContext(ctx, `DELETE FROM sessions WHERE expiry <= ?`, s.now().UnixNano()); err != nil {
		return dbErr("delete expired sessions", err)
	}
	return nil
}
