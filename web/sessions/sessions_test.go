package sessions

import (
	"context"
	"testing"
	"time"

	"github.com/alexedwards/scs/v2"

	"github.com/floe/floe/persist/persisttest"
)

// The store must satisfy scs's interfaces, so web/ hands it to scs directly.
var (
	_ scs.Store    = (*Store)(nil)
	_ scs.CtxStore = (*Store)(nil)
)

type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

func TestSessions(t *testing.T) {
	ctx := context.Background()
	db := persisttest.Open(t, Migrations())
	c := &clock{t: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	s, err := New(db, c.now)
	if err != nil {
		t.Fatal(err)
	}
	count := func() int {
		var n int
		if err := db.QueryRowContext(ctx, `SELECT COUNT(*) FROM sessions`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	steps := []struct {
		name string
		run  func(t *testing.T)
	}{
		{"commit and find", func(t *testing.T) {
			if err := s.Commit("tok", []byte("data"), c.t.Add(time.Hour)); err != nil {
				t.Fatal(err)
			}
			if err := s.Commit("old", []byte("x"), c.t.Add(time.Minute)); err != nil {
				t.Fatal(err)
			}
			b, ok, err := s.Find("tok")
			if err != nil || !ok || string(b) != "data" {
				t.Fatalf("Find = %q %v %v", b, ok, err)
			}
		}},
		{"commit replaces", func(t *testing.T) {
			if err := s.Commit("tok", []byte("data2"), c.t.Add(time.Hour)); err != nil {
				t.Fatal(err)
			}
			if b, _, _ := s.Find("tok"); string(b) != "data2" {
				t.Errorf("Commit did not replace: %q", b)
			}
		}},
		{"expired is not found and is deleted", func(t *testing.T) {
			c.t = c.t.Add(2 * time.Minute)
			if _, ok, _ := s.Find("old"); ok {
				t.Error("expired session found")
			}
			if err := s.DeleteExpired(ctx); err != nil {
				t.Fatal(err)
			}
			if n := count(); n != 1 {
				t.Errorf("%d sessions after cleanup, want 1", n)
			}
		}},
		{"expiry is stored in microseconds", func(t *testing.T) {
			var expiry int64
			if err := db.QueryRowContext(ctx, `SELECT expiry FROM sessions WHERE token = 'tok'`).Scan(&expiry); err != nil {
				t.Fatal(err)
			}
			if want := time.Date(2026, 1, 2, 4, 4, 5, 0, time.UTC).UnixMicro(); expiry != want {
				t.Errorf("expiry %d, want %d", expiry, want)
			}
		}},
		{"delete", func(t *testing.T) {
			if err := s.Delete("tok"); err != nil {
				t.Fatal(err)
			}
			if _, ok, _ := s.Find("tok"); ok {
				t.Error("deleted session found")
			}
		}},
	}
	for _, st := range steps {
		t.Run(st.name, st.run)
	}
}
