package catalog

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/floe/floe/fault"
)

// TestIdPUsers: a user of the identity provider appears at its first
// sign-in, keeps its name, follows its groups and role, never takes over
// a local user, and has no password.
func TestIdPUsers(t *testing.T) {
	ctx := context.Background()
	s, clk := newClockStore(t)
	if _, err := s.CreateUser(ctx, "ada", "local password", RoleAdmin); err != nil {
		t.Fatal(err)
	}
	const iss = "https://idp.example.test"
	first, err := s.SignInIdPUser(ctx, IdPSignIn{Issuer: iss, Subject: "sub-1", Name: "Ada@Example.test", Groups: []string{"analysts"}, Role: RoleReadonly})
	if err != nil {
		t.Fatal(err)
	}
	if first.Name != "ada-example.test" || !first.FromIdP() || first.Role != RoleReadonly || strings.Join(first.Groups, ",") != "analysts" || !first.LastSignInAt.Equal(clk.t) {
		t.Fatalf("first sign-in = %+v", first)
	}
	t.Run("a name a local user has gets a suffix", func(t *testing.T) {
		u, err := s.SignInIdPUser(ctx, IdPSignIn{Issuer: iss, Subject: "sub-2", Name: "ada", Role: RoleAdmin})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(u.Name, "ada-") || len(u.Name) != len("ada-")+8 {
			t.Fatalf("name = %q, want ada-<8 hex>", u.Name)
		}
		local, err := s.Authenticate(ctx, "ada", "local password")
		if err != nil || local.FromIdP() || local.Role != RoleAdmin {
			t.Fatalf("the local ada changed: %+v, %v", local, err)
		}
	})
	t.Run("the next sign-in keeps the name and follows groups and role", func(t *testing.T) {
		clk.t = clk.t.Add(3600e9)
		u, err := s.SignInIdPUser(ctx, IdPSignIn{Issuer: iss, Subject: "sub-1", Name: "renamed", Groups: []string{"platform", "analysts"}, Role: RoleAdmin})
		if err != nil {
			t.Fatal(err)
		}
		got, err := s.GetUser(ctx, first.Name)
		if err != nil || u.Name != first.Name || got.Role != RoleAdmin || strings.Join(got.Groups, ",") != "platform,analysts" ||
			!got.LastSignInAt.Equal(clk.t) || !got.CreatedAt.Equal(first.CreatedAt) {
			t.Fatalf("second sign-in = %+v, stored %+v, %v", u, got, err)
		}
	})
	t.Run("groups that give no role", func(t *testing.T) {
		u, err := s.SignInIdPUser(ctx, IdPSignIn{Issuer: iss, Subject: "sub-3", Name: "carl", Groups: []string{"marketing"}})
		if err != nil || u.Role != "" || u.Name != "carl" {
			t.Fatalf("sign-in without a role = %+v, %v", u, err)
		}
	})
	t.Run("the same subject of another issuer is another user", func(t *testing.T) {
		u, err := s.SignInIdPUser(ctx, IdPSignIn{Issuer: "https://other.example.test", Subject: "sub-1", Name: "ada-example.test"})
		if err != nil || u.Name == first.Name {
			t.Fatalf("another issuer's sub-1 = %+v, %v", u, err)
		}
	})
	t.Run("no password", func(t *testing.T) {
		for _, pw := range []string{"", "anything at all"} {
			if _, err := s.Authenticate(ctx, first.Name, pw); !errors.Is(err, fault.NotFound) {
				t.Fatalf("password %q signed in an identity-provider user: %v", pw, err)
			}
		}
		wantKind(t, s.SetUserPassword(ctx, first.Name, "a new password"), fault.Conflict)
	})
	t.Run("listed with where they come from", func(t *testing.T) {
		users, err := s.ListUsers(ctx)
		if err != nil {
			t.Fatal(err)
		}
		byName := map[string]User{}
		for _, u := range users {
			byName[u.Name] = u
		}
		if u := byName[first.Name]; u.Issuer != iss || u.Subject != "sub-1" || len(u.Groups) != 2 {
			t.Fatalf("listed %+v", u)
		}
		if u := byName["ada"]; u.FromIdP() || u.Groups != nil {
			t.Fatalf("the local user is listed as %+v", u)
		}
	})
	t.Run("bounds", func(t *testing.T) {
		many := make([]string, maxIdPGroups+1)
		for i := range many {
			many[i] = "g"
		}
		for _, in := range []IdPSignIn{
			{Issuer: iss, Name: "x"},
			{Subject: "s", Name: "x"},
			{Issuer: iss, Subject: "s", Groups: many},
			{Issuer: iss, Subject: "s", Groups: []string{""}},
			{Issuer: iss, Subject: "s", Role: RoleReadWrite},
		} {
			_, err := s.SignInIdPUser(ctx, in)
			wantKind(t, err, fault.Invalid)
		}
	})
}

func TestIdPUserName(t *testing.T) {
	for in, want := range map[string]string{
		"ada":                   "ada",
		"Ada.Lovelace":          "ada.lovelace",
		"ada@example.test":      "ada-example.test",
		"--ada--":               "ada",
		"日本":                    "",
		"":                      "",
		strings.Repeat("a", 80): strings.Repeat("a", maxUserName),
	} {
		if got := idpUserName(in); got != want {
			t.Errorf("idpUserName(%q) = %q, want %q", in, got, want)
		}
	}
}
