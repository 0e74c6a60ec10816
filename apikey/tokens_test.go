package apikey

import (
	"context"
	"errors"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/floe/floe/catalog"
)

// TestTokens: a token lives TokenTTL or until its key expires, whichever is
// first; a Checker with Tokens accepts it as the key and refuses it after.
func TestTokens(t *testing.T) {
	ctx := context.Background()
	keys, secret, k := openKeys(t)
	short, shortSecret, err := keys.CreateAPIKey(ctx, "short", catalog.RoleReadWrite, "", 10*time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	clock := func() time.Time { return now }
	toks := NewTokens(keys, clock)
	c := New(Config{Keys: keys, Tokens: toks, Now: clock})
	cases := []struct {
		name, id, secret string
		ttl              time.Duration
		err              error
	}{
		{"long-lived key", k.ID, secret, TokenTTL, nil},
		{"key expiring sooner", short.ID, shortSecret, 10 * time.Minute, nil},
		{"id does not match", short.ID, secret, 0, ErrInvalidClient},
		{"unknown secret", k.ID, "floe_nope", 0, ErrInvalidClient},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tok, ttl, err := toks.Issue(ctx, tc.id, tc.secret)
			if !errors.Is(err, tc.err) {
				t.Fatalf("Issue err = %v, want %v", err, tc.err)
			}
			if err != nil {
				return
			}
			if ttl > tc.ttl || ttl < tc.ttl-time.Second {
				t.Fatalf("ttl %v, want %v", ttl, tc.ttl)
			}
			r := httptest.NewRequest("GET", "/", nil)
			r.Header.Set("Authorization", "Bearer "+tok)
			got, f := c.Check(r)
			if f != nil || got.ID != tc.id {
				t.Fatalf("Check = %+v, %+v", got, f)
			}
			saved := now
			now = now.Add(tc.ttl)
			_, f = c.Check(r)
			now = saved
			if f == nil || f.Reason != Unknown {
				t.Fatalf("token accepted at its expiry: %+v", f)
			}
		})
	}
}
