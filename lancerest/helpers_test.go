package lancerest

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/floe/floe/apikey"
	"github.com/floe/floe/catalog"
)

// testEnv is a real catalog on disk behind the handler on a loopback server.
type testEnv struct {
	t         *testing.T
	store     *catalog.Store
	srv       *httptest.Server
	warehouse string
	rw        string        // readwrite, every bucket
	ro        string        // readonly, every bucket
	scoped    string        // readwrite, bucket "lnc" only
	clock     *atomic.Int64 // how far the catalog's and key cache's clock runs ahead of time.Now, in ns
}

func newTestEnv(t *testing.T, anonymous bool) *testEnv {
	t.Helper()
	dir := t.TempDir()
	ctx := context.Background()
	clock := new(atomic.Int64)
	now := func() time.Time { return time.Now().Add(time.Duration(clock.Load())) }
	st, err := catalog.Open(ctx, catalog.Options{Path: filepath.Join(dir, "catalog.db"), Warehouse: filepath.Join(dir, "warehouse"), Now: now})
	if err != nil {
		t.Fatalf("catalog.Open: %v", err)
	}
	t.Cleanup(func() { st.Close() })
	e := &testEnv{t: t, store: st, warehouse: st.Warehouse(), clock: clock}
	mint := func(role catalog.Role, bucket string) string {
		_, secret, err := st.CreateAPIKey(ctx, "test-"+string(role)+bucket, role, bucket, 0)
		if err != nil {
			t.Fatalf("CreateAPIKey: %v", err)
		}
		return secret
	}
	e.rw, e.ro, e.scoped = mint(catalog.RoleReadWrite, ""), mint(catalog.RoleReadonly, ""), mint(catalog.RoleReadWrite, "lnc")
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	// The catalog and the key cache share one test clock.
	s := New(Config{Store: st, Logger: logger, Anonymous: anonymous,
		Auth: apikey.New(apikey.Config{Keys: st, Anonymous: anonymous, Now: now})})
	e.srv = httptest.NewServer(s.Handler())
	t.Cleanup(e.srv.Close)
	return e
}

type response struct {
	status int
	header http.Header
	body   []byte
}

func (r response) json(t *testing.T) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.body, &m); err != nil {
		t.Fatalf("body is not a JSON object: %v: %q", err, r.body)
	}
	return m
}

// do sends one request; key "" sends none.
func (e *testEnv) do(method, path, key string, body []byte) response {
	e.t.Helper()
	req, err := http.NewRequest(method, e.srv.URL+path, bytes.NewReader(body))
	if err != nil {
		e.t.Fatalf("NewRequest %s: %v", path, err)
	}
	if body == nil {
		req.Body = http.NoBody
		req.ContentLength = 0
	}
	if key != "" {
		req.Header.Set("x-api-key", key)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return response{status: res.StatusCode, header: res.Header, body: b}
}

// must sends a request and fails unless it answers 200.
func (e *testEnv) must(method, path string, body string) response {
	e.t.Helper()
	var b []byte
	if body != "" {
		b = []byte(body)
	}
	r := e.do(method, path, e.rw, b)
	if r.status != http.StatusOK {
		e.t.Fatalf("%s %s = %d %s", method, path, r.status, r.body)
	}
	return r
}

// seed makes a LANCE bucket "lnc" with namespace "ns" (and "ns.sub"), an
// ICEBERG bucket "icb" with namespace "ns", and an unset-format bucket "mix"
// with namespace "ns" holding an Iceberg table "ice".
func (e *testEnv) seed() {
	e.t.Helper()
	ctx := context.Background()
	for _, b := range []struct {
		name string
		f    catalog.Format
	}{{"lnc", catalog.FormatLance}, {"icb", catalog.FormatIceberg}, {"mix", catalog.FormatUnset}} {
		if _, err := e.store.CreateBucket(ctx, catalog.CreateBucketInput{Name: b.name, Format: b.f, Owner: "t"}); err != nil {
			e.t.Fatalf("CreateBucket %s: %v", b.name, err)
		}
		if _, err := e.store.CreateNamespace(ctx, b.name, []string{"ns"}, nil); err != nil {
			e.t.Fatalf("CreateNamespace: %v", err)
		}
	}
	if _, err := e.store.CreateNamespace(ctx, "lnc", []string{"ns", "sub"}, map[string]string{"owner": "ann"}); err != nil {
		e.t.Fatalf("CreateNamespace: %v", err)
	}
	if _, _, err := e.store.CreateTable(ctx, catalog.CreateTableInput{TableRef: catalog.TableRef{Bucket: "mix", Namespace: []string{"ns"}, Name: "ice"}, Format: catalog.FormatIceberg}); err != nil {
		e.t.Fatalf("CreateTable ice: %v", err)
	}
	if _, _, err := e.store.CreateTable(ctx, catalog.CreateTableInput{TableRef: catalog.TableRef{Bucket: "icb", Namespace: []string{"ns"}, Name: "ice"}, Format: catalog.FormatIceberg}); err != nil {
		e.t.Fatalf("CreateTable ice: %v", err)
	}
}

// step is one request of a table-driven scenario.
type step struct {
	name    string
	method  string
	path    string
	key     string // "rw", "ro", "scoped", "none", or a literal secret
	body    string
	status  int
	code    int // expected error code; -1 for a success body, -2 for an empty body
	want    []string
	notWant []string
}

func (e *testEnv) keyFor(k string) string {
	switch k {
	case "", "rw":
		return e.rw
	case "ro":
		return e.ro
	case "scoped":
		return e.scoped
	case "none":
		return ""
	}
	return k
}

func (e *testEnv) run(t *testing.T, steps []step) {
	t.Helper()
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			var body []byte
			if s.body != "" {
				body = []byte(s.body)
			}
			method := s.method
			if method == "" {
				method = http.MethodPost
			}
			r := e.do(method, s.path, e.keyFor(s.key), body)
			if r.status != s.status {
				t.Fatalf("%s %s = %d, want %d; body %s", method, s.path, r.status, s.status, r.body)
			}
			if r.header.Get("X-Request-Id") == "" {
				t.Errorf("no X-Request-Id header")
			}
			switch {
			case s.code == -2:
				if len(r.body) != 0 {
					t.Errorf("body = %q, want none", r.body)
				}
			case s.code >= 0:
				m := r.json(t)
				if got, _ := m["code"].(float64); int(got) != s.code {
					t.Errorf("code = %v, want %d; body %s", m["code"], s.code, r.body)
				}
				for _, f := range []string{"error", "detail", "instance"} {
					if v, _ := m[f].(string); v == "" {
						t.Errorf("error body lacks %q: %s", f, r.body)
					}
				}
				if m["instance"] != r.header.Get("X-Request-Id") {
					t.Errorf("instance %v != X-Request-Id %q", m["instance"], r.header.Get("X-Request-Id"))
				}
			}
			for _, w := range s.want {
				if !strings.Contains(string(r.body), w) {
					t.Errorf("body lacks %q: %s", w, r.body)
				}
			}
			for _, w := range s.notWant {
				if strings.Contains(string(r.body), w) {
					t.Errorf("body has %q: %s", w, r.body)
				}
			}
		})
	}
}
