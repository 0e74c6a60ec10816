package lancerest

import (
	"context"
	"io"
	"log/slog"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/floe/floe/apikey"
	"github.com/floe/floe/catalog"
)

// TestOAuthTokens: an access token from /v1/oauth/tokens (apikey.Tokens, as
// floe serve shares it) stands in for its key with the same role and scope;
// expired or revoked, it is 401 with the spec's error body.
func TestOAuthTokens(t *testing.T) {
	e := newTestEnv(t, false)
	e.seed()
	var skew atomic.Int64
	toks := apikey.NewTokens(e.store, func() time.Time { return time.Now().Add(time.Duration(skew.Load())) })
	srv := httptest.NewServer(New(Config{Store: e.store, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Tokens: toks}).Handler())
	t.Cleanup(srv.Close)
	e.srv = srv
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
	_, scoped := issue(catalog.RoleReadWrite, "lnc")
	revokedID, revoked := issue(catalog.RoleReadWrite, "")
	e.run(t, []step{
		{name: "readwrite token lists", path: "/v1/namespace/lnc/list", key: rw, status: 200, code: -1},
		{name: "readwrite token declares", path: "/v1/table/lnc$ns$t1/declare", key: rw, status: 200, code: -1},
		{name: "readonly token describes", path: "/v1/table/lnc$ns$t1/describe", key: ro, status: 200, code: -1},
		{name: "readonly token cannot declare", path: "/v1/table/lnc$ns$t2/declare", key: ro, status: 403, code: 15},
		{name: "scoped token elsewhere", path: "/v1/namespace/mix/list", key: scoped, status: 403, code: 15},
		{name: "scoped token at home", path: "/v1/namespace/lnc/list", key: scoped, status: 200, code: -1},
		{name: "unknown token", path: "/v1/namespace/lnc/list", key: apikey.TokenPrefix + "nope", status: 401, code: 16},
	})
	if err := e.store.RevokeAPIKey(ctx, revokedID); err != nil {
		t.Fatal(err)
	}
	e.run(t, []step{{name: "revoked key's token", path: "/v1/namespace/lnc/list", key: revoked, status: 401, code: 16}})
	skew.Store(int64(apikey.TokenTTL + time.Minute))
	e.run(t, []step{{name: "expired token", path: "/v1/namespace/lnc/list", key: rw, status: 401, code: 16}})
}
