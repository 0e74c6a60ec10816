package catalog

import (
	"context"
	"testing"
	"time"
)

// TestExpiredKeysListedForAWhile: a person's expired key is refused at
// once, listed as expired for ExpiredKeyListed and then deleted; a key
// floe minted for a worker, or made for itself, is deleted as it expires.
func TestExpiredKeysListedForAWhile(t *testing.T) {
	s, c := newClockStore(t)
	ctx := context.Background()
	person, secret, err := s.CreateAPIKey(ctx, "nightly", RoleReadonly, "", time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	tok, _, err := s.CreateWorkerToken(ctx, "w")
	if err != nil {
		t.Fatal(err)
	}
	minted, _, err := s.CreateWorkerKey(ctx, tok.ID, "w-1", RoleReadWrite, "", time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	seeder, _, err := s.CreateSystemAPIKey(ctx, "demo-seed", RoleReadWrite, "", time.Minute, SystemDemoSeed)
	if err != nil {
		t.Fatal(err)
	}
	expiredIDs := func() []string {
		t.Helper()
		keys, err := s.ListExpiredAPIKeys(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, k := range keys {
			ids = append(ids, k.ID)
		}
		return ids
	}
	if ids := expiredIDs(); len(ids) != 0 {
		t.Fatalf("expired before their time: %v", ids)
	}
	c.t = c.t.Add(2 * time.Minute)
	if _, err := s.VerifyAPIKey(ctx, secret); err == nil {
		t.Fatal("an expired key verified")
	}
	if err := s.DeleteExpiredAPIKeys(ctx); err != nil {
		t.Fatal(err)
	}
	if ids := expiredIDs(); len(ids) != 1 || ids[0] != person.ID {
		t.Fatalf("expired keys listed %v, want only the person's %s", ids, person.ID)
	}
	for _, id := range []string{person.ID, minted.ID, seeder.ID} {
		if listed(t, s, id) {
			t.Errorf("ListAPIKeys still lists the expired key %s", id)
		}
	}
	var left int
	if err := s.ro.QueryRowContext(ctx, `SELECT count(*) FROM api_keys WHERE id IN (?, ?)`, minted.ID, seeder.ID).Scan(&left); err != nil || left != 0 {
		t.Fatalf("floe's own expired keys kept: %d (%v)", left, err)
	}
	c.t = c.t.Add(ExpiredKeyListed)
	if err := s.DeleteExpiredAPIKeys(ctx); err != nil {
		t.Fatal(err)
	}
	if ids := expiredIDs(); len(ids) != 0 {
		t.Fatalf("still listed after %v: %v", ExpiredKeyListed, ids)
	}
}
