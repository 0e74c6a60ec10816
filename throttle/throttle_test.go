package throttle

import (
	"fmt"
	"testing"
	"time"
)

type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time          { return c.t }
func (c *fakeClock) advance(d time.Duration) { c.t = c.t.Add(d) }

var testPolicy = Policy{Free: 3, Base: time.Second, Max: 8 * time.Second, Forget: time.Hour}

func TestLimiter(t *testing.T) {
	tests := []struct {
		name  string
		steps func(l *Limiter, c *fakeClock) time.Duration
		want  time.Duration
	}{
		{"free failures do not lock", func(l *Limiter, c *fakeClock) time.Duration {
			for range 3 {
				l.Fail("a")
			}
			return l.Wait("a")
		}, 0},
		{"the first failure past the free ones locks for Base", func(l *Limiter, c *fakeClock) time.Duration {
			for range 4 {
				l.Fail("a")
			}
			return l.Wait("a")
		}, time.Second},
		{"each further failure doubles the lock", func(l *Limiter, c *fakeClock) time.Duration {
			for range 6 {
				l.Fail("a")
			}
			return l.Wait("a")
		}, 4 * time.Second},
		{"the lock stops at Max", func(l *Limiter, c *fakeClock) time.Duration {
			for range 40 {
				l.Fail("a")
			}
			return l.Wait("a")
		}, 8 * time.Second},
		{"the lock runs down with the clock", func(l *Limiter, c *fakeClock) time.Duration {
			for range 5 {
				l.Fail("a")
			}
			c.advance(1500 * time.Millisecond)
			return l.Wait("a")
		}, 500 * time.Millisecond},
		{"other keys are not affected", func(l *Limiter, c *fakeClock) time.Duration {
			for range 10 {
				l.Fail("a")
			}
			return l.Wait("b")
		}, 0},
		{"success forgets", func(l *Limiter, c *fakeClock) time.Duration {
			for range 10 {
				l.Fail("a")
			}
			l.Succeed("a")
			l.Fail("a")
			return l.Wait("a")
		}, 0},
		{"an idle key starts again from zero", func(l *Limiter, c *fakeClock) time.Duration {
			for range 5 {
				l.Fail("a")
			}
			c.advance(2 * time.Hour)
			return l.Fail("a")
		}, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := &fakeClock{t: time.Unix(1_700_000_000, 0)}
			l := New(testPolicy, c.now)
			if got := tc.steps(l, c); got != tc.want {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
		})
	}
}

func TestLimiterBoundsItsMemory(t *testing.T) {
	c := &fakeClock{t: time.Unix(1_700_000_000, 0)}
	l := New(testPolicy, c.now)
	for i := range maxKeys + 500 {
		c.advance(time.Millisecond)
		l.Fail(fmt.Sprint("k", i))
	}
	if n := len(l.keys); n > maxKeys {
		t.Fatalf("remembers %d keys, cap is %d", n, maxKeys)
	}
}
