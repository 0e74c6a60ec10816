package lancerest

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/floe/floe/warehouse"
)

// fakeStorage stands in for warehouse.ClientAccess and records what the
// handler asked of it.
type fakeStorage struct {
	mu     sync.Mutex
	vend   []string           // "nil", "true", "false" per call
	access []warehouse.Access // per call
	fail   bool
	// static: keys only for writers, as warehouse.ClientAccess under
	// --vend-credentials static.
	static bool
}

func (f *fakeStorage) LanceStorageOptions(_ context.Context, location string, access warehouse.Access, vend *bool) (map[string]string, string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	v := "nil"
	if vend != nil {
		v = map[bool]string{true: "true", false: "false"}[*vend]
	}
	f.vend = append(f.vend, v)
	f.access = append(f.access, access)
	if f.fail {
		return nil, "", errors.New("the S3 store at http://127.0.0.1:1 cannot be reached")
	}
	o := map[string]string{"aws_endpoint": "http://127.0.0.1:8333", "for": location}
	if f.static && access != warehouse.AccessWrite {
		return o, warehouse.WithheldStatic, nil
	}
	return o, "", nil
}

// TestStorageKeysFollowTheGrant (#22): DescribeTable asks the warehouse for
// keys that read when the caller may only read the table, and that write
// when it may write it; a reader of a floe vending its own static keys is
// told in the properties why it got none.
func TestStorageKeysFollowTheGrant(t *testing.T) {
	e := newTestEnv(t, false)
	e.seed()
	fs := &fakeStorage{static: true}
	s := New(Config{Store: e.store, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Storage: fs})
	e.srv = httptest.NewServer(s.Handler())
	t.Cleanup(e.srv.Close)
	e.must("POST", "/v1/table/lnc$ns$t/declare", `{"id":["lnc","ns","t"]}`)
	last := func() warehouse.Access {
		fs.mu.Lock()
		defer fs.mu.Unlock()
		return fs.access[len(fs.access)-1]
	}
	if last() != warehouse.AccessWrite {
		t.Errorf("DeclareTable (a manager) asked for %q keys", last())
	}
	for _, c := range []struct {
		key  string
		want warehouse.Access
	}{{e.ro, warehouse.AccessRead}, {e.rw, warehouse.AccessWrite}, {e.scoped, warehouse.AccessWrite}} {
		r := e.do("POST", "/v1/table/lnc$ns$t/describe", c.key, []byte(`{}`))
		if r.status != http.StatusOK {
			t.Fatalf("describe: %d %s", r.status, r.body)
		}
		if got := last(); got != c.want {
			t.Errorf("describe asked for %q keys, want %q", got, c.want)
		}
		props, _ := r.json(t)["properties"].(map[string]any)
		why, _ := props[CredentialsProperty].(string)
		if (c.want == warehouse.AccessRead) != (why == warehouse.WithheldStatic) {
			t.Errorf("%s caller: properties %v", c.want, props)
		}
	}
}

// DescribeTable and DeclareTable hand out the warehouse's storage options
// and pass the request's vend_credentials (query or body, absent = nil).
func TestStorageOptionsComeFromTheWarehouse(t *testing.T) {
	e := newTestEnv(t, false)
	e.seed()
	fs := &fakeStorage{}
	s := New(Config{Store: e.store, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Storage: fs})
	e.srv = httptest.NewServer(s.Handler())
	t.Cleanup(e.srv.Close)

	e.must("POST", "/v1/table/lnc$ns$t/declare", `{"id":["lnc","ns","t"]}`)
	cases := []struct {
		name, query, body, vend string
	}{
		{"absent", "", `{}`, "nil"},
		{"body false", "", `{"vend_credentials":false}`, "false"},
		{"body true", "", `{"vend_credentials":true}`, "true"},
		{"query false wins", "?vend_credentials=false", `{"vend_credentials":true}`, "false"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := e.must("POST", "/v1/table/lnc$ns$t/describe"+c.query, c.body)
			opts, _ := r.json(t)["storage_options"].(map[string]any)
			if opts["aws_endpoint"] != "http://127.0.0.1:8333" || !strings.HasSuffix(opts["for"].(string), "t.lance") {
				t.Fatalf("storage_options = %v", opts)
			}
			fs.mu.Lock()
			got := fs.vend[len(fs.vend)-1]
			fs.mu.Unlock()
			if got != c.vend {
				t.Fatalf("vend passed as %s, want %s", got, c.vend)
			}
		})
	}
	if r := e.do("POST", "/v1/table/lnc$ns$t/describe?vend_credentials=maybe", e.rw, []byte(`{}`)); r.status != http.StatusBadRequest {
		t.Fatalf("a bad vend_credentials answered %d, want 400", r.status)
	}

	fs.fail = true
	r := e.do("POST", "/v1/table/lnc$ns$t/describe", e.rw, []byte(`{}`))
	if r.status != http.StatusServiceUnavailable || strings.Contains(string(r.body), "127.0.0.1:1") {
		t.Fatalf("failing storage answered %d %s; want 503 without internal detail", r.status, r.body)
	}
}
