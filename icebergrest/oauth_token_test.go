package icebergrest

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/iceberg-go/catalog/rest"
	"github.com/apache/iceberg-go/table"
	"github.com/floe/floe/apikey"
	"github.com/floe/floe/catalog"
)

// postToken sends a token request as a form; basic, when set, is sent as
// HTTP Basic credentials.
func (e *testEnv) postToken(t *testing.T, form url.Values, basic [2]string) (int, map[string]any) {
	t.Helper()
	req, err := http.NewRequest("POST", e.http.URL+"/v1/oauth/tokens", strings.NewReader(form.Encode()))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if basic[0] != "" {
		req.SetBasicAuth(url.QueryEscape(basic[0]), url.QueryEscape(basic[1]))
	}
	resp, err := e.http.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	raw, _ := io.ReadAll(resp.Body)
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatalf("token answer is not JSON (%d): %s", resp.StatusCode, raw)
	}
	return resp.StatusCode, out
}

// clock is a settable time shared by the catalog-facing token store.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// TestOAuthTokens: client credentials (an API key's access key pair, or its
// id and the key) buy a bearer with the key's role and scope; iceberg-go
// configured with credential=<access key id>:<secret> works; wrong, expired and revoked credentials get
// 401 with the spec's bodies.
func TestOAuthTokens(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t, false)
	clk := &clock{t: time.Now()}
	srv := New(Config{Store: e.store, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Tokens: apikey.NewTokens(e.store, clk.now)})
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(hs.Close)
	e.http = hs
	e.bucket(t, "lake", catalog.FormatIceberg)
	e.bucket(t, "other", catalog.FormatIceberg)
	rw, rwSecret, _ := e.store.CreateAPIKey(ctx, "rw", catalog.RoleReadWrite, "", 0)
	ro, roSecret, _ := e.store.CreateAPIKey(ctx, "ro", catalog.RoleReadonly, "", 0)
	sc, scSecret, _ := e.store.CreateAPIKey(ctx, "scoped", catalog.RoleReadWrite, "other", 0)

	t.Run("iceberg-go with credential", func(t *testing.T) {
		cat, err := rest.NewCatalog(ctx, "floe", hs.URL, rest.WithWarehouseLocation("lake"), rest.WithCredential(rw.AccessKeyID+":"+rw.SecretAccessKey))
		if err != nil {
			t.Fatalf("NewCatalog: %v", err)
		}
		if err := cat.CreateNamespace(ctx, table.Identifier{"sales"}, nil); err != nil {
			t.Fatalf("create namespace with a token: %v", err)
		}
		createEventsTable(t, ctx, cat, table.Identifier{"sales", "events"})
	})

	form := func(id, secret string) url.Values {
		return url.Values{"grant_type": {"client_credentials"}, "client_id": {id}, "client_secret": {secret}, "scope": {"catalog"}}
	}
	cases := []struct {
		name  string
		form  url.Values
		basic [2]string
		code  int
		oauth string // expected OAuthError code when not 200
	}{
		{"form credentials", form(rw.ID, rwSecret), [2]string{}, 200, ""},
		{"access key pair", form(rw.AccessKeyID, rw.SecretAccessKey), [2]string{}, 200, ""},
		{"access key pair as basic", url.Values{"grant_type": {"client_credentials"}}, [2]string{ro.AccessKeyID, ro.SecretAccessKey}, 200, ""},
		{"access key id with the wrong secret", form(rw.AccessKeyID, ro.SecretAccessKey), [2]string{}, 401, oauthInvalidClient},
		{"access key id with the API key", form(rw.AccessKeyID, rwSecret), [2]string{}, 401, oauthInvalidClient},
		{"basic credentials", url.Values{"grant_type": {"client_credentials"}}, [2]string{rw.ID, rwSecret}, 200, ""},
		{"wrong secret", form(rw.ID, "floe_0000000000000000000000000000000000000000"), [2]string{}, 401, oauthInvalidClient},
		{"id of another key", form(ro.ID, rwSecret), [2]string{}, 401, oauthInvalidClient},
		{"no secret", form(rw.ID, ""), [2]string{}, 400, oauthInvalidRequest},
		{"no grant type", url.Values{"client_id": {rw.ID}, "client_secret": {rwSecret}}, [2]string{}, 400, oauthInvalidRequest},
		{"token exchange", url.Values{"grant_type": {"urn:ietf:params:oauth:grant-type:token-exchange"}, "subject_token": {"x"}}, [2]string{}, 400, oauthUnsupportedGrantType},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, body := e.postToken(t, c.form, c.basic)
			if code != c.code {
				t.Fatalf("status %d, want %d: %v", code, c.code, body)
			}
			if code == 200 {
				tok, _ := body["access_token"].(string)
				if !strings.HasPrefix(tok, apikey.TokenPrefix) || body["token_type"] != "bearer" || body["expires_in"].(float64) <= 0 {
					t.Fatalf("token answer %v", body)
				}
				return
			}
			if body["error"] != c.oauth || body["error_description"] == "" {
				t.Fatalf("OAuth error %v, want %s with a description", body, c.oauth)
			}
		})
	}

	token := func(id, secret string) string {
		code, body := e.postToken(t, form(id, secret), [2]string{})
		if code != 200 {
			t.Fatalf("token: %d %v", code, body)
		}
		return body["access_token"].(string)
	}
	rwTok, roTok, scTok := token(rw.ID, rwSecret), token(ro.ID, roSecret), token(sc.ID, scSecret)
	if rw.AccessKeyID == "" || rw.SecretAccessKey == "" {
		t.Fatal("CreateAPIKey gave no access key pair")
	}
	rights := []struct {
		name, tok, method, path string
		body                    any
		code                    int
		typ                     string
	}{
		{"readwrite token writes", rwTok, "POST", "/v1/lake/namespaces", map[string]any{"namespace": []string{"n1"}}, 200, ""},
		{"readonly token reads", roTok, "GET", "/v1/lake/namespaces", nil, 200, ""},
		{"readonly token cannot write", roTok, "POST", "/v1/lake/namespaces", map[string]any{"namespace": []string{"n2"}}, 403, typeForbidden},
		{"scoped token in its bucket", scTok, "GET", "/v1/other/namespaces", nil, 200, ""},
		{"scoped token elsewhere", scTok, "GET", "/v1/lake/namespaces", nil, 403, typeForbidden},
		{"made-up token", apikey.TokenPrefix + "AAAAAAAAAAAAAAAAAAAAAAAAAA", "GET", "/v1/lake/namespaces", nil, 401, typeNotAuthorized},
	}
	for _, c := range rights {
		t.Run(c.name, func(t *testing.T) {
			code, body := e.call(t, c.method, c.path, c.tok, c.body)
			if code != c.code || (c.typ != "" && errType(body) != c.typ) {
				t.Fatalf("%d %v, want %d %s", code, body, c.code, c.typ)
			}
		})
	}

	t.Run("revoked key's token", func(t *testing.T) {
		if err := e.store.RevokeAPIKey(ctx, ro.ID); err != nil {
			t.Fatal(err)
		}
		code, body := e.call(t, "GET", "/v1/lake/namespaces", roTok, nil)
		if code != 401 || errType(body) != typeNotAuthorized {
			t.Fatalf("%d %v, want 401 %s", code, body, typeNotAuthorized)
		}
		if code, body := e.postToken(t, form(ro.ID, roSecret), [2]string{}); code != 401 || body["error"] != oauthInvalidClient {
			t.Fatalf("revoked key got a token: %d %v", code, body)
		}
		if code, _ := e.call(t, "GET", "/v1/lake/namespaces", rwTok, nil); code != 200 {
			t.Fatalf("another key's token stopped working after a revoke: %d", code)
		}
	})
	t.Run("expired token", func(t *testing.T) {
		clk.add(apikey.TokenTTL + time.Second)
		code, body := e.call(t, "GET", "/v1/lake/namespaces", rwTok, nil)
		if code != 401 || errType(body) != typeNotAuthorized {
			t.Fatalf("%d %v, want 401 %s", code, body, typeNotAuthorized)
		}
		if code, _ := e.call(t, "GET", "/v1/lake/namespaces", rwSecret, nil); code != 200 {
			t.Fatalf("the key itself stopped working: %d", code)
		}
	})
}
