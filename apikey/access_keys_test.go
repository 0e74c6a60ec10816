package apikey

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/fault"
)

// countingAccessKeys is the real catalog, counting access key lookups.
type countingAccessKeys struct {
	*countingKeys
	looked atomic.Int64
}

func (c *countingAccessKeys) LookupAccessKey(ctx context.Context, id string) (catalog.APIKey, error) {
	c.looked.Add(1)
	return c.Store.LookupAccessKey(ctx, id)
}

func TestAccessKeysCacheAndRevoke(t *testing.T) {
	ctx := context.Background()
	keys, _, k := openKeys(t)
	store := &countingAccessKeys{countingKeys: keys}
	now := time.Unix(1_700_000_000, 0)
	ak := NewAccessKeys(store, func() time.Time { return now })
	for range 3 {
		got, err := ak.LookupAccessKey(ctx, k.AccessKeyID)
		if err != nil || got.ID != k.ID || got.SecretAccessKey != k.SecretAccessKey {
			t.Fatalf("lookup = %+v, %v", got, err)
		}
	}
	if n := store.looked.Load(); n != 1 {
		t.Fatalf("catalog asked %d times inside the TTL, want 1", n)
	}
	now = now.Add(CacheTTL)
	if _, err := ak.LookupAccessKey(ctx, k.AccessKeyID); err != nil || store.looked.Load() != 2 {
		t.Fatalf("after the TTL: %v, asked %d (want a fresh lookup)", err, store.looked.Load())
	}
	t.Run("unknown ids are never remembered", func(t *testing.T) {
		before := store.looked.Load()
		for range 2 {
			if _, err := ak.LookupAccessKey(ctx, "FLOEAAAAAAAAAAAAAAAA"); !errors.Is(err, fault.NotFound) {
				t.Fatalf("unknown id: %v", err)
			}
		}
		if n := store.looked.Load() - before; n != 2 {
			t.Fatalf("unknown id looked up %d times, want 2", n)
		}
	})
	t.Run("revocation drops the pair at once", func(t *testing.T) {
		if err := store.RevokeAPIKey(ctx, k.ID); err != nil {
			t.Fatal(err)
		}
		// The clock stands still: only the revoke can make this refusal.
		if _, err := ak.LookupAccessKey(ctx, k.AccessKeyID); !errors.Is(err, fault.NotFound) {
			t.Fatalf("revoked pair: %v, want NotFound at once", err)
		}
	})
}

// TestAccessKeysExpiry: a key that expires inside the TTL is asked for again.
func TestAccessKeysExpiry(t *testing.T) {
	ctx := context.Background()
	keys, _, _ := openKeys(t)
	store := &countingAccessKeys{countingKeys: keys}
	k, _, err := store.CreateAPIKey(ctx, "short", catalog.RoleReadonly, "", 500*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	ak := NewAccessKeys(store, func() time.Time { return now })
	if _, err := ak.LookupAccessKey(ctx, k.AccessKeyID); err != nil {
		t.Fatal(err)
	}
	now = k.ExpiresAt // still inside the cache's TTL
	ak.LookupAccessKey(ctx, k.AccessKeyID)
	if n := store.looked.Load(); n != 2 {
		t.Fatalf("a pair past its key's expiry was answered from the cache (%d lookups)", n)
	}
}
