package taskapi

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/floe/floe/apikey"
	"github.com/floe/floe/catalog"
)

// TestOAuthTokens: an access token from /v1/oauth/tokens (apikey.Tokens, as
// floe serve shares it) stands in for its key with the same role and scope;
// expired or revoked, it is 401.
func TestOAuthTokens(t *testing.T) {
	e := newEnv(t, envOpts{})
	var skew atomic.Int64
	toks := apikey.NewTokens(e.store, func() time.Time { return time.Now().Add(time.Duration(skew.Load())) })
	e.srv = httptest.NewServer(New(Config{Store: e.store, Tasks: e.svc, Tokens: toks}))
	t.Cleanup(e.srv.Close)
	ctx := context.Background()
	issue := func(role catalog.Role, bucket string) (string, string) {
		k, secret, err := e.store.CreateAPIKey(ctx, "oauth", role, bucket, 0)
		if err != nil {
			t.Fatal(err)
		}
		tok, _, err := toks.Issue(ctx, k.ID, secret)
		if err != nil {
			t.Fatal(err)
		}
		return k.ID, tok
	}
	_, rw := issue(catalog.RoleReadWrite, "")
	_, ro := issue(catalog.RoleReadonly, "")
	_, other := issue(catalog.RoleReadWrite, "otherbucket")
	revokedID, revoked := issue(catalog.RoleReadWrite, "")
	list := call{method: "GET", path: "/table/ns$tbl/tasks?task_type=lance_compact"}
	del := call{method: "DELETE", path: "/table/ns$tbl/tasks/nope"}
	with := func(c call, tok string) call {
		c.key = "-"
		c.header = map[string]string{"Authorization": "Bearer " + tok}
		return c
	}
	cases := []struct {
		name   string
		c      call
		status int
	}{
		{"readwrite token reads", with(list, rw), http.StatusOK},
		{"readwrite token writes", with(del, rw), http.StatusNotFound},
		{"readonly token reads", with(list, ro), http.StatusOK},
		{"readonly token cannot write", with(del, ro), http.StatusForbidden},
		{"token scoped to another bucket", with(list, other), http.StatusForbidden},
		{"unknown token", with(list, apikey.TokenPrefix+"nope"), http.StatusUnauthorized},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := e.do(tc.c); int(got.status) != tc.status {
				t.Fatalf("= %d %s, want %d", got.status, got.body, tc.status)
			}
		})
	}
	if err := e.store.RevokeAPIKey(ctx, revokedID); err != nil {
		t.Fatal(err)
	}
	if got := e.do(with(list, revoked)); got.status != http.StatusUnauthorized {
		t.Fatalf("revoked key's token = %d, want 401", got.status)
	}
	skew.Store(int64(apikey.TokenTTL + time.Minute))
	if got := e.do(with(list, rw)); got.status != http.StatusUnauthorized {
		t.Fatalf("expired token = %d, want 401", got.status)
	}
}
