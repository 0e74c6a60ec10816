package catalog

import (
	"context"
	"crypto/rand"
	"database/sql"
	"errors"

	"github.com/floe/floe/fault"
)

// SigV4 access key shapes, in AWS's own form so every SDK and the CLI take
// them: a 20-character upper-case id and a 40-character secret.
const (
	accessKeyIDPrefix   = "FLOE"
	accessKeyIDRandom   = 16 // after the prefix: 20 characters in all, like AWS's
	secretAccessKeyLen  = 40 // base62, ≈ 238 bits
	accessKeyIDAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
)

// newAccessKeyPair draws a fresh access key id and secret access key.
func newAccessKeyPair() (id, secret string) {
	buf := make([]byte, accessKeyIDRandom)
	_, _ = rand.Read(buf) // crypto/rand.Read never fails on supported platforms
	out := make([]byte, 0, len(accessKeyIDPrefix)+accessKeyIDRandom)
	out = append(out, accessKeyIDPrefix...)
	for _, b := range buf {
		out = append(out, accessKeyIDAlphabet[b%32]) // 256 = 8*32: uniform
	}
	return string(out), randomBase62(secretAccessKeyLen)
}

// wellFormedAccessKeyID rejects ids that cannot be ours before a query.
func wellFormedAccessKeyID(id string) bool {
	if len(id) != len(accessKeyIDPrefix)+accessKeyIDRandom || id[:len(accessKeyIDPrefix)] != accessKeyIDPrefix {
		return false
	}
	for i := len(accessKeyIDPrefix); i < len(id); i++ {
		c := id[i]
		if (c < 'A' || c > 'Z') && (c < '2' || c > '7') {
			return false
		}
	}
	return true
}

func errUnknownAccessKey() error {
	return newErr(fault.NotFound, "access_key_id", "the access key id is unknown, revoked or expired; create a key with floe token create")
}

// LookupAccessKey finds the API key owning a SigV4 access key id, with its
// secret access key filled so the caller can verify a signature, and records
// the key's last use at most once a minute. fault.NotFound if the id is
// unknown, revoked or expired.
func (s *Store) LookupAccessKey(ctx context.Context, accessKeyID string) (APIKey, error) {
	if !wellFormedAccessKeyID(accessKeyID) {
		return APIKey{}, errUnknownAccessKey()
	}
	var k APIKey
	var role string
	var created, lastUsed, expires int64
	err := s.ro.QueryRowContext(ctx, `SELECT id, name, role, bucket, created_at, last_used_at, expires_at, access_key_id, secret_access_key
		FROM api_keys WHERE access_key_id = ?`, accessKeyID).
		Scan(&k.ID, &k.Name, &role, &k.Bucket, &created, &lastUsed, &expires, &k.AccessKeyID, &k.SecretAccessKey)
	if errors.Is(err, sql.ErrNoRows) {
		return APIKey{}, errUnknownAccessKey()
	}
	if err != nil {
		return APIKey{}, dbErr("look up access key", err)
	}
	now := s.now()
	if expires != 0 && micros(now) >= expires {
		return APIKey{}, errKeyExpired(k.ID, fromMicros(expires))
	}
	k.Role, k.CreatedAt, k.LastUsedAt, k.ExpiresAt = Role(role), fromMicros(created), fromMicros(lastUsed), fromMicros(expires)
	if now.Sub(k.LastUsedAt) >= lastUsedEvery {
		// As in VerifyAPIKey: the repeated staleness test makes racing
		// processes write once; a failed write does not fail the request.
		if _, err := s.db.ExecContext(ctx, `UPDATE api_keys SET last_used_at = ? WHERE id = ? AND last_used_at < ?`,
			micros(now), k.ID, micros(now.Add(-lastUsedEvery))); err == nil {
			k.LastUsedAt = now.UTC()
		}
	}
	return k, nil
}
