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
	var b []byte
	err := s.db.QueryRow(`SELECT data FROM sessions WHERE token = ? AND expiry > ?`, token, s.now().UnixNano()).Scan(&b)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, dbErr("find session", err)
	}
	return b, true, nil
}

// Commit stores session data until expiry (scs.Store).
func (s *Store) Commit(token string, b []byte, expiry time.Time) error {
	if b == nil {
		b = []byte{}
	}
	_, err := s.db.Exec(`INSERT INTO sessions(token, data, expiry) VALUES (?, ?, ?)
		ON CONFLICT(token) DO UPDATE SET data = excluded.data, expiry = excluded.expiry`, token, b, expiry.UnixNano())
	if err != nil {
		return dbErr("commit session", err)
	}
	return nil
}

// Delete removes a session (scs.Store).
func (s *Store) Delete(token string) error {
	if _, err := s.db.Exec(`DELETE FROM sessions WHERE token = ?`, token); err != nil {
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
