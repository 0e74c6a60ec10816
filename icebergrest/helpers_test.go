package icebergrest

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/floe/floe/catalog"
)

// testEnv is a real catalog on disk behind the real handler on 127.0.0.1.
type testEnv struct {
	store *catalog.Store
	srv   *Server
	http  *httptest.Server
	dir   string
}

func newEnv(t testing.TB, anonymous bool) *testEnv {
	t.Helper()
	dir := t.TempDir()
	store, err := catalog.Open(context.Background(), catalog.Options{
		Path:      filepath.Join(dir, "catalog.db"),
		Warehouse: filepath.Join(dir, "warehouse"),
	})
	if err != nil {
		t.Fatalf("open catalog: %v", err)
	}
	t.Cleanup(func() { store.Close() })
	t.Cleanup(func() { checkReadable(t, filepath.Join(dir, "warehouse")) })
	srv := New(Config{Store: store, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Anonymous: anonymous})
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(hs.Close)
	return &testEnv{store: store, srv: srv, http: hs, dir: dir}
}

func (e *testEnv) bucket(t testing.TB, name string, f catalog.Format) {
	t.Helper()
	if _, err := e.store.CreateBucket(context.Background(), catalog.CreateBucketInput{Name: name, Format: f}); err != nil {
		t.Fatalf("create bucket %s: %v", name, err)
	}
}

// call sends one raw request and decodes the JSON answer (if any).
func (e *testEnv) call(t testing.TB, method, path, key string, body any) (int, map[string]any) {
	t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = bytes.NewBufferString(b)
	default:
		buf, _ := json.Marshal(b)
		rd = bytes.NewReader(buf)
	}
	req, err := http.NewRequest(method, e.http.URL+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := e.http.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var out map[string]any
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &out); err != nil {
			t.Fatalf("%s %s: answer is not JSON (%d): %s", method, path, resp.StatusCode, raw)
		}
	}
	return resp.StatusCode, out
}

func errType(body map[string]any) string {
	e, _ := body["error"].(map[string]any)
	s, _ := e["type"].(string)
	return s
}

// fileExists stats a local path or a canonical file:// location.
func fileExists(p string) bool {
	_, err := os.Stat(strings.TrimPrefix(p, "file://"))
	return err == nil
}

// errMessage is the message of an error answer ("" for any other body).
func errMessage(body map[string]any) string {
	e, _ := body["error"].(map[string]any)
	s, _ := e["message"].(string)
	return s
}
