package persist

import (
	"context"
	"testing"
	"time"
)

// Times survive Micros → INTEGER column → FromMicros at microsecond
// precision, in UTC; the zero time is stored as 0 and comes back zero.
func TestTimeRoundTrip(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	if _, err := db.ExecContext(ctx, `CREATE TABLE times (id INTEGER PRIMARY KEY, at INTEGER NOT NULL)`); err != nil {
		t.Fatal(err)
	}
	berlin := time.FixedZone("CET", 3600)
	cases := []struct {
		name   string
		in     time.Time
		stored int64
		want   time.Time
	}{
		{"zero", time.Time{}, 0, time.Time{}},
		{"one microsecond after the epoch", time.Unix(0, 1000), 1, time.Unix(0, 1000).UTC()},
		{"nanoseconds are truncated", time.Date(2026, 11, 30, 14, 0, 0, 123_456_789, time.UTC), 1796047200_123456,
			time.Date(2026, 11, 30, 14, 0, 0, 123_456_000, time.UTC)},
		{"a zone comes back as UTC", time.Date(2026, 1, 1, 1, 0, 0, 0, berlin), 1767225600_000000,
			time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)},
		{"before the epoch", time.Date(1969, 12, 31, 23, 59, 59, 0, time.UTC), -1_000_000,
			time.Date(1969, 12, 31, 23, 59, 59, 0, time.UTC)},
		{"far future", time.Date(9999, 12, 31, 0, 0, 0, 0, time.UTC), 253402214400_000000,
			time.Date(9999, 12, 31, 0, 0, 0, 0, time.UTC)},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := Micros(tc.in); got != tc.stored {
				t.Fatalf("Micros = %d, want %d", got, tc.stored)
			}
			if _, err := db.ExecContext(ctx, `INSERT INTO times(id, at) VALUES (?, ?)`, i, Micros(tc.in)); err != nil {
				t.Fatal(err)
			}
			var n int64
			if err := db.QueryRowContext(ctx, `SELECT at FROM times WHERE id = ?`, i).Scan(&n); err != nil {
				t.Fatal(err)
			}
			got := FromMicros(n)
			if got != tc.want { // == also compares the location: UTC, or zero
				t.Errorf("FromMicros(%d) = %v, want %v", n, got, tc.want)
			}
		})
	}
}

// The SQL expression for "now" agrees with the Go clock.
func TestNowMicrosExpression(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) { testNowMicros(t, openPath(t, b.path(t))) })
	}
}

func testNowMicros(t *testing.T, db *DB) {
	before := Micros(time.Now())
	var now int64
	if err := db.QueryRowContext(context.Background(), `SELECT `+db.Dialect().NowMicros).Scan(&now); err != nil {
		t.Fatal(err)
	}
	after := Micros(time.Now())
	// julianday keeps milliseconds only, so allow a millisecond either side.
	if now < before-1000 || now > after+1000 {
		t.Errorf("NowMicros = %d, Go clock between %d and %d", now, before, after)
	}
}
