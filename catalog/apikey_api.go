package catalog

import (
	"context"
	"time"
)

// APIKey is a catalog/task API credential. The secret is shown once at
// creation and stored only as a hash.
type APIKey struct {
	ID         string // short public id, e.g. "k_3f9a..."
	Name       string
	Role       Role   // RoleReadWrite or RoleReadonly
	Bucket     string // "" = every bucket
	CreatedAt  time.Time
	LastUsedAt time.Time // zero if never used
	ExpiresAt  time.Time // zero = never (worker keys minted by the plugin channel expire)
}

// CanRead reports whether the key may read the bucket.
func (k APIKey) CanRead(bucket string) bool { return k.Bucket == "" || k.Bucket == bucket }

// CanWrite reports whether the key may change the bucket.
func (k APIKey) CanWrite(bucket string) bool { return k.Role == RoleReadWrite && k.CanRead(bucket) }

// CreateAPIKey stores a new key and returns it with its secret (shown once).
// The secret is "floe_" followed by random characters.
func (s *Store) CreateAPIKey(ctx context.Context, name string, role Role, bucket string, ttl time.Duration) (APIKey, string, error) {
	return APIKey{}, "", errTODO
}

// VerifyAPIKey finds the key for a secret (ErrNotFound if unknown, revoked or
// expired) and records its last use.
func (s *Store) VerifyAPIKey(ctx context.Context, secret string) (APIKey, error) {
	return APIKey{}, errTODO
}

// ListAPIKeys lists keys, newest first (expired minted keys left out).
func (s *Store) ListAPIKeys(ctx context.Context) ([]APIKey, error) { return nil, errTODO }

// RevokeAPIKey deletes a key by id.
func (s *Store) RevokeAPIKey(ctx context.Context, id string) error { return errTODO }

// WorkerToken authenticates a worker on the plugin channel.
type WorkerToken struct {
	ID         string
	Name       string
	CreatedAt  time.Time
	LastUsedAt time.Time
}

// CreateWorkerToken stores a new worker token and returns its secret once.
func (s *Store) CreateWorkerToken(ctx context.Context, name string) (WorkerToken, string, error) {
	return WorkerToken{}, "", errTODO
}

// VerifyWorkerToken checks a worker token secret.
func (s *Store) VerifyWorkerToken(ctx context.Context, secret string) (WorkerToken, error) {
	return WorkerToken{}, errTODO
}

// ListWorkerTokens lists worker tokens, newest first.
func (s *Store) ListWorkerTokens(ctx context.Context) ([]WorkerToken, error) { return nil, errTODO }

// RevokeWorkerToken deletes a worker token.
func (s *Store) RevokeWorkerToken(ctx context.Context, id string) error { return errTODO }
