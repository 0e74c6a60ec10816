package sessions

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/alexedwards/scs/v2"

	"github.com/floe/floe/persist/persisttest"
)

// A request that only renews the idle timeout writes nothing while the
// new expiry is within the slack of the stored one; the stored expiry never
// falls more than the slack behind the one asked for, so idle expiry holds
// to within it; a change of data is always written.
func TestCoarseRenewal(t *testing.T) {
	ctx := context.Background()
	db := persisttest.Open(t, Migrations())
	c := &clock{t: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	s, err := New(db, c.now)
	if err != nil {
		t.Fatal(err)
	}
	const idle = time.Hour
	stored := func() time.Time {
		var us int64
		if err := db.QueryRowContext(ctx, `SELECT expiry FROM sessions WHERE token = 'tok'`).Scan(&us); err != nil {
			t.Fatal(err)
		}
		return time.UnixMicro(us)
	}
	data := []byte("signed in")
	if err := s.CommitCtx(ctx, "tok", data, c.t.Add(idle)); err != nil {
		t.Fatal(err)
	}
	writes, last := 1, stored()
	const requests = 360 // one every 10 s for an hour
	for range requests {
		c.t = c.t.Add(10 * time.Second)
		if _, ok, err := s.FindCtx(ctx, "tok"); err != nil || !ok {
			t.Fatalf("Find = %v, %v", ok, err)
		}
		want := c.t.Add(idle)
		if err := s.CommitCtx(ctx, "tok", data, want); err != nil {
			t.Fatal(err)
		}
		got := stored()
		if got != last {
			writes++
			last = got
		}
		if lag := want.Sub(got); lag < 0 || lag > renewSlack(idle) {
			t.Fatalf("stored expiry %v is %v behind the %v asked for (slack %v)", got, lag, want, renewSlack(idle))
		}
	}
	// A minute of slack over an hour of requests every 10 s: one write a
	// minute, not one a request.
	if writes > requests/6+2 {
		t.Errorf("%d writes for %d renewals", writes, requests)
	}
	t.Logf("%d writes for %d renewals", writes, requests)

	t.Run("changed data is written at once", func(t *testing.T) {
		if _, _, err := s.FindCtx(ctx, "tok"); err != nil {
			t.Fatal(err)
		}
		if err := s.CommitCtx(ctx, "tok", []byte("flash"), c.t.Add(idle)); err != nil {
			t.Fatal(err)
		}
		if b, _, _ := s.FindCtx(ctx, "tok"); string(b) != "flash" {
			t.Errorf("data %q after a change", b)
		}
	})
	t.Run("an idle session still expires", func(t *testing.T) {
		c.t = c.t.Add(idle)
		if _, ok, _ := s.FindCtx(ctx, "tok"); ok {
			t.Error("a session idle for its whole timeout was found")
		}
	})
	t.Run("an earlier expiry is written", func(t *testing.T) {
		if err := s.CommitCtx(ctx, "new", data, c.t.Add(idle)); err != nil {
			t.Fatal(err)
		}
		s.FindCtx(ctx, "new")
		if err := s.CommitCtx(ctx, "new", data, c.t.Add(time.Minute)); err != nil { // the absolute lifetime nears
			t.Fatal(err)
		}
		c.t = c.t.Add(2 * time.Minute)
		if _, ok, _ := s.FindCtx(ctx, "new"); ok {
			t.Error("the shortened expiry was not written")
		}
	})
}

// Codec encodes unchanged values to the same bytes every time and reads
// what scs's own gob codec wrote.
func TestCodecIsStable(t *testing.T) {
	deadline := time.Date(2026, 1, 2, 15, 4, 5, 0, time.UTC)
	values := map[string]any{"user": "admin", "role": "admin", "via": "password", "signed_in": int64(42),
		"groups": []string{"a", "b"}, "flash": "done", "x": "y"}
	first, err := Codec{}.Encode(deadline, values)
	if err != nil {
		t.Fatal(err)
	}
	for range 50 {
		b, _ := Codec{}.Encode(deadline, values)
		if !bytes.Equal(b, first) {
			t.Fatal("the same values encoded to different bytes")
		}
	}
	old, err := scs.GobCodec{}.Encode(deadline, values)
	if err != nil {
		t.Fatal(err)
	}
	for name, b := range map[string][]byte{"Codec": first, "scs.GobCodec": old} {
		d, v, err := Codec{}.Decode(b)
		if err != nil || !d.Equal(deadline) || len(v) != len(values) || v["user"] != "admin" || v["signed_in"] != int64(42) {
			t.Errorf("decoding %s: %v %v %v", name, d, v, err)
		}
	}
	if _, v, err := (Codec{}).Decode(mustEncode(t, map[string]any{})); err != nil || v == nil || len(v) != 0 {
		t.Errorf("empty session decodes to %v, %v", v, err)
	}
}

func mustEncode(t *testing.T, v map[string]any) []byte {
	t.Helper()
	b, err := Codec{}.Encode(time.Time{}, v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
