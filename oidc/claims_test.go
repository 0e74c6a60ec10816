package oidc

import (
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rsa"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/identity"
)

func TestGroupsFrom(t *testing.T) {
	cases := []struct {
		name, claims, path string
		want               string // groups joined by ","
		present, fails     bool
	}{
		{"list", `{"groups":["a","b"]}`, "groups", "a,b", true, false},
		{"one string", `{"groups":"a"}`, "groups", "a", true, false},
		{"trimmed and deduplicated", `{"groups":[" a ","a","","b"]}`, "groups", "a,b", true, false},
		{"absent", `{"sub":"x"}`, "groups", "", false, false},
		{"null", `{"groups":null}`, "groups", "", true, false},
		{"dotted path", `{"realm_access":{"roles":["admin"]}}`, "realm_access.roles", "admin", true, false},
		{"dotted path through a string", `{"realm_access":"x"}`, "realm_access.roles", "", false, false},
		{"numbers", `{"groups":[1,2]}`, "groups", "", true, true},
		{"an object", `{"groups":{"a":1}}`, "groups", "", true, true},
		{"a control character", `{"groups":["a\u0000b"]}`, "groups", "", true, true},
		{"too long a name", `{"groups":["` + strings.Repeat("g", maxGroupName+1) + `"]}`, "groups", "", true, true},
		{"too many", `{"groups":[` + strings.TrimSuffix(strings.Repeat(`"g",`, maxGroups+1), ",") + `]}`, "groups", "", true, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var m map[string]any
			if err := json.Unmarshal([]byte(c.claims), &m); err != nil {
				t.Fatal(err)
			}
			got, present, err := groupsFrom(m, c.path)
			if (err != nil) != c.fails || present != c.present || strings.Join(got, ",") != c.want {
				t.Fatalf("groupsFrom = %q, %v, %v; want %q, present %v, fails %v", got, present, err, c.want, c.present, c.fails)
			}
		})
	}
}

// FuzzGroupsFrom: whatever claims a token carries, the groups read from
// it are within the bounds and printable, and reading never panics.
func FuzzGroupsFrom(f *testing.F) {
	for _, s := range []string{`{"groups":["a","b"]}`, `{"groups":"a"}`, `{"g":{"h":["x"]}}`, `{"groups":[1]}`, `{}`} {
		f.Add(s, "groups")
	}
	f.Add(`{"g":{"h":["x"]}}`, "g.h")
	f.Fuzz(func(t *testing.T, claims, path string) {
		var m map[string]any
		if json.Unmarshal([]byte(claims), &m) != nil {
			return
		}
		groups, _, err := groupsFrom(m, path)
		if err != nil {
			return
		}
		if len(groups) > maxGroups {
			t.Fatalf("%d groups", len(groups))
		}
		for _, g := range groups {
			if g == "" || len(g) > maxGroupName || !printable(g) {
				t.Fatalf("group %q escaped the bounds", g)
			}
		}
	})
}

func TestRights(t *testing.T) {
	r := Rights{AdminGroup: "platform", ReadonlyGroup: "analysts"}
	cases := []struct {
		groups       []string
		console, tok catalog.Role
	}{
		{[]string{"platform"}, catalog.RoleAdmin, catalog.RoleReadWrite},
		{[]string{"analysts"}, catalog.RoleReadonly, catalog.RoleReadonly},
		{[]string{"analysts", "platform"}, catalog.RoleAdmin, catalog.RoleReadWrite},
		{[]string{"marketing"}, "", ""},
		{nil, "", ""},
	}
	for _, c := range cases {
		if got := r.ConsoleRole(c.groups); got != c.console {
			t.Errorf("ConsoleRole(%v) = %q, want %q", c.groups, got, c.console)
		}
		if got := r.TokenRole(c.groups); got != c.tok {
			t.Errorf("TokenRole(%v) = %q, want %q", c.groups, got, c.tok)
		}
	}
	if got := (Rights{}).ConsoleRole([]string{""}); got != "" {
		t.Fatalf("no rule gave %q to the empty group", got)
	}
}

// TestCappedBody: an answer of the provider longer than maxIdPResponse is
// an error, one of exactly that length is read whole.
func TestCappedBody(t *testing.T) {
	for _, c := range []struct {
		n    int
		fail bool
	}{{maxIdPResponse, false}, {maxIdPResponse + 1, true}, {10, false}} {
		b := &cappedBody{ReadCloser: io.NopCloser(strings.NewReader(strings.Repeat("x", c.n))), left: maxIdPResponse}
		got, err := io.ReadAll(b)
		if (err != nil) != c.fail || (!c.fail && len(got) != c.n) {
			t.Errorf("%d bytes: read %d, %v", c.n, len(got), err)
		}
	}
}

// FuzzParseKeySet: any key set document parses or fails without a panic,
// and every key kept is a public key.
func FuzzParseKeySet(f *testing.F) {
	f.Add([]byte(`{"keys":[{"kty":"EC","crv":"P-256","x":"f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU","y":"x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0","kid":"a","use":"sig"}]}`))
	f.Add([]byte(`{"keys":[{"kty":"oct","k":"AAAA"}]}`))
	f.Add([]byte(`{"keys":[{"kty":"nope"}]}`))
	f.Add([]byte(`{}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		keys, err := parseKeySet(body)
		if err != nil {
			return
		}
		for kid, pubs := range keys {
			for _, k := range pubs {
				switch k.(type) {
				case *rsa.PublicKey, *ecdsa.PublicKey, ed25519.PublicKey:
				default:
					t.Fatalf("key %q of type %T is not a public key", kid, k)
				}
			}
		}
	})
}

// TestVerifiedTokens: a remembered token is answered until its expiry or
// verifiedTTL, whichever comes first, and never after.
func TestVerifiedTokens(t *testing.T) {
	var v verifiedTokens
	now := time.Unix(1_800_000_000, 0)
	long, short := [32]byte{1}, [32]byte{2}
	v.put(long, identity.Principal{ID: "long"}, now.Add(time.Hour), now)
	v.put(short, identity.Principal{ID: "short"}, now.Add(10*time.Second), now)
	for _, c := range []struct {
		sum  [32]byte
		at   time.Duration
		want bool
	}{
		{long, 0, true}, {long, verifiedTTL - time.Second, true}, {long, verifiedTTL, false},
		{short, 9 * time.Second, true}, {short, 10 * time.Second, false},
		{[32]byte{3}, 0, false},
	} {
		if _, ok := v.get(c.sum, now.Add(c.at)); ok != c.want {
			t.Errorf("token %x at +%s: remembered %v, want %v", c.sum[0], c.at, ok, c.want)
		}
	}
}
