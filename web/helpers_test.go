package web

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"golang.org/x/crypto/bcrypt"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/edge"
	"github.com/floe/floe/handlers"
	"github.com/floe/floe/internal/dbschema"
	"github.com/floe/floe/internal/runtest"
	"github.com/floe/floe/persist"
	"github.com/floe/floe/persist/persisttest"
	"github.com/floe/floe/persist/pgtest"
)

const (
	adminPass    = "admin-password-1"
	readonlyPass = "reader-password-1"
)

// env is one console on a real catalog in a temp dir, served over real HTTP.
type env struct {
	t      testing.TB
	db     *persist.DB
	store  *catalog.Store
	srv    *httptest.Server
	stats  *fakeStats
	server *Server
	reg    *prometheus.Registry // the one registry the console's requests are counted in
}

// fakeStats is an in-memory StatsSource keyed by table id.
type fakeStats struct {
	mu sync.Mutex
	m  map[string]handlers.TableStats
}

func (f *fakeStats) TableStats(id string, _ catalog.Format) (handlers.TableStats, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	s, ok := f.m[id]
	return s, ok
}

func (f *fakeStats) set(id string, rows int64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.m[id] = handlers.TableStats{Rows: rows, ObservedAt: time.Now(), WorkerID: "w-1"}
}

var allSurfaces = Surfaces{Console: "127.0.0.1:9400", Lance: "127.0.0.1:9101", Iceberg: "127.0.0.1:8181", GRPC: "127.0.0.1:9401"}

// templateDB is a catalog file with the two test users, made once: bcrypt
// under -race costs seconds per hash, so each test copies the file instead.
var templateDB string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "floe-web-test-")
	if err != nil {
		panic(err)
	}
	templateDB = filepath.Join(dir, "catalog.db")
	store, err := catalog.Open(context.Background(), catalog.Options{Path: templateDB, Warehouse: filepath.Join(dir, "warehouse")})
	if err != nil {
		panic(err)
	}
	for _, u := range []struct {
		name, pass string
		role       catalog.Role
	}{{"admin", adminPass, catalog.RoleAdmin}, {"reader", readonlyPass, catalog.RoleReadonly}} {
		if _, err := store.CreateUser(context.Background(), u.name, u.pass, u.role); err != nil {
			panic(err)
		}
	}
	store.Close()
	code := pgtest.Main(m) // stops the PostgreSQL the replica tests start
	os.RemoveAll(dir)
	os.Exit(code)
}

// templateCopy copies the migrated template catalog into a new temporary
// directory and returns it (the catalog is catalog.db there).
func templateCopy(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	raw, err := os.ReadFile(templateDB)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "catalog.db"), raw, 0o600); err != nil {
		t.Fatal(err)
	}
	return dir
}

// newEnv starts a console; opts adjust its Config (an injected clock, trusted proxies).
func newEnv(t testing.TB, surfaces Surfaces, opts ...func(*Config)) *env {
	t.Helper()
	dir := templateCopy(t)
	pdb := persisttest.OpenAt(t, filepath.Join(dir, "catalog.db"), dbschema.All()...)
	store, err := catalog.New(pdb, catalog.Options{Warehouse: filepath.Join(dir, "warehouse"), BcryptCost: bcrypt.MinCost})
	if err != nil {
		t.Fatalf("open catalog: %v", err)
	}
	t.Cleanup(func() { store.Close() })
	stats := &fakeStats{m: map[string]handlers.TableStats{}}
	reg := prometheus.NewRegistry()
	cfg := Config{DB: pdb, Store: store, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Surfaces: surfaces, Stats: stats,
		Metrics: edge.NewMetrics(reg)}
	for _, o := range opts {
		o(&cfg)
	}
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	runtest.Start(t, s)
	srv := httptest.NewServer(s.Handler())
	t.Cleanup(srv.Close)
	return &env{t: t, db: pdb, store: store, srv: srv, stats: stats, server: s, reg: reg}
}

// metrics reads the registry the console counts in, as floe serve's
// --metrics listener exposes it.
func (e *env) metrics() response {
	e.t.Helper()
	rec := httptest.NewRecorder()
	promhttp.HandlerFor(e.reg, promhttp.HandlerOpts{}).ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	return response{status: rec.Code, header: rec.Header(), body: rec.Body.String()}
}

// anon is a client with a cookie jar that does not follow redirects, so
// tests see the 303s themselves.
func (e *env) anon() *http.Client {
	jar, _ := cookiejar.New(nil)
	return &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

// signedIn mints a session the way Login does (same keys) without paying a
// bcrypt comparison; TestLogin covers the real sign-in.
func (e *env) signedIn(user string, role catalog.Role) *http.Client {
	e.t.Helper()
	c := e.anon()
	u, _ := url.Parse(e.srv.URL)
	c.Jar.SetCookies(u, []*http.Cookie{e.sessionCookie(user, role)})
	return c
}

// sessionCookie stores a session for user and returns its cookie.
func (e *env) sessionCookie(user string, role catalog.Role) *http.Cookie {
	e.t.Helper()
	ctx, err := e.server.sessions.Load(context.Background(), "")
	if err != nil {
		e.t.Fatal(err)
	}
	e.server.sessions.Put(ctx, "user", user)
	e.server.sessions.Put(ctx, "role", string(role))
	token, _, err := e.server.sessions.Commit(ctx)
	if err != nil {
		e.t.Fatal(err)
	}
	return &http.Cookie{Name: sessionCookieName, Value: token, Path: "/"}
}

func (e *env) admin() *http.Client  { return e.signedIn("admin", catalog.RoleAdmin) }
func (e *env) reader() *http.Client { return e.signedIn("reader", catalog.RoleReadonly) }

type response struct {
	status int
	header http.Header
	body   string
	doc    *goquery.Document
}

// has reports whether an element with this data-testid exists.
func (r response) has(testid string) bool {
	return r.doc.Find(`[data-testid="`+testid+`"]`).Length() > 0
}

func (r response) text(testid string) string {
	return strings.TrimSpace(r.doc.Find(`[data-testid="` + testid + `"]`).First().Text())
}

func (e *env) do(c *http.Client, method, path string, form url.Values, hdr map[string]string) response {
	e.t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, e.srv.URL+path, body)
	if err != nil {
		e.t.Fatal(err)
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := c.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(string(b)))
	if err != nil {
		e.t.Fatal(err)
	}
	return response{status: resp.StatusCode, header: resp.Header, body: string(b), doc: doc}
}

func (e *env) get(c *http.Client, path string) response { return e.do(c, "GET", path, nil, nil) }
func (e *env) post(c *http.Client, path string, form url.Values) response {
	return e.do(c, "POST", path, form, nil)
}

// seed creates a bucket, a namespace and optionally a Lance table directly in the catalog.
func (e *env) seed(bucket string, f catalog.Format, ns string, tables ...string) {
	e.t.Helper()
	ctx := context.Background()
	if _, err := e.store.CreateBucket(ctx, catalog.CreateBucketInput{Name: bucket, Format: f}); err != nil {
		e.t.Fatalf("seed bucket: %v", err)
	}
	if ns == "" {
		return
	}
	if _, err := e.store.CreateNamespace(ctx, bucket, catalog.SplitNamespace(ns), nil); err != nil {
		e.t.Fatalf("seed namespace: %v", err)
	}
	for _, tb := range tables {
		tf := f
		if tf == catalog.FormatUnset {
			tf = catalog.FormatLance
		}
		if _, _, err := e.store.CreateTable(ctx, catalog.CreateTableInput{TableRef: catalog.TableRef{Bucket: bucket, Namespace: catalog.SplitNamespace(ns), Name: tb}, Format: tf}); err != nil {
			e.t.Fatalf("seed table %s: %v", tb, err)
		}
	}
}

func (e *env) table(bucket, ns, name string) (catalog.Table, error) {
	return e.store.GetTable(context.Background(), catalog.TableRef{Bucket: bucket, Namespace: catalog.SplitNamespace(ns), Name: name})
}
