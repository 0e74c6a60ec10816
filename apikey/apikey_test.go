package apikey

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/floe/floe/catalog"
)

// countingKeys is the real catalog, counting how often it is asked.
type countingKeys struct {
	*catalog.Store
	asked atomic.Int64
	fail  error // when set, every verification fails with it
}

func (c *countingKeys) VerifyAPIKey(ctx context.Context, secret string) (catalog.APIKey, error) {
	c.asked.Add(1)
	if c.fail != nil {
		return catalog.APIKey{}, c.fail
	}
	return c.Store.VerifyAPIKey(ctx, secret)
}

func openKeys(t *testing.T) (*countingKeys, string, catalog.APIKey) {
	t.Helper()
	dir := t.TempDir()
	st, err := catalog.Open(context.Background(), catalog.Options{Path: filepath.Join(dir, "catalog.db"), Warehouse: filepath.Join(dir, "wh")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	k, secret, err := st.CreateAPIKey(context.Background(), "t", catalog.RoleReadonly, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	return &countingKeys{Store: st}, secret, k
}

func TestCheck(t *testing.T) {
	keys, secret, k := openKeys(t)
	const wrong = "floe_0000000000000000000000000000000000000000"
	cases := []struct {
		name      string
		anonymous bool
		header    map[string]string
		wantID    string
		want      Reason // 0 = accepted
	}{
		{"x-api-key", false, map[string]string{"x-api-key": secret}, k.ID, 0},
		{"bearer", false, map[string]string{"Authorization": "Bearer " + secret}, k.ID, 0},
		{"bearer any case", false, map[string]string{"Authorization": "bearer  " + secret + " "}, k.ID, 0},
		{"x-api-key wins over bearer", false, map[string]string{"x-api-key": secret, "Authorization": "Bearer " + wrong}, k.ID, 0},
		{"no key", false, nil, "", Missing},
		{"no key anonymous", true, nil, AnonymousKey.ID, 0},
		{"wrong key", false, map[string]string{"x-api-key": wrong}, "", Unknown},
		{"wrong key anonymous", true, map[string]string{"x-api-key": wrong}, "", Unknown},
		{"wrong bearer anonymous", true, map[string]string{"Authorization": "Bearer " + wrong}, "", Unknown},
		{"garbage key anonymous", true, map[string]string{"x-api-key": "nope"}, "", Unknown},
		{"basic auth", false, map[string]string{"Authorization": "Basic " + secret}, "", Malformed},
		{"basic auth anonymous", true, map[string]string{"Authorization": "Basic abc"}, "", Malformed},
		{"empty bearer", true, map[string]string{"Authorization": "Bearer "}, "", Malformed},
		{"real key anonymous keeps its role", true, map[string]string{"x-api-key": secret}, k.ID, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ch := New(Config{Keys: keys, Anonymous: c.anonymous})
			r := httptest.NewRequest("GET", "/", nil)
			for h, v := range c.header {
				r.Header.Set(h, v)
			}
			key, f := ch.Check(r)
			switch {
			case c.want == 0 && f != nil:
				t.Fatalf("refused: %+v", f)
			case c.want == 0 && key.ID != c.wantID:
				t.Fatalf("key = %q, want %q", key.ID, c.wantID)
			case c.want != 0 && (f == nil || f.Reason != c.want):
				t.Fatalf("refusal = %+v, want reason %d", f, c.want)
			case c.want != 0 && (f.Status() != http.StatusUnauthorized || f.Message == ""):
				t.Fatalf("refusal status %d, message %q", f.Status(), f.Message)
			}
		})
	}
}

func TestCacheAndRevoke(t *testing.T) {
	keys, secret, k := openKeys(t)
	now := time.Unix(1_700_000_000, 0)
	ch := New(Config{Keys: keys, Now: func() time.Time { return now }})
	r := httptest.NewRequest("GET", "/", nil)
	r.Header.Set("x-api-key", secret)
	for range 3 {
		if _, f := ch.Check(r); f != nil {
			t.Fatalf("refused: %+v", f)
		}
	}
	if n := keys.asked.Load(); n != 1 {
		t.Fatalf("catalog asked %d times inside the TTL, want 1", n)
	}
	now = now.Add(CacheTTL)
	if _, f := ch.Check(r); f != nil || keys.asked.Load() != 2 {
		t.Fatalf("after the TTL: refusal %+v, asked %d (want a fresh check)", f, keys.asked.Load())
	}
	t.Run("Issue15Item8RevokeInvalidatesCache", func(t *testing.T) {
		if err := keys.RevokeAPIKey(context.Background(), k.ID); err != nil {
			t.Fatal(err)
		}
		// The clock stands still: only the revoke can make this refusal.
		if _, f := ch.Check(r); f == nil || f.Reason != Unknown {
			t.Fatalf("revoked key: refusal %+v, want Unknown at once", f)
		}
	})
}

func TestFailedCheckKeepsCauseOutOfMessage(t *testing.T) {
	keys, secret, _ := openKeys(t)
	keys.fail = errors.New("database is locked at /srv/floe/catalog.db")
	ch := New(Config{Keys: keys})
	r := httptest.NewRequest("GET", "/", nil)
	r.Header.Set("x-api-key", secret)
	_, f := ch.Check(r)
	if f == nil || f.Reason != Failed || f.Status() != http.StatusInternalServerError {
		t.Fatalf("refusal = %+v, want Failed/500", f)
	}
	if f.Err != keys.fail {
		t.Fatalf("cause = %v", f.Err)
	}
	if f.Message == "" || f.Message == f.Err.Error() || strings.Contains(f.Message, "/srv/floe") {
		t.Fatalf("message %q must be a sentence without the cause", f.Message)
	}
}

func TestMiddleware(t *testing.T) {
	keys, secret, k := openKeys(t)
	ch := New(Config{Keys: keys, Anonymous: true})
	var refused *Refusal
	h := ch.Middleware(func(w http.ResponseWriter, r *http.Request, f *Refusal) {
		refused = f
		w.WriteHeader(f.Status())
	}, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key, ok := KeyFrom(r.Context())
		if !ok {
			t.Error("no key in the context")
		}
		w.Header().Set("Key", key.ID)
	}))
	for _, c := range []struct {
		name, key, wantID string
		status            int
	}{
		{"key", secret, k.ID, 200},
		{"anonymous", "", AnonymousKey.ID, 200},
		{"wrong key", "floe_0000000000000000000000000000000000000000", "", 401},
	} {
		t.Run(c.name, func(t *testing.T) {
			refused = nil
			r := httptest.NewRequest("GET", "/", nil)
			if c.key != "" {
				r.Header.Set("x-api-key", c.key)
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, r)
			if rec.Code != c.status || rec.Header().Get("Key") != c.wantID {
				t.Fatalf("status %d key %q, want %d %q", rec.Code, rec.Header().Get("Key"), c.status, c.wantID)
			}
			if (c.status == 401) != (refused != nil) {
				t.Fatalf("refuse callback called: %v", refused != nil)
			}
		})
	}
}
