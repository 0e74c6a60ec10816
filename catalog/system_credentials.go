package catalog

import (
	"context"
	"strings"
	"time"
)

// SystemRole names what floe itself made a credential for, so the console
// can mark it and say what stops working if it is revoked. Credentials
// people make have none.
type SystemRole string

// The credentials floe serve makes for itself.
const (
	SystemBundledLanceWorker   SystemRole = "bundled-lance-worker"   // --with-worker's Lance worker token
	SystemBundledIcebergWorker SystemRole = "bundled-iceberg-worker" // --with-worker's Iceberg worker token
	SystemDemoSeed             SystemRole = "demo-seed"              // the key the demo seeder writes with
	// SystemWorkerKey: a key the plugin channel minted for a worker's jobs.
	// Not stored: such keys are recognised by their name (WorkerKeyName).
	SystemWorkerKey SystemRole = "worker-key"
)

// CreateSystemWorkerToken is CreateWorkerToken for a token floe makes for
// itself.
func (s *Store) CreateSystemWorkerToken(ctx context.Context, name string, role SystemRole) (WorkerToken, string, error) {
	return s.createWorkerToken(ctx, name, role)
}

// CreateSystemAPIKey is CreateAPIKey for a key floe makes for itself.
func (s *Store) CreateSystemAPIKey(ctx context.Context, name string, role Role, bucket string, ttl time.Duration, system SystemRole) (APIKey, string, error) {
	return s.createAPIKey(ctx, name, role, bucket, ttl, system)
}

// CreateWorkerKey mints a key for worker workerID connected under the
// worker token tokenID, named WorkerKeyName(tokenID, workerID) so revoking
// the token deletes it. The key is inserted only while the token exists,
// in the insert's own write transaction: a token revoked at the same
// moment by another replica never leaves a key minted after the revoke
// (fault.NotFound then; the revoke deletes those minted before it).
func (s *Store) CreateWorkerKey(ctx context.Context, tokenID, workerID string, role Role, bucket string, ttl time.Duration) (APIKey, string, error) {
	if tokenID == "" {
		return APIKey{}, "", errUnknownWorkerToken()
	}
	return s.insertAPIKey(ctx, WorkerKeyName(tokenID, workerID), role, bucket, ttl, "", tokenID, nil)
}

// CreateScopedWorkerKey is CreateWorkerKey for a key that holds exactly
// scope (its Privilege on its place; the grantee is the new key) instead
// of a role's grant: what one message to the worker needs.
func (s *Store) CreateScopedWorkerKey(ctx context.Context, tokenID, workerID string, scope Grant, ttl time.Duration) (APIKey, string, error) {
	if tokenID == "" {
		return APIKey{}, "", errUnknownWorkerToken()
	}
	role, err := scopeRole(scope)
	if err != nil {
		return APIKey{}, "", err
	}
	return s.insertAPIKey(ctx, WorkerKeyName(tokenID, workerID), role, scope.Bucket, ttl, "", tokenID, &scope)
}

// CreateScopedAPIKey is CreateAPIKey for a key that holds exactly scope
// (its Privilege on its place) instead of a role's grant on a bucket: the
// console's key for one table's Connect snippets reads that table only.
func (s *Store) CreateScopedAPIKey(ctx context.Context, name string, scope Grant, ttl time.Duration) (APIKey, string, error) {
	role, err := scopeRole(scope)
	if err != nil {
		return APIKey{}, "", err
	}
	return s.insertAPIKey(ctx, name, role, scope.Bucket, ttl, "", "", &scope)
}

// scopeRole checks a key's one grant and names the role listings show
// beside it: readonly for read, readwrite for more.
func scopeRole(scope Grant) (Role, error) {
	if err := validatePrivilege(scope.Privilege); err != nil {
		return "", err
	}
	if err := validatePlace(scope.Bucket, scope.Namespace, scope.Table); err != nil {
		return "", err
	}
	if scope.Privilege == "read" {
		return RoleReadonly, nil
	}
	return RoleReadWrite, nil
}

// MintedFor reports the worker token and worker a minted worker key was
// made for (see WorkerKeyName); ok is false for every other key.
func (k APIKey) MintedFor() (tokenID, workerID string, ok bool) {
	rest, found := strings.CutPrefix(k.Name, "worker:")
	if !found || k.ExpiresAt.IsZero() {
		return "", "", false
	}
	tokenID, workerID, ok = strings.Cut(rest, ":")
	return tokenID, workerID, ok
}
