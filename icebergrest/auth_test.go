package icebergrest

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/floe/floe/catalog"
)

// TestAnonymousRefusesWrongKey: anonymous mode lets a request without a key
// through, but a key that is sent must be a real one.
func TestAnonymousRefusesWrongKey(t *testing.T) {
	e := newEnv(t, true)
	e.bucket(t, "lake", catalog.FormatIceberg)
	cases := []struct {
		name, key string
		status    int
	}{
		{"no key", "", 200},
		{"wrong key", "floe_0000000000000000000000000000000000000000", 401},
		{"garbage key", "nope", 401},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, body := e.call(t, "GET", "/v1/lake/namespaces", c.key, nil)
			if code != c.status {
				t.Fatalf("status = %d, want %d (%v)", code, c.status, body)
			}
			if c.status == 401 && errType(body) != typeNotAuthorized {
				t.Fatalf("type = %q", errType(body))
			}
		})
	}
}

// TestIssue15Item8RevokeInvalidatesKeyCache: a revoked key is refused on the
// very next request, although the key cache trusted it a moment before.
func TestIssue15Item8RevokeInvalidatesKeyCache(t *testing.T) {
	e := newEnv(t, false)
	e.bucket(t, "lake", catalog.FormatIceberg)
	k, secret, err := e.store.CreateAPIKey(context.Background(), "short", catalog.RoleReadWrite, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	if code, _ := e.call(t, "GET", "/v1/lake/namespaces", secret, nil); code != 200 {
		t.Fatalf("fresh key = %d", code)
	}
	if err := e.store.RevokeAPIKey(context.Background(), k.ID); err != nil {
		t.Fatal(err)
	}
	if code, body := e.call(t, "GET", "/v1/lake/namespaces", secret, nil); code != 401 {
		t.Fatalf("revoked key = %d, want 401 at once (%v)", code, body)
	}
}

// TestIssue15Item7NoCauseIn5xxBody: when a table's metadata file cannot be
// read, the 500 says so in a sentence with the request id; the server path
// and the OS error stay in the log.
func TestIssue15Item7NoCauseIn5xxBody(t *testing.T) {
	e := newEnv(t, true)
	e.bucket(t, "lake", catalog.FormatIceberg)
	rawTable(t, e, "lake", "")
	tbl := mustTable(t, e, "t")
	if err := os.Remove(strings.TrimPrefix(tbl.MetadataLocation, "file://")); err != nil {
		t.Fatal(err)
	}
	// A fresh server: the first one remembers the metadata it wrote.
	var logs strings.Builder
	srv := New(Config{Store: e.store, Logger: slog.New(slog.NewTextHandler(&logs, nil)), Anonymous: true})
	rec := httptest.NewRecorder()
	srv.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/v1/lake/namespaces/ns/tables/t", nil))
	if rec.Code != 500 {
		t.Fatalf("status = %d, want 500 (%s)", rec.Code, rec.Body)
	}
	var body struct {
		Error struct{ Message string } `json:"error"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
		t.Fatal(err)
	}
	msg := body.Error.Message
	for _, leak := range []string{e.dir, filepath.Base(tbl.MetadataLocation), "no such file", "metadata.json"} {
		if strings.Contains(msg, leak) {
			t.Errorf("500 body leaks %q: %s", leak, msg)
		}
	}
	id := rec.Header().Get("X-Request-Id")
	if id == "" || !strings.Contains(msg, id) {
		t.Errorf("500 body %q does not name the request id %q", msg, id)
	}
	// The cause is logged once, under the same request id.
	if n := strings.Count(logs.String(), "no such file"); n != 1 || !strings.Contains(logs.String(), id) {
		t.Errorf("log should hold the cause once with the request id:\n%s", logs.String())
	}
}
