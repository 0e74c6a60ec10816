package web

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"golang.org/x/crypto/bcrypt"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/edge"
	"github.com/floe/floe/handlers"
	"github.com/floe/floe/internal/dbschema"
	"github.com/floe/floe/internal/runtest"
	"github.com/floe/floe/observe"
	"github.com/floe/floe/persist"
)

// TestPageStatements counts the database statements of a warm console
// page, health and the read cache on as in floe serve: each is a round trip
// on PostgreSQL, so a page's count is its floor there. The budgets are
// what the pages need today (issue 27 took the bucket page from 19 to 11);
// a change that adds a statement per page shows here, by name, before any
// benchmark sees it.
func TestPageStatements(t *testing.T) {
	dir := templateCopy(t)
	var mu sync.Mutex
	var on bool
	var stmts []string
	ctx := persist.WithTrace(context.Background(), func(s persist.Statement) {
		mu.Lock()
		defer mu.Unlock()
		if on {
			stmts = append(stmts, strings.Join(strings.Fields(s.Query), " "))
		}
	})
	pdb, err := persist.Open(ctx, persist.Options{Path: filepath.Join(dir, "catalog.db")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pdb.Close() })
	if err := pdb.Migrate(ctx, dbschema.All()...); err != nil {
		t.Fatal(err)
	}
	store, err := catalog.New(pdb, catalog.Options{Warehouse: filepath.Join(dir, "warehouse"), BcryptCost: bcrypt.MinCost})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	store.CacheReads(nil) // as floe serve does on SQLite
	obs, err := observe.New(pdb, 0)
	if err != nil {
		t.Fatal(err)
	}
	runtest.Start(t, obs)
	stats := &fakeStats{m: map[string]handlers.TableStats{}}
	s, err := New(Config{DB: pdb, Store: store, Observe: obs, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Surfaces: allSurfaces, Stats: stats, Metrics: edge.NewMetrics(prometheus.NewRegistry())})
	if err != nil {
		t.Fatal(err)
	}
	runtest.Start(t, s)
	srv := httptest.NewServer(s.Handler())
	t.Cleanup(srv.Close)
	e := &env{t: t, db: pdb, store: store, srv: srv, stats: stats, server: s}
	for i := range 5 {
		e.seed(fmt.Sprintf("bucket%d", i), catalog.FormatLance, "ns", "t1", "t2")
	}
	c := e.admin()
	for _, p := range []struct {
		path   string
		budget int
	}{
		{"/buckets", 4},
		{"/buckets/bucket1", 11},
		{"/buckets/bucket1/namespaces/ns", 5},
	} {
		for range 2 { // warm: caches filled, the session's renewal done
			if r := e.get(c, p.path); r.status != 200 {
				t.Fatalf("GET %s: %d", p.path, r.status)
			}
		}
		mu.Lock()
		on, stmts = true, nil
		mu.Unlock()
		r := e.get(c, p.path)
		mu.Lock()
		on = false
		got := stmts
		mu.Unlock()
		if r.status != 200 {
			t.Fatalf("GET %s: %d", p.path, r.status)
		}
		t.Logf("%s: %d statements", p.path, len(got))
		if len(got) > p.budget {
			t.Errorf("GET %s ran %d statements, over its budget of %d:\n%s", p.path, len(got), p.budget, strings.Join(got, "\n"))
		}
	}
}
