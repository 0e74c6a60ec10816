package catalog

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"github.com/floe/floe/fault"
	"github.com/floe/floe/persist/pgtest"
)

// While PostgreSQL is down, reads and writes fail as fault.Unavailable with a
// sentence (surfaces answer 503), never as an internal error; once it is
// back the same Store works again, and nothing acknowledged was lost.
// It restarts the package's shared server, so it must not run in parallel.
func TestPostgresStoppedAndRestarted(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s, err := Open(ctx, Options{Path: pgtest.DSN(t), Warehouse: filepath.Join(dir, "warehouse"), BcryptCost: bcrypt.MinCost})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	mustBucket(t, s, "before", FormatLance)
	pgtest.Restart(t, func() {
		cases := []struct {
			name string
			run  func() error
		}{
			{"write", func() error {
				_, err := s.CreateBucket(ctx, CreateBucketInput{Name: "during", Format: FormatLance})
				return err
			}},
			{"read", func() error { _, err := s.GetBucket(ctx, "before"); return err }},
		}
		for _, tc := range cases {
			err := tc.run()
			var ce *fault.Error
			if !errors.Is(err, fault.Unavailable) || !errors.As(err, &ce) || ce.Message == "" {
				t.Errorf("%s while PostgreSQL is down: %v, want fault.Unavailable with a sentence", tc.name, err)
			}
		}
	})
	deadline := time.Now().Add(30 * time.Second)
	for {
		_, err := s.CreateBucket(ctx, CreateBucketInput{Name: "after", Format: FormatLance})
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after the restart the store still fails: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	for _, name := range []string{"before", "after"} {
		if _, err := s.GetBucket(ctx, name); err != nil {
			t.Errorf("bucket %s after the restart: %v", name, err)
		}
	}
	if _, err := s.GetBucket(ctx, "during"); !errors.Is(err, fault.NotFound) {
		t.Errorf("the refused write left bucket during: %v", err)
	}
}
