package web

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/floe/floe/catalog"
)

// TestAPIKeyExpiryInConsole: a key made with a lifetime shows when it
// expires, right after creation and in the list; a lifetime that is not
// one is refused at its field; keys floe made for itself are listed apart,
// folded away, without the red Revoke.
func TestAPIKeyExpiryInConsole(t *testing.T) {
	e := newEnv(t, allSurfaces)
	c := e.admin()
	before := time.Now()
	if r := e.post(c, "/api-keys", url.Values{"name": {"nightly"}, "role": {"readonly"}, "expires_in": {"12h"}}); r.status != http.StatusSeeOther {
		t.Fatalf("create: %d %s", r.status, r.body)
	}
	r := e.get(c, "/api-keys")
	if !strings.Contains(r.text("new-key-expires"), "expires") {
		t.Fatalf("the new key does not say when it expires: %q", r.text("new-key"))
	}
	row := r.doc.Find(`[data-testid="keys-table"] [data-testid="key-row"]`)
	at, err := time.Parse(time.RFC3339, row.Find(`[data-testid="key-expires"]`).AttrOr("data-expires", ""))
	if err != nil || at.Before(before.Add(12*time.Hour-time.Minute)) || at.After(time.Now().Add(12*time.Hour+time.Minute)) {
		t.Fatalf("listed expiry %v (%v), want 12 h from now", at, err)
	}
	if r := e.post(c, "/api-keys", url.Values{"name": {"forever"}, "role": {"readonly"}}); r.status != http.StatusSeeOther {
		t.Fatalf("create without a lifetime: %d", r.status)
	}
	if got := e.get(c, "/api-keys").doc.Find(`[data-testid="key-expires"][data-expires=""]`).Text(); !strings.Contains(got, "never") {
		t.Fatalf("a key without a lifetime: %q", got)
	}
	bad := e.post(c, "/api-keys", url.Values{"name": {"odd"}, "role": {"readonly"}, "expires_in": {"tomorrow"}})
	if bad.status != http.StatusUnprocessableEntity || !strings.Contains(bad.text("error-expires_in"), "30d") ||
		bad.doc.Find(`#key-expires`).AttrOr("value", "") != "tomorrow" {
		t.Fatalf("a bad lifetime: %d %q", bad.status, bad.text("error-expires_in"))
	}

	if _, _, err := e.store.CreateSystemAPIKey(context.Background(), "demo-seed", catalog.RoleReadWrite, "", time.Hour, catalog.SystemDemoSeed); err != nil {
		t.Fatal(err)
	}
	r = e.get(c, "/api-keys")
	if n := r.doc.Find(`[data-testid="keys-table"] [data-testid="key-row"]`).Length(); n != 2 {
		t.Fatalf("%d keys among the user's, want 2 (the system key apart)", n)
	}
	sys := r.doc.Find(`[data-testid="system-keys"] [data-testid="key-row"]`)
	if sys.Length() != 1 || sys.Find(`button.danger`).Length() != 0 || sys.Find(`[data-testid="system-badge"]`).Length() != 1 {
		t.Fatalf("system keys section:\n%s", r.body)
	}
}

// TestAPIKeyListSaysExpired: a key whose lifetime has passed is listed as
// expired with the second it expired at; a living one shows the second it
// will (a key may live seconds).
func TestAPIKeyListSaysExpired(t *testing.T) {
	e := newEnv(t, allSurfaces)
	c := e.admin()
	ctx := context.Background()
	gone, _, err := e.store.CreateAPIKey(ctx, "gone", catalog.RoleReadonly, "", time.Nanosecond)
	if err != nil {
		t.Fatal(err)
	}
	alive, _, err := e.store.CreateAPIKey(ctx, "alive", catalog.RoleReadonly, "", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	r := e.get(c, "/api-keys")
	cell := func(id string) (string, bool) {
		s := r.doc.Find(`[data-testid="key-row"][data-key="` + id + `"] [data-testid="key-expires"]`)
		_, expired := s.Attr("data-expired")
		return strings.Join(strings.Fields(s.Text()), " "), expired
	}
	if got, expired := cell(gone.ID); !expired || got != "expired "+gone.ExpiresAt.UTC().Format("2006-01-02 15:04:05 UTC") {
		t.Errorf("the expired key's cell: %q (marked %v)", got, expired)
	}
	if got, expired := cell(alive.ID); expired || strings.Contains(got, "expired") || got != alive.ExpiresAt.UTC().Format("2006-01-02 15:04:05 UTC") {
		t.Errorf("the living key's cell: %q (marked %v)", got, expired)
	}
}
