package catalog

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/floe/floe/fault"
	"golang.org/x/crypto/bcrypt"
)

// clock is a settable test clock.
type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

func newClockStore(t *testing.T) (*Store, *clock) {
	t.Helper()
	c := &clock{t: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	dir := t.TempDir()
	s, err := Open(context.Background(), Options{Path: catalogPath(t, dir), Warehouse: dir + "/wh", Now: c.now, BcryptCost: bcrypt.MinCost})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, c
}

func TestUsers(t *testing.T) {
	ctx := context.Background()
	s := newTestStore(t)
	if n, _ := s.CountUsers(ctx); n != 0 {
		t.Fatalf("fresh store has %d users", n)
	}
	if _, err := s.CreateUser(ctx, "ana", "correct horse", RoleAdmin); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, user, pw string
		role           Role
		kind           error
	}{
		{"duplicate", "ana", "correct horse", RoleAdmin, fault.AlreadyExists},
		{"bad role", "bob", "correct horse", RoleReadWrite, fault.Invalid},
		{"short password", "bob", "short", RoleReadonly, fault.Invalid},
		{"bad name", "Bob!", "correct horse", RoleReadonly, fault.Invalid},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := s.CreateUser(ctx, tc.user, tc.pw, tc.role)
			wantKind(t, err, tc.kind)
		})
	}
	t.Run("authenticate", func(t *testing.T) {
		u, err := s.Authenticate(ctx, "ana", "correct horse")
		if err != nil || u.Role != RoleAdmin {
			t.Fatalf("Authenticate = %+v, %v", u, err)
		}
		for _, bad := range [][2]string{{"ana", "wrong password"}, {"nobody", "correct horse"}} {
			_, err := s.Authenticate(ctx, bad[0], bad[1])
			wantKind(t, err, fault.NotFound)
		}
	})
	t.Run("set password", func(t *testing.T) {
		if err := s.SetUserPassword(ctx, "ana", "new password!"); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Authenticate(ctx, "ana", "correct horse"); err == nil {
			t.Error("old password still works")
		}
		if _, err := s.Authenticate(ctx, "ana", "new password!"); err != nil {
			t.Error(err)
		}
		wantKind(t, s.SetUserPassword(ctx, "nobody", "whatever1"), fault.NotFound)
	})
	t.Run("get", func(t *testing.T) {
		if u, err := s.GetUser(ctx, "ana"); err != nil || u.Name != "ana" {
			t.Errorf("GetUser = %+v, %v", u, err)
		}
		_, err := s.GetUser(ctx, "nobody")
		wantKind(t, err, fault.NotFound)
	})
}

func TestBcryptCost(t *testing.T) {
	s := newTestStore(t)
	h, err := bcrypt.GenerateFromPassword([]byte("x"), s.bcryptCost())
	if c, _ := bcrypt.Cost(h); err != nil || c != bcrypt.MinCost {
		t.Errorf("test store cost %d, %v", c, err)
	}
	if (&Store{}).bcryptCost() != bcrypt.DefaultCost {
		t.Error("zero BcryptCost is not bcrypt.DefaultCost")
	}
	_, err = Open(context.Background(), Options{Path: t.TempDir() + "/c.db", Warehouse: t.TempDir(), BcryptCost: 99})
	wantKind(t, err, fault.Invalid)
}

func TestEnsureAdmin(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name, pw string
	}{
		{"given password", "admin-secret"},
		{"generated password", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := newTestStore(t)
			gen, created, err := s.EnsureAdmin(ctx, tc.pw)
			if err != nil || !created {
				t.Fatalf("EnsureAdmin = %v, %v", created, err)
			}
			pw := tc.pw
			if tc.pw == "" {
				if len(gen) != 20 {
					t.Fatalf("generated %q", gen)
				}
				pw = gen
			} else if gen != "" {
				t.Errorf("generated %q although a password was given", gen)
			}
			if u, err := s.Authenticate(ctx, "admin", pw); err != nil || u.Role != RoleAdmin {
				t.Fatalf("admin cannot sign in: %v", err)
			}
			gen, created, err = s.EnsureAdmin(ctx, "")
			if err != nil || created || gen != "" {
				t.Errorf("second EnsureAdmin = %q %v %v", gen, created, err)
			}
		})
	}
}

func TestAPIKeys(t *testing.T) {
	ctx := context.Background()
	s, c := newClockStore(t)
	rw, secret, err := s.CreateAPIKey(ctx, "spark", RoleReadWrite, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(secret, "floe_") || len(secret) != 45 || !wellFormed(secret, "floe_") {
		t.Fatalf("secret %q", secret)
	}
	var stored []byte
	s.db.QueryRowContext(context.Background(), `SELECT secret_hash FROM api_keys WHERE id = ?`, rw.ID).Scan(&stored)
	if strings.Contains(string(stored), secret[5:]) {
		t.Fatal("secret stored in the clear")
	}

	t.Run("create refuses", func(t *testing.T) {
		for _, r := range []Role{RoleAdmin, "owner"} {
			_, _, err := s.CreateAPIKey(ctx, "x", r, "", 0)
			wantKind(t, err, fault.Invalid)
		}
		_, _, err := s.CreateAPIKey(ctx, "x", RoleReadonly, "Bad$Bucket", 0)
		wantKind(t, err, fault.Invalid)
	})
	t.Run("verify", func(t *testing.T) {
		k, err := s.VerifyAPIKey(ctx, secret)
		if err != nil || k.ID != rw.ID || k.Role != RoleReadWrite || !k.LastUsedAt.Equal(c.t) {
			t.Fatalf("VerifyAPIKey = %+v, %v", k, err)
		}
		for _, bad := range []string{"", "floe_", secret[:44] + "!", "floe_" + strings.Repeat("A", 40), "xx" + secret[2:]} {
			_, err := s.VerifyAPIKey(ctx, bad)
			wantKind(t, err, fault.NotFound)
		}
	})
	t.Run("last used written at most once a minute", func(t *testing.T) {
		first := c.t
		c.t = c.t.Add(30 * time.Second)
		k, _ := s.VerifyAPIKey(ctx, secret)
		if !k.LastUsedAt.Equal(first) {
			t.Errorf("last used moved after 30s: %v", k.LastUsedAt)
		}
		c.t = c.t.Add(31 * time.Second)
		k, _ = s.VerifyAPIKey(ctx, secret)
		if !k.LastUsedAt.Equal(c.t) {
			t.Errorf("last used not updated after a minute: %v", k.LastUsedAt)
		}
	})
	t.Run("scope", func(t *testing.T) {
		ro, roSecret, err := s.CreateAPIKey(ctx, "dash", RoleReadonly, "sales", 0)
		if err != nil {
			t.Fatal(err)
		}
		k, err := s.VerifyAPIKey(ctx, roSecret)
		if err != nil || k.ID != ro.ID {
			t.Fatal(err)
		}
		checks := []struct {
			name      string
			key       APIKey
			bucket    string
			read, wrt bool
		}{
			{"all-bucket readwrite", rw, "any", true, true},
			{"scoped readonly, own bucket", k, "sales", true, false},
			{"scoped readonly, other bucket", k, "hr", false, false},
			{"scoped readwrite, other bucket", APIKey{Role: RoleReadWrite, Bucket: "sales"}, "hr", false, false},
		}
		for _, ch := range checks {
			t.Run(ch.name, func(t *testing.T) {
				if ch.key.CanRead(ch.bucket) != ch.read || ch.key.CanWrite(ch.bucket) != ch.wrt {
					t.Errorf("CanRead %v CanWrite %v", ch.key.CanRead(ch.bucket), ch.key.CanWrite(ch.bucket))
				}
			})
		}
	})
	t.Run("expiry", func(t *testing.T) {
		minted, mSecret, err := s.CreateAPIKey(ctx, "worker-minted", RoleReadWrite, "", 10*time.Minute)
		if err != nil || minted.ExpiresAt.IsZero() {
			t.Fatal(err)
		}
		if _, err := s.VerifyAPIKey(ctx, mSecret); err != nil {
			t.Fatal(err)
		}
		if !listed(t, s, minted.ID) {
			t.Error("live minted key not listed")
		}
		c.t = c.t.Add(11 * time.Minute)
		_, err = s.VerifyAPIKey(ctx, mSecret)
		wantKind(t, err, fault.NotFound)
		if listed(t, s, minted.ID) {
			t.Error("expired minted key listed")
		}
		if err := s.DeleteExpiredAPIKeys(ctx); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("revoke", func(t *testing.T) {
		if err := s.RevokeAPIKey(ctx, rw.ID); err != nil {
			t.Fatal(err)
		}
		_, err := s.VerifyAPIKey(ctx, secret)
		wantKind(t, err, fault.NotFound)
		wantKind(t, s.RevokeAPIKey(ctx, rw.ID), fault.NotFound)
	})
	t.Run("newest first", func(t *testing.T) {
		c.t = c.t.Add(time.Second)
		newest, _, _ := s.CreateAPIKey(ctx, "newest", RoleReadonly, "", 0)
		keys, err := s.ListAPIKeys(ctx)
		if err != nil || len(keys) == 0 || keys[0].ID != newest.ID {
			t.Errorf("ListAPIKeys = %v, %v", keys, err)
		}
	})
}

func listed(t *testing.T, s *Store, id string) bool {
	t.Helper()
	keys, err := s.ListAPIKeys(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range keys {
		if k.ID == id {
			return true
		}
	}
	return false
}

func TestWorkerTokens(t *testing.T) {
	ctx := context.Background()
	s, _ := newClockStore(t)
	w, secret, err := s.CreateWorkerToken(ctx, "lance-1")
	if err != nil || !strings.HasPrefix(secret, "floew_") || len(secret) != 46 {
		t.Fatalf("CreateWorkerToken = %q, %v", secret, err)
	}
	got, err := s.VerifyWorkerToken(ctx, secret)
	if err != nil || got.ID != w.ID || got.LastUsedAt.IsZero() {
		t.Fatalf("VerifyWorkerToken = %+v, %v", got, err)
	}
	_, apiSecret, _ := s.CreateAPIKey(ctx, "k", RoleReadWrite, "", 0)
	cases := []struct{ name, secret string }{
		{"api key is not a worker token", apiSecret},
		{"garbage", "floew_nope"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := s.VerifyWorkerToken(ctx, tc.secret)
			wantKind(t, err, fault.NotFound)
		})
	}
	if list, err := s.ListWorkerTokens(ctx); err != nil || len(list) != 1 {
		t.Errorf("ListWorkerTokens = %v, %v", list, err)
	}
	if err := s.RevokeWorkerToken(ctx, w.ID); err != nil {
		t.Fatal(err)
	}
	_, err = s.VerifyWorkerToken(ctx, secret)
	wantKind(t, err, fault.NotFound)
}
