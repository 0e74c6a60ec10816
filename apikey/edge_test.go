package apikey

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/floe/floe/edge"
	"github.com/floe/floe/fault"
	"github.com/floe/floe/identity"
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

// recordingIdP records the bearers it is handed; the shape rule is what
// is under test, not a provider (package oidc tests the real one).
type recordingIdP struct{ got []string }

func (i *recordingIdP) Authenticate(r *http.Request) (identity.Principal, error) {
	i.got = append(i.got, r.Header.Get("Authorization"))
	return identity.Principal{Kind: identity.Token, ID: "sub", Via: "idp-token"}, nil
}

// TestBearerShapeDecides: a JWT-shaped bearer goes to the identity
// provider's check and never to the key store; floe's keys, access tokens
// and x-api-key never reach the provider's check — one check per request,
// chosen before either runs.
func TestBearerShapeDecides(t *testing.T) {
	keys, secret, k := openKeys(t)
	tokens := NewTokens(keys, nil)
	tok, _, err := tokens.Issue(t.Context(), k.ID, secret)
	if err != nil {
		t.Fatal(err)
	}
	const jwt = "eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln"
	cases := []struct {
		name, header, value string
		toIdP               bool
	}{
		{"a JWT bearer", "Authorization", "Bearer " + jwt, true},
		{"a JWT bearer, any case", "Authorization", "bearer " + jwt, true},
		{"an API key bearer", "Authorization", "Bearer " + secret, false},
		{"floe's access token", "Authorization", "Bearer " + tok, false},
		{"x-api-key", "x-api-key", secret, false},
		{"a JWT in x-api-key", "x-api-key", jwt, false},
		{"floe_ with dots", "Authorization", "Bearer floe_a.b.c", false},
		{"two parts", "Authorization", "Bearer abc.def", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := keys.asked.Load()
			idp := &recordingIdP{}
			ch := New(Config{Keys: keys, Tokens: tokens, IdP: idp})
			r := httptest.NewRequest("GET", "/", nil)
			r.Header.Set(c.header, c.value)
			p, _ := ch.Authenticate(r)
			asked := keys.asked.Load() - before
			switch {
			case c.toIdP && (len(idp.got) != 1 || asked != 0 || p.Kind != identity.Token):
				t.Fatalf("to the provider: provider saw %d, key store asked %d, principal %+v", len(idp.got), asked, p)
			case !c.toIdP && len(idp.got) != 0:
				t.Fatalf("%s reached the provider's check", c.name)
			}
		})
	}
	t.Run("without a provider a JWT is an unknown key", func(t *testing.T) {
		ch := New(Config{Keys: keys, Tokens: tokens})
		r := httptest.NewRequest("GET", "/", nil)
		r.Header.Set("Authorization", "Bearer "+jwt)
		if _, err := ch.Authenticate(r); !errors.Is(err, fault.Unauthenticated) {
			t.Fatalf("err = %v", err)
		}
	})
}
