package catalog

import (
	"context"
	"time"
)

// ExpiredKeyListed is how long a person's expired API key stays in the
// catalog, listed as expired: long enough for its owner to learn why
// their clients are refused and when that began, short enough that the
// list does not fill with old keys. Keys floe made for itself (minted
// worker keys, which expire all the time) are deleted as they expire.
const ExpiredKeyListed = 7 * 24 * time.Hour

// systemKey is the SQL condition of a key floe made for itself: a system
// role, or minted for a worker (named by WorkerKeyName, which is how
// APIKey.MintedFor and the console's list tell them apart too).
const systemKey = `(system_role <> '' OR name LIKE 'worker:%')`

// ListExpiredAPIKeys lists people's keys that have expired and are kept
// for ExpiredKeyListed, newest expiry first. Every surface refuses them;
// ListAPIKeys, the live keys, leaves them out.
func (s *Store) ListExpiredAPIKeys(ctx context.Context) ([]APIKey, error) {
	return s.listAPIKeys(ctx, "list expired API keys", `SELECT id, name, role, bucket, created_at, last_used_at, expires_at, access_key_id, system_role
		FROM api_keys WHERE expires_at <> 0 AND expires_at <= ? AND NOT `+systemKey+` ORDER BY expires_at DESC, id`, micros(s.now()))
}
