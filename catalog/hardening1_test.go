package catalog

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/floe/floe/fault"
	"github.com/floe/floe/persist/pgtest"
)

// Hardening item 1, the catalog's half (internal/replicas runs the same
// through two floe processes): on one PostgreSQL, a key revoked through
// store A moves store B's key generation, B hears each worker token A
// revokes, and a key is never minted under a token that is gone.
func TestHardening1RevocationsReachOtherStores(t *testing.T) {
	dsn, dir := pgtest.DSN(t), t.TempDir()
	wh := filepath.Join(dir, "warehouse")
	a, _ := replicaStore(t, dsn, wh, "A")
	b, busB := replicaStore(t, dsn, wh, "B")
	b.FollowRevocations(busB)
	heard := make(chan string, 16)
	b.OnWorkerTokenRevoked(func(id string) { heard <- id })
	ctx := context.Background()
	moved := func(what string, from uint64) {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second)
		for b.KeyGeneration() == from {
			if time.Now().After(deadline) {
				t.Fatalf("B's key generation never moved after %s", what)
			}
			time.Sleep(5 * time.Millisecond) // polling interval
		}
	}

	key, _, err := a.CreateAPIKey(ctx, "k", RoleReadonly, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	gen := b.KeyGeneration()
	if err := a.RevokeAPIKey(ctx, key.ID); err != nil {
		t.Fatal(err)
	}
	moved("A revoked a key", gen)

	tok, _, err := a.CreateWorkerToken(ctx, "w")
	if err != nil {
		t.Fatal(err)
	}
	minted, _, err := b.CreateWorkerKey(ctx, tok.ID, "worker-1", RoleReadonly, "", time.Minute)
	if err != nil {
		t.Fatalf("mint under a live token: %v", err)
	}
	if got, ok := func() (string, bool) { id, _, ok := minted.MintedFor(); return id, ok }(); !ok || got != tok.ID {
		t.Fatalf("minted key %q is not named after its token", minted.Name)
	}
	gen = b.KeyGeneration()
	if err := a.RevokeWorkerToken(ctx, tok.ID); err != nil {
		t.Fatal(err)
	}
	select {
	case id := <-heard:
		if id != tok.ID {
			t.Fatalf("B heard worker token %q revoked, want %q", id, tok.ID)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("B never heard of the worker token A revoked")
	}
	if b.KeyGeneration() == gen {
		t.Error("B's key generation did not move with the worker token's keys")
	}
	keys, err := b.ListAPIKeys(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range keys {
		if k.ID == minted.ID {
			t.Error("the key minted under the revoked token survived it")
		}
	}
	if _, _, err := b.CreateWorkerKey(ctx, tok.ID, "worker-1", RoleReadonly, "", time.Minute); !errors.Is(err, fault.NotFound) {
		t.Fatalf("mint under a revoked token = %v, want fault.NotFound", err)
	}
}
