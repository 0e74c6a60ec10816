package catalog

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/floe/floe/fault"
	"github.com/floe/floe/persist"
)

// Secret shapes: a prefix that says what the secret is, then random base62.
const (
	apiKeyPrefix      = "floe_"
	workerTokenPrefix = "floew_"
	secretRandomLen   = 40 // 40 base62 characters ≈ 238 bits
	// lastUsedEvery is how stale last_used may get before a verify writes it,
	// so a hot API path does not write the database on every request.
	lastUsedEvery = time.Minute
)

func hashSecret(secret string) []byte {
	h := sha256.Sum256([]byte(secret))
	return h[:]
}

// wellFormed rejects obviously wrong secrets before touching the database.
func wellFormed(secret, prefix string) bool {
	rest, ok := strings.CutPrefix(secret, prefix)
	if !ok || len(rest) != secretRandomLen {
		return false
	}
	for i := 0; i < len(rest); i++ {
		if strings.IndexByte(base62, rest[i]) < 0 {
			return false
		}
	}
	return true
}

func errUnknownKey() error {
	return newErr(fault.NotFound, "api_key", "API key is unknown, revoked or expired; create a new one")
}

// ErrKeyExpired is the finer reason of the refusal an expired key gets,
// so each surface can say that it expired (and when) rather than that it
// is unknown.
var ErrKeyExpired = errors.New("API key expired")

func errKeyExpired(id string, at time.Time) error {
	return &fault.Error{Kind: fault.NotFound, Field: "api_key", Err: ErrKeyExpired,
		Message: fmt.Sprintf("API key %s expired at %s; create a new one (floe token create, or the console's API keys page)", id, at.UTC().Format(time.RFC3339))}
}

// CreateAPIKey stores a new key and returns it with its secret (shown once).
// The secret is "floe_" followed by 40 random base62 characters. The key
// also gets a SigV4 access key pair for the S3 Tables surface; the returned
// APIKey carries SecretAccessKey this once. ttl <= 0
// means the key never expires.
func (s *Store) CreateAPIKey(ctx context.Context, name string, role Role, bucket string, ttl time.Duration) (APIKey, string, error) {
	return s.createAPIKey(ctx, name, role, bucket, ttl, "")
}

func (s *Store) createAPIKey(ctx context.Context, name string, role Role, bucket string, ttl time.Duration, system SystemRole) (APIKey, string, error) {
	return s.insertAPIKey(ctx, name, role, bucket, ttl, system, "", nil)
}

// insertAPIKey creates a key; with underToken set, only while that worker
// token exists (fault.NotFound otherwise), checked in the insert itself.
// The key's grant is scope when given, else its role's on its bucket.
func (s *Store) insertAPIKey(ctx context.Context, name string, role Role, bucket string, ttl time.Duration, system SystemRole, underToken string, scope *Grant) (APIKey, string, error) {
	if role != RoleReadWrite && role != RoleReadonly && role != RoleNone {
		return APIKey{}, "", Invalid("role", "API key role must be readwrite, readonly or none")
	}
	if len(name) > maxKeyName {
		return APIKey{}, "", Invalid("name", fmt.Sprintf("API key name must be at most %d characters", maxKeyName))
	}
	if bucket != "" {
		if err := validateBucket("bucket", bucket); err != nil {
			return APIKey{}, "", err
		}
	}
	now := s.now().UTC()
	k := APIKey{ID: "k_" + randomHex(8), Name: name, Role: role, Bucket: bucket, CreatedAt: now, System: system}
	if ttl > 0 {
		k.ExpiresAt = now.Add(ttl)
	}
	secret := apiKeyPrefix + randomBase62(secretRandomLen)
	k.AccessKeyID, k.SecretAccessKey = newAccessKeyPair()
	args := []any{k.ID, k.Name, string(k.Role), k.Bucket,
		hashSecret(secret), micros(now), micros(k.ExpiresAt), k.AccessKeyID, k.SecretAccessKey, string(system)}
	const insert = `INSERT INTO api_keys(id, name, role, bucket, secret_hash, created_at, expires_at,
		access_key_id, secret_access_key, system_role) `
	q := insert + `VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
	if underToken != "" {
		q = insert + `SELECT ?, ?, ?, ?, ?, ?, ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM worker_tokens WHERE id = ?)`
		args = append(args, underToken)
	}
	err := s.inTx(ctx, func(tx *persist.Tx) error {
		res, err := tx.ExecContext(ctx, q, args...)
		if err != nil {
			return dbErr("insert API key", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return errUnknownWorkerToken()
		}
		who := Grantee{Kind: GranteeAPIKey, ID: k.ID}
		if scope != nil {
			_, err := tx.ExecContext(ctx, `INSERT INTO grants(`+grantColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, 'role')`,
				who.Kind, who.ID, scope.Bucket, JoinNamespace(scope.Namespace), scope.Table, scope.Privilege, micros(now))
			if err != nil {
				return dbErr("insert the key's grant", err)
			}
			return nil
		}
		// The role on the bucket scope is the key's first grant
		// (readwrite: manage; readonly: read; none: nothing).
		return s.insertRoleGrant(ctx, tx, who, role, bucket, now)
	})
	if err != nil {
		return APIKey{}, "", err
	}
	return k, secret, nil
}

// VerifyAPIKey finds the key for a secret (fault.NotFound if unknown, revoked or
// expired) and records its last use, at most once a minute per key.
func (s *Store) VerifyAPIKey(ctx context.Context, secret string) (APIKey, error) {
	if !wellFormed(secret, apiKeyPrefix) {
		return APIKey{}, errUnknownKey()
	}
	want := hashSecret(secret)
	var k APIKey
	var role string
	var stored []byte
	var created, lastUsed, expires int64
	err := s.ro.QueryRowContext(ctx, `SELECT id, name, role, bucket, secret_hash, created_at, last_used_at, expires_at
		FROM api_keys WHERE secret_hash = ?`, want).
		Scan(&k.ID, &k.Name, &role, &k.Bucket, &stored, &created, &lastUsed, &expires)
	if errors.Is(err, sql.ErrNoRows) {
		return APIKey{}, errUnknownKey()
	}
	if err != nil {
		return APIKey{}, dbErr("verify API key", err)
	}
	if subtle.ConstantTimeCompare(stored, want) != 1 {
		return APIKey{}, errUnknownKey()
	}
	now := s.now()
	if expires != 0 && micros(now) >= expires {
		return APIKey{}, errKeyExpired(k.ID, fromMicros(expires))
	}
	k.Role, k.CreatedAt, k.LastUsedAt, k.ExpiresAt = Role(role), fromMicros(created), fromMicros(lastUsed), fromMicros(expires)
	if now.Sub(k.LastUsedAt) >= lastUsedEvery {
		// The condition repeats the staleness test so two processes racing
		// here write once; a failed write does not fail the request.
		if _, err := s.db.ExecContext(ctx, `UPDATE api_keys SET last_used_at = ? WHERE id = ? AND last_used_at < ?`,
			micros(now), k.ID, micros(now.Add(-lastUsedEvery))); err == nil {
			k.LastUsedAt = now.UTC()
		}
	}
	return k, nil
}

// ListAPIKeys lists keys, newest first (expired minted keys left out).
func (s *Store) ListAPIKeys(ctx context.Context) ([]APIKey, error) {
	return s.listAPIKeys(ctx, "list API keys", `SELECT id, name, role, bucket, created_at, last_used_at, expires_at, access_key_id, system_role
		FROM api_keys WHERE expires_at = 0 OR expires_at > ? ORDER BY created_at DESC, id`, micros(s.now()))
}

func (s *Store) listAPIKeys(ctx context.Context, what, query string, args ...any) ([]APIKey, error) {
	rows, err := s.ro.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, dbErr(what, err)
	}
	defer rows.Close()
	out := []APIKey{}
	for rows.Next() {
		var k APIKey
		var role string
		var created, lastUsed, expires int64
		var system string
		if err := rows.Scan(&k.ID, &k.Name, &role, &k.Bucket, &created, &lastUsed, &expires, &k.AccessKeyID, &system); err != nil {
			return nil, dbErr(what, err)
		}
		k.System = SystemRole(system)
		k.Role, k.CreatedAt, k.LastUsedAt, k.ExpiresAt = Role(role), fromMicros(created), fromMicros(lastUsed), fromMicros(expires)
		out = append(out, k)
	}
	return out, rows.Err()
}

// RevokeAPIKey deletes a key by id. Key caches in this process drop what
// they hold at once (KeyGeneration changes).
func (s *Store) RevokeAPIKey(ctx context.Context, id string) error {
	res, err := s.db.ExecContext(ctx, `DELETE FROM api_keys WHERE id = ?`, id)
	s.keyGen.Add(1) // even on error: the delete may have landed
	if err != nil {
		return dbErr("revoke API key", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return newErr(fault.NotFound, "id", "API key %q does not exist; it may already be revoked", id)
	}
	return nil
}

// DeleteExpiredAPIKeys removes keys whose expiry has passed (minted worker
// keys accumulate otherwise): keys floe made for itself at once, people's
// keys once they have been listed as expired for ExpiredKeyListed.
func (s *Store) DeleteExpiredAPIKeys(ctx context.Context) error {
	now := s.now()
	if _, err := s.db.ExecContext(ctx, `DELETE FROM api_keys WHERE expires_at <> 0 AND expires_at <= ? AND (`+systemKey+` OR expires_at <= ?)`,
		micros(now), micros(now.Add(-ExpiredKeyListed))); err != nil {
		return dbErr("delete expired API keys", err)
	}
	return nil
}

func errUnknownWorkerToken() error {
	return newErr(fault.NotFound, "worker_token", "worker token is unknown or revoked; create one with floe worker-token create")
}

// CreateWorkerToken stores a new worker token and returns its secret once:
// "floew_" followed by 40 random base62 characters.
func (s *Store) CreateWorkerToken(ctx context.Context, name string) (WorkerToken, string, error) {
	return s.createWorkerToken(ctx, name, "")
}

func (s *Store) createWorkerToken(ctx context.Context, name string, system SystemRole) (WorkerToken, string, error) {
	if len(name) > maxKeyName {
		return WorkerToken{}, "", Invalid("name", fmt.Sprintf("worker token name must be at most %d characters", maxKeyName))
	}
	now := s.now().UTC()
	w := WorkerToken{ID: "w_" + randomHex(8), Name: name, CreatedAt: now, System: system}
	secret := workerTokenPrefix + randomBase62(secretRandomLen)
	if _, err := s.db.ExecContext(ctx, `INSERT INTO worker_tokens(id, name, secret_hash, created_at, system_role) VALUES (?, ?, ?, ?, ?)`,
		w.ID, w.Name, hashSecret(secret), micros(now), string(system)); err != nil {
		return WorkerToken{}, "", dbErr("insert worker token", err)
	}
	return w, secret, nil
}

// VerifyWorkerToken checks a worker token secret and records its last use,
// at most once a minute.
func (s *Store) VerifyWorkerToken(ctx context.Context, secret string) (WorkerToken, error) {
	if !wellFormed(secret, workerTokenPrefix) {
		return WorkerToken{}, errUnknownWorkerToken()
	}
	want := hashSecret(secret)
	var w WorkerToken
	var stored []byte
	var created, lastUsed int64
	err := s.ro.QueryRowContext(ctx, `SELECT id, name, secret_hash, created_at, last_used_at FROM worker_tokens WHERE secret_hash = ?`, want).
		Scan(&w.ID, &w.Name, &stored, &created, &lastUsed)
	if errors.Is(err, sql.ErrNoRows) {
		return WorkerToken{}, errUnknownWorkerToken()
	}
	if err != nil {
		return WorkerToken{}, dbErr("verify worker token", err)
	}
	if subtle.ConstantTimeCompare(stored, want) != 1 {
		return WorkerToken{}, errUnknownWorkerToken()
	}
	w.CreatedAt, w.LastUsedAt = fromMicros(created), fromMicros(lastUsed)
	now := s.now()
	if now.Sub(w.LastUsedAt) >= lastUsedEvery {
		if _, err := s.db.ExecContext(ctx, `UPDATE worker_tokens SET last_used_at = ? WHERE id = ? AND last_used_at < ?`,
			micros(now), w.ID, micros(now.Add(-lastUsedEvery))); err == nil {
			w.LastUsedAt = now.UTC()
		}
	}
	return w, nil
}

// ListWorkerTokens lists worker tokens, newest first.
func (s *Store) ListWorkerTokens(ctx context.Context) ([]WorkerToken, error) {
	rows, err := s.ro.QueryContext(ctx, `SELECT id, name, created_at, last_used_at, system_role FROM worker_tokens ORDER BY created_at DESC, id`)
	if err != nil {
		return nil, dbErr("list worker tokens", err)
	}
	defer rows.Close()
	out := []WorkerToken{}
	for rows.Next() {
		var w WorkerToken
		var created, lastUsed int64
		var system string
		if err := rows.Scan(&w.ID, &w.Name, &created, &lastUsed, &system); err != nil {
			return nil, dbErr("list worker tokens", err)
		}
		w.System = SystemRole(system)
		w.CreatedAt, w.LastUsedAt = fromMicros(created), fromMicros(lastUsed)
		out = append(out, w)
	}
	return out, rows.Err()
}

// WorkerKeyName names an API key minted for a worker connected under the
// worker token tokenID; RevokeWorkerToken deletes every key so named, so a
// key captured from a job message dies with the token it was minted under.
func WorkerKeyName(tokenID, workerID string) string {
	return workerKeyPrefix(tokenID) + workerID
}

func workerKeyPrefix(tokenID string) string { return "worker:" + tokenID + ":" }

// RevokeWorkerToken deletes a worker token and every API key minted under it,
// in one transaction; key caches start over and the OnWorkerTokenRevoked
// functions hear of it (other replicas through FollowRevocations).
func (s *Store) RevokeWorkerToken(ctx context.Context, id string) error {
	err := s.revokeWorkerToken(ctx, id)
	s.keyGen.Add(1) // even on error: the delete may have landed
	if err == nil {
		s.workerTokenRevoked(id)
	}
	return err
}

func (s *Store) revokeWorkerToken(ctx context.Context, id string) error {
	return s.inTx(ctx, func(tx *persist.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM worker_tokens WHERE id = ?`, id)
		if err != nil {
			return dbErr("revoke worker token", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return newErr(fault.NotFound, "id", "worker token %q does not exist; it may already be revoked", id)
		}
		prefix := workerKeyPrefix(id)
		if _, err := tx.ExecContext(ctx, `DELETE FROM api_keys WHERE substr(name, 1, ?) = ?`, len(prefix), prefix); err != nil {
			return dbErr("revoke the worker token's API keys", err)
		}
		return nil
	})
}
