package web

import (
	"context"
	"io"
	"log/slog"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/handlers"
	"github.com/floe/floe/internal/dbschema"
	"github.com/floe/floe/persist/persisttest"
	"github.com/floe/floe/warehouse"
)

// fakeStorage answers like warehouse.Health over a store that is up or down.
type fakeStorage struct{ down atomic.Bool }

const storeDownReason = "the S3 store at http://127.0.0.1:1 cannot be reached (connection refused)"

func (f *fakeStorage) Check(context.Context) warehouse.HealthStatus { return f.Status() }
func (f *fakeStorage) Status() warehouse.HealthStatus {
	if f.down.Load() {
		return warehouse.HealthStatus{Reason: storeDownReason}
	}
	return warehouse.HealthStatus{OK: true}
}

func newEnvWithStorage(t *testing.T, st StorageHealth) *env {
	t.Helper()
	dir := templateCopy(t)
	pdb := persisttest.OpenAt(t, filepath.Join(dir, "catalog.db"), dbschema.All()...)
	store, err := catalog.New(pdb, catalog.Options{Warehouse: filepath.Join(dir, "warehouse")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	s, err := New(Config{DB: pdb, Store: store, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Surfaces: allSurfaces,
		Stats: &fakeStats{m: map[string]handlers.TableStats{}}, Storage: st})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s.Handler())
	t.Cleanup(srv.Close)
	return &env{t: t, db: pdb, store: store, srv: srv, server: s}
}

// /readyz and every page follow the warehouse store: down → 503 with the
// reason and a banner; back → ready and no banner, with no restart.
func TestStorageOutageShowsInReadyzAndBanner(t *testing.T) {
	fs := &fakeStorage{}
	e := newEnvWithStorage(t, fs)
	c := e.admin()
	for _, s := range []struct {
		down       bool
		status     int
		readyWants string
		banner     bool
	}{
		{false, 200, "ready", false},
		{true, 503, storeDownReason, true},
		{false, 200, "ready", false},
	} {
		fs.down.Store(s.down)
		r := e.get(c, "/readyz")
		if r.status != s.status || !strings.Contains(r.body, s.readyWants) {
			t.Fatalf("store down=%v: /readyz = %d %q, want %d containing %q", s.down, r.status, r.body, s.status, s.readyWants)
		}
		p := e.get(c, "/buckets")
		if p.status != 200 || p.has("storage-banner") != s.banner || (s.banner && !strings.Contains(p.text("storage-banner"), storeDownReason)) {
			t.Fatalf("store down=%v: /buckets %d, banner %q, want shown=%v", s.down, p.status, p.text("storage-banner"), s.banner)
		}
	}
}
