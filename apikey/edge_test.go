package apikey

import (
	"errors"
	"net/http/httptest"
	"testing"

	"github.com/floe/floe/edge"
	"github.com/floe/floe/fault"
)

func TestAuthenticateYieldsPrincipal(t *testing.T) {
	keys, secret, k := openKeys(t)
	tokens := NewTokens(keys, nil)
	tok, _, err := tokens.Issue(t.Context(), k.ID, secret)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, header, value string
		anonymous           bool
		wantKind            edge.PrincipalKind
		wantVia             string
		refused             fault.Kind
	}{
		{"x-api-key", "x-api-key", secret, false, edge.APIKey, "x-api-key", ""},
		{"bearer key", "Authorization", "Bearer " + secret, false, edge.APIKey, "bearer", ""},
		{"oauth token", "Authorization", "Bearer " + tok, false, edge.APIKey, "oauth-token", ""},
		{"anonymous", "", "", true, edge.Anonymous, "anonymous", ""},
		{"missing", "", "", false, "", "", fault.Unauthenticated},
		{"wrong", "x-api-key", "floe_0000000000000000000000000000000000000000", true, "", "", fault.Unauthenticated},
		{"malformed", "Authorization", "Basic abc", false, "", "", fault.Unauthenticated},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ch := New(Config{Keys: keys, Anonymous: c.anonymous, Tokens: tokens})
			r := httptest.NewRequest("GET", "/", nil)
			if c.header != "" {
				r.Header.Set(c.header, c.value)
			}
			p, err := ch.Authenticate(r)
			if c.refused != "" {
				if !errors.Is(err, c.refused) || fault.Message(err, "") == "" {
					t.Fatalf("err = %v, want %s with a sentence", err, c.refused)
				}
				return
			}
			if err != nil || p.Kind != c.wantKind || p.Via != c.wantVia {
				t.Fatalf("principal = %+v, %v; want kind %s via %s", p, err, c.wantKind, c.wantVia)
			}
			if c.wantKind == edge.APIKey && (p.ID != k.ID || p.Role != k.Role) {
				t.Fatalf("principal %+v is not key %s", p, k.ID)
			}
		})
	}
}
