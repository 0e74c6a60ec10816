package catalog

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/floe/floe/fault"
)

// TestUserDisableAndRole: a disabled user cannot sign in (the right
// password says so, a wrong one does not), their sessions stop counting,
// enabling lets them back in; a role change sticks; the last enabled admin
// can be neither demoted nor disabled; a password reset signs out the
// sessions signed in before it.
func TestUserDisableAndRole(t *testing.T) {
	ctx := context.Background()
	s, c := newClockStore(t)
	for _, u := range []struct {
		name string
		role Role
	}{{"root", RoleAdmin}, {"ana", RoleReadonly}} {
		if _, err := s.CreateUser(ctx, u.name, "correct horse", u.role); err != nil {
			t.Fatal(err)
		}
	}
	signedIn := c.t
	if _, err := s.SessionUser(ctx, "ana", signedIn); err != nil {
		t.Fatalf("a fresh session: %v", err)
	}
	wantKind(t, ignoreUser(s.SetUserDisabled(ctx, "root", true)), fault.Conflict)
	wantKind(t, ignoreUser(s.SetUserRole(ctx, "root", RoleReadonly)), fault.Conflict)
	if u, err := s.SetUserRole(ctx, "ana", RoleAdmin); err != nil || u.Role != RoleAdmin {
		t.Fatalf("SetUserRole = %+v, %v", u, err)
	}
	// The role's grant follows the role (grants decide what a user may do).
	privs := func(name string) []string {
		t.Helper()
		gs, err := s.ListGrants(ctx, GrantFilter{Grantee: &Grantee{Kind: GranteeUser, ID: name}})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, g := range gs {
			out = append(out, g.Bucket+":"+g.Privilege)
		}
		return out
	}
	if got := privs("ana"); len(got) != 1 || got[0] != ":manage" {
		t.Fatalf("ana's grants after becoming admin: %v", got)
	}
	c.t = c.t.Add(time.Minute)
	u, err := s.SetUserDisabled(ctx, "root", true)
	if err != nil || !u.Disabled() {
		t.Fatalf("SetUserDisabled = %+v, %v", u, err)
	}
	_, err = s.Authenticate(ctx, "root", "correct horse")
	if !errors.Is(err, ErrUserDisabled) || !errors.Is(err, fault.Forbidden) || !strings.Contains(err.Error(), "disabled") {
		t.Fatalf("a disabled user's sign-in: %v", err)
	}
	wantKind(t, ignoreUser(s.Authenticate(ctx, "root", "wrong password")), fault.NotFound) // no hint without the password
	wantKind(t, ignoreUser(s.SessionUser(ctx, "root", signedIn)), fault.Forbidden)
	wantKind(t, ignoreUser(s.SetUserRole(ctx, "ana", RoleReadonly)), fault.Conflict) // root is disabled: ana is the only admin
	if list, _ := s.ListUsers(ctx); len(list) != 2 || !list[1].Disabled() || list[0].Disabled() {
		t.Fatalf("ListUsers = %+v", list)
	}
	if _, err := s.SetUserDisabled(ctx, "root", false); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Authenticate(ctx, "root", "correct horse"); err != nil {
		t.Fatalf("an enabled user's sign-in: %v", err)
	}
	// The disable signed root's old sessions out for good.
	wantKind(t, ignoreUser(s.SessionUser(ctx, "root", signedIn)), fault.Forbidden)
	if _, err := s.SessionUser(ctx, "root", c.t); err != nil {
		t.Fatalf("a session signed in after enabling: %v", err)
	}
	c.t = c.t.Add(time.Minute)
	if err := s.SetUserPassword(ctx, "ana", "battery staple"); err != nil {
		t.Fatal(err)
	}
	wantKind(t, ignoreUser(s.SessionUser(ctx, "ana", signedIn)), fault.Forbidden)
	wantKind(t, ignoreUser(s.SessionUser(ctx, "nobody", signedIn)), fault.NotFound)
}

func ignoreUser(_ User, err error) error { return err }

// TestExpiredKeySaysSo: an expired key is refused with a sentence naming
// it and when it expired, by secret and by access key id alike.
func TestExpiredKeySaysSo(t *testing.T) {
	ctx := context.Background()
	s, c := newClockStore(t)
	k, secret, err := s.CreateAPIKey(ctx, "short-lived", RoleReadonly, "", 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.VerifyAPIKey(ctx, secret); err != nil {
		t.Fatalf("before expiry: %v", err)
	}
	c.t = c.t.Add(2 * time.Second)
	for name, err := range map[string]error{
		"secret":        ignoreKey(s.VerifyAPIKey(ctx, secret)),
		"access key id": ignoreKey(s.LookupAccessKey(ctx, k.AccessKeyID)),
	} {
		if !errors.Is(err, ErrKeyExpired) || !errors.Is(err, fault.NotFound) ||
			!strings.Contains(err.Error(), k.ID+" expired at "+k.ExpiresAt.Format(time.RFC3339)) {
			t.Errorf("%s after expiry: %v", name, err)
		}
	}
}

func ignoreKey(_ APIKey, err error) error { return err }

func TestParseKeyLifetime(t *testing.T) {
	for in, want := range map[string]time.Duration{"": 0, "never": 0, "2s": 2 * time.Second, "45m": 45 * time.Minute, "12h": 12 * time.Hour,
		"30d": 30 * 24 * time.Hour, "2w": 14 * 24 * time.Hour, " 1d ": 24 * time.Hour} {
		if got, err := ParseKeyLifetime(in); err != nil || got != want {
			t.Errorf("ParseKeyLifetime(%q) = %s, %v; want %s", in, got, err, want)
		}
	}
	for _, bad := range []string{"0s", "-1d", "1.5h", "d", "10", "1y", "3651d", "99999999999999999w"} {
		if _, err := ParseKeyLifetime(bad); !errors.Is(err, fault.Invalid) {
			t.Errorf("ParseKeyLifetime(%q) = %v, want Invalid", bad, err)
		}
	}
}

func TestCounted(t *testing.T) {
	for n, want := range map[int]string{0: "0 tables", 1: "1 table", 2: "2 tables"} {
		if got := counted(n, "table", "tables"); got != want {
			t.Errorf("counted(%d) = %q, want %q", n, got, want)
		}
	}
}
