package lancerest

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestAuth(t *testing.T) {
	e := newTestEnv(t, false)
	e.seed()
	e.must("POST", "/v1/table/lnc$ns$t1/declare", "")
	e.must("POST", "/v1/table/mix$ns$t1/declare", "")
	e.run(t, []step{
		{name: "no key", path: "/v1/table/lnc$ns$t1/describe", key: "none", status: 401, code: 16},
		{name: "wrong key", path: "/v1/table/lnc$ns$t1/describe", key: "floe_0000000000000000000000000000000000000000", status: 401, code: 16},
		{name: "garbage key", path: "/v1/table/lnc$ns$t1/describe", key: "nope", status: 401, code: 16},
		{name: "no key on unsupported op", path: "/v1/table/lnc$ns$t1/query", key: "none", status: 401, code: 16},
		{name: "readonly reads", path: "/v1/table/lnc$ns$t1/describe", key: "ro", status: 200, code: -1},
		{name: "readonly lists", method: "GET", path: "/v1/namespace/lnc$ns/table/list", key: "ro", status: 200, code: -1},
		{name: "readonly declare", path: "/v1/table/lnc$ns$t2/declare", key: "ro", status: 403, code: 15},
		{name: "readonly create namespace", path: "/v1/namespace/lnc$x/create", key: "ro", status: 403, code: 15},
		{name: "readonly rename", path: "/v1/table/lnc$ns$t1/rename", body: `{"new_table_name":"t9"}`, key: "ro", status: 403, code: 15},
		{name: "scoped reads its bucket", path: "/v1/table/lnc$ns$t1/describe", key: "scoped", status: 200, code: -1},
		{name: "scoped writes its bucket", path: "/v1/namespace/lnc$x/create", key: "scoped", status: 200, code: -1},
		{name: "scoped other bucket describe", path: "/v1/table/mix$ns$t1/describe", key: "scoped", status: 403, code: 15},
		{name: "scoped other bucket missing table", path: "/v1/table/mix$ns$nope/describe", key: "scoped", status: 403, code: 15},
		{name: "scoped other bucket list", method: "GET", path: "/v1/namespace/mix$ns/table/list", key: "scoped", status: 403, code: 15},
		{name: "scoped other bucket namespace", path: "/v1/namespace/mix/describe", key: "scoped", status: 403, code: 15},
		{name: "scoped root list shows its bucket only", method: "GET", path: "/v1/namespace/%24/list", key: "scoped", status: 200, code: -1, want: []string{`{"namespaces":["lnc"]}`}},
		{name: "scoped list all tables", method: "GET", path: "/v1/table", key: "scoped", status: 200, code: -1, want: []string{"lnc$ns$t1"}, notWant: []string{"mix"}},
		{name: "unscoped root list", method: "GET", path: "/v1/namespace/%24/list", status: 200, code: -1, want: []string{`"lnc"`, `"mix"`}},
	})

	t.Run("bearer", func(t *testing.T) {
		for _, c := range []struct {
			header string
			status int
		}{
			{"Bearer " + e.rw, 200},
			{"bearer " + e.ro, 200},
			{"Bearer", 401},
			{"Basic " + e.rw, 401},
			{"Bearer floe_wrong", 401},
		} {
			req, _ := http.NewRequest("POST", e.srv.URL+"/v1/table/lnc$ns$t1/exists", nil)
			req.Header.Set("Authorization", c.header)
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			if res.StatusCode != c.status {
				t.Errorf("Authorization %q = %d, want %d", strings.SplitN(c.header, " ", 2)[0], res.StatusCode, c.status)
			}
		}
	})

	t.Run("revoked key", func(t *testing.T) {
		k, secret, err := e.store.CreateAPIKey(t.Context(), "short", "readwrite", "", 0)
		if err != nil {
			t.Fatal(err)
		}
		if r := e.do("POST", "/v1/table/lnc$ns$t1/exists", secret, nil); r.status != 200 {
			t.Fatalf("fresh key = %d", r.status)
		}
		if err := e.store.RevokeAPIKey(t.Context(), k.ID); err != nil {
			t.Fatal(err)
		}
		// Issue 15 item 8: the cache must not outlive the revoke, with the
		// clock standing still (inside the cache TTL).
		if r := e.do("POST", "/v1/table/lnc$ns$t1/exists", secret, nil); r.status != 401 {
			t.Fatalf("revoked key = %d, want 401 at once", r.status)
		}
	})
}

func TestAnonymous(t *testing.T) {
	e := newTestEnv(t, true)
	e.seed()
	e.run(t, []step{
		{name: "anonymous creates a bucket", path: "/v1/namespace/anon/create", key: "none", status: 200, code: -1},
		{name: "anonymous declares", path: "/v1/table/lnc$ns$t1/declare", key: "none", status: 200, code: -1},
		{name: "anonymous reads", path: "/v1/table/lnc$ns$t1/describe", key: "none", status: 200, code: -1},
		{name: "a wrong key is still refused", path: "/v1/table/lnc$ns$t1/describe", key: "floe_bad", status: 401, code: 16},
		{name: "readonly key stays readonly", path: "/v1/table/lnc$ns$t2/declare", key: "ro", status: 403, code: 15},
	})
}

func TestKeyCacheExpiringKey(t *testing.T) {
	e := newTestEnv(t, false)
	e.seed()
	e.must("POST", "/v1/table/lnc$ns$t1/declare", "")
	_, secret, err := e.store.CreateAPIKey(t.Context(), "minted", "readonly", "", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if r := e.do("POST", "/v1/table/lnc$ns$t1/exists", secret, nil); r.status != 200 {
		t.Fatalf("minted key = %d", r.status)
	}
	// A cached key past its own expiry is not trusted even inside the TTL.
	e.clock.Add(int64(time.Hour + time.Second))
	if r := e.do("POST", "/v1/table/lnc$ns$t1/exists", secret, nil); r.status == 200 {
		t.Fatalf("expired key = %d, want refusal", r.status)
	}
}
