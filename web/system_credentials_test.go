package web

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/floe/floe/catalog"
)

// TestSystemCredentialsMarked: the bundled workers' tokens, the demo
// seeder's key and keys minted for workers carry a system badge, and their
// revoke confirmations say what stops working; people's credentials keep
// the plain confirmation.
func TestSystemCredentialsMarked(t *testing.T) {
	e := newEnv(t, allSurfaces)
	ctx := context.Background()
	old, _, err := e.store.CreateSystemWorkerToken(ctx, "bundled-lance-worker", catalog.SystemBundledLanceWorker)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(2 * time.Millisecond) // newest first is by creation time
	cur, _, err := e.store.CreateSystemWorkerToken(ctx, "bundled-lance-worker", catalog.SystemBundledLanceWorker)
	if err != nil {
		t.Fatal(err)
	}
	ice, _, err := e.store.CreateSystemWorkerToken(ctx, "bundled-iceberg-worker", catalog.SystemBundledIcebergWorker)
	if err != nil {
		t.Fatal(err)
	}
	mine, _, err := e.store.CreateWorkerToken(ctx, "gpu-box")
	if err != nil {
		t.Fatal(err)
	}
	seed, _, err := e.store.CreateSystemAPIKey(ctx, "demo-seed", catalog.RoleReadWrite, "", time.Hour, catalog.SystemDemoSeed)
	if err != nil {
		t.Fatal(err)
	}
	minted, _, err := e.store.CreateAPIKey(ctx, catalog.WorkerKeyName(cur.ID, "bundled-lance-host"), catalog.RoleReadonly, "", 15*time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	key, _, err := e.store.CreateAPIKey(ctx, "spark", catalog.RoleReadonly, "", 0)
	if err != nil {
		t.Fatal(err)
	}

	w := e.get(e.admin(), "/workers")
	tokens := []struct {
		id, badge, confirm string
	}{
		{cur.ID, "bundled Lance worker", "loses its connection at once and stays disconnected until floe restarts"},
		{old.ID, "bundled Lance worker", "from an earlier start of floe"},
		{ice.ID, "bundled Iceberg worker", "Iceberg maintenance waits"},
		{mine.ID, "", "Workers using it lose their connection"},
	}
	for _, tc := range tokens {
		row := w.doc.Find(`[data-testid="worker-token-row"][data-token="` + tc.id + `"]`)
		badge := strings.TrimSpace(row.Find(`[data-testid="system-badge"]`).Text())
		if (tc.badge == "") != (badge == "") || !strings.Contains(badge, tc.badge) {
			t.Errorf("token %s: badge %q, want %q", tc.id, badge, tc.badge)
		}
		if c := row.Find(`[data-testid="revoke-worker-token-form"]`).AttrOr("data-confirm", ""); !strings.Contains(c, tc.confirm) {
			t.Errorf("token %s: confirmation %q, want it to say %q", tc.id, c, tc.confirm)
		}
	}

	k := e.get(e.admin(), "/api-keys")
	keys := []struct {
		id, badge, confirm string
	}{
		{seed.ID, "demo seeder", "seeding run still in progress fails"},
		{minted.ID, "minted for worker bundled-lance-host", "revoke its worker token instead"},
		{key.ID, "", "Clients using it stop working"},
	}
	for _, tc := range keys {
		row := k.doc.Find(`[data-testid="key-row"][data-key="` + tc.id + `"]`)
		badge := strings.TrimSpace(row.Find(`[data-testid="system-badge"]`).Text())
		if (tc.badge == "") != (badge == "") || !strings.Contains(badge, tc.badge) {
			t.Errorf("key %s: badge %q, want %q", tc.id, badge, tc.badge)
		}
		if c := row.Find(`[data-testid="revoke-key-form"]`).AttrOr("data-confirm", ""); !strings.Contains(c, tc.confirm) {
			t.Errorf("key %s: confirmation %q, want it to say %q", tc.id, c, tc.confirm)
		}
	}
}
