package s3test

import (
	"errors"
	"os"
	"sync"
	"testing"
)

// shared is the package-wide store Require hands out; Main stops it.
var shared struct {
	once  sync.Once
	dir   string
	store *Store
	err   error
}

// Main runs a test package's tests and stops the shared store (if any test
// started it) before the process exits. Call it from TestMain:
//
//	func TestMain(m *testing.M) { s3test.Main(m) }
func Main(m *testing.M) {
	code := m.Run()
	if shared.store != nil {
		shared.store.Stop()
	}
	if shared.dir != "" {
		os.RemoveAll(shared.dir)
	}
	os.Exit(code)
}

// Require returns the package's shared store, starting it on first use.
// Tests that stop the store must use [New] instead.
func Require(t testing.TB) *Store {
	t.Helper()
	shared.once.Do(func() {
		if _, err := weedPath(); err != nil {
			shared.err = err
			return
		}
		shared.dir, shared.err = os.MkdirTemp("", "floe-s3test-")
		if shared.err != nil {
			return
		}
		shared.store, shared.err = start(shared.dir, false, false)
	})
	unavailable(t, shared.err)
	return shared.store
}

// New starts a store of the test's own, stopped at cleanup: for tests that
// stop and restart it.
func New(t testing.TB) *Store {
	t.Helper()
	return own(t, false)
}

// NewWithAdminUI starts a store of the test's own with weed's admin UI on
// (at Store.Admin, loopback, no password), stopped at cleanup: for
// benchmarks that measure the admin's pages. The other stores run without
// it, which saves their start-up the admin and its worker.
func NewWithAdminUI(t testing.TB) *Store {
	t.Helper()
	return own(t, true)
}

// own starts a store of the test's own (adminUI: with weed's admin UI),
// stopped at cleanup.
func own(t testing.TB, adminUI bool) *Store {
	t.Helper()
	_, err := weedPath()
	unavailable(t, err)
	s, err := start(t.TempDir(), false, adminUI)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Stop)
	return s
}

// Bucket creates a fresh bucket in s for one test.
func (s *Store) Bucket(t testing.TB) string {
	t.Helper()
	name, err := s.CreateBucket(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return name
}

// unavailable skips (locally) or fails (in CI, where the store must run)
// when the store could not be had.
func unavailable(t testing.TB, err error) {
	t.Helper()
	switch {
	case err == nil:
	case errors.Is(err, errNoWeed) && os.Getenv("CI") == "":
		t.Skip(err)
	default:
		t.Fatal(err)
	}
}
