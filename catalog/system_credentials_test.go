package catalog

import (
	"context"
	"testing"
	"time"
)

// TestSystemCredentials: the credentials floe makes for itself keep their
// role through a listing; people's have none; a minted worker key is
// recognised by its name and expiry, not by a name alone.
func TestSystemCredentials(t *testing.T) {
	ctx := context.Background()
	s, _ := newClockStore(t)
	tok, _, err := s.CreateSystemWorkerToken(ctx, "bundled-lance-worker", SystemBundledLanceWorker)
	if err != nil {
		t.Fatal(err)
	}
	mine, _, err := s.CreateWorkerToken(ctx, "bundled-lance-worker") // a person may pick the same name
	if err != nil {
		t.Fatal(err)
	}
	seed, _, err := s.CreateSystemAPIKey(ctx, "demo-seed", RoleReadWrite, "", time.Hour, SystemDemoSeed)
	if err != nil {
		t.Fatal(err)
	}
	plain, _, err := s.CreateAPIKey(ctx, "worker:w_1:spoof", RoleReadonly, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	minted, _, err := s.CreateAPIKey(ctx, WorkerKeyName(tok.ID, "lance-1"), RoleReadonly, "", 15*time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	toks, err := s.ListWorkerTokens(ctx)
	if err != nil {
		t.Fatal(err)
	}
	roles := map[string]SystemRole{}
	for _, w := range toks {
		roles[w.ID] = w.System
	}
	if roles[tok.ID] != SystemBundledLanceWorker || roles[mine.ID] != "" {
		t.Errorf("token roles %v", roles)
	}
	keys, err := s.ListAPIKeys(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range keys {
		_, worker, isMinted := k.MintedFor()
		switch k.ID {
		case seed.ID:
			if k.System != SystemDemoSeed || isMinted {
				t.Errorf("demo key: %q minted %v", k.System, isMinted)
			}
		case plain.ID:
			if k.System != "" || isMinted {
				t.Errorf("a person's key named like a worker key reads as system: %q minted %v", k.System, isMinted)
			}
		case minted.ID:
			if !isMinted || worker != "lance-1" {
				t.Errorf("minted key not recognised: %v %q", isMinted, worker)
			}
		}
	}
}
