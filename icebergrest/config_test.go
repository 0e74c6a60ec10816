package icebergrest

import (
	"io"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/floe/floe/catalog"
)

// TestConfigWarehouse: /v1/config without a warehouse answers the default
// bucket when one is configured, otherwise a 400 saying how to name one.
func TestConfigWarehouse(t *testing.T) {
	e := newEnv(t, true)
	e.bucket(t, "lake", catalog.FormatIceberg)
	e.bucket(t, "other", catalog.FormatIceberg)
	withDefault := New(Config{Store: e.store, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Anonymous: true, DefaultBucket: "lake"})
	hs := httptest.NewServer(withDefault.Handler())
	t.Cleanup(hs.Close)
	dflt := &testEnv{store: e.store, http: hs, dir: e.dir}
	missing := New(Config{Store: e.store, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Anonymous: true, DefaultBucket: "nope"})
	hm := httptest.NewServer(missing.Handler())
	t.Cleanup(hm.Close)
	gone := &testEnv{store: e.store, http: hm, dir: e.dir}

	cases := []struct {
		name   string
		env    *testEnv
		path   string
		code   int
		prefix string // expected overrides.prefix on 200
		msg    string // expected in the error message otherwise
	}{
		{"no warehouse, no default", e, "/v1/config", 400, "", "--iceberg-default-bucket"},
		{"no warehouse, no default says warehouse=", e, "/v1/config", 400, "", "warehouse=<bucket>"},
		{"named warehouse", e, "/v1/config?warehouse=other", 200, "other", ""},
		{"s3 style warehouse", e, "/v1/config?warehouse=s3://other/", 200, "other", ""},
		{"default bucket", dflt, "/v1/config", 200, "lake", ""},
		{"named beats default", dflt, "/v1/config?warehouse=other", 200, "other", ""},
		{"default bucket missing", gone, "/v1/config", 404, "", "does not exist"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, body := c.env.call(t, "GET", c.path, "", nil)
			if code != c.code {
				t.Fatalf("status %d, want %d: %v", code, c.code, body)
			}
			if code == 200 {
				ov, _ := body["overrides"].(map[string]any)
				if ov["prefix"] != c.prefix {
					t.Fatalf("prefix %v, want %s", ov["prefix"], c.prefix)
				}
				return
			}
			msg, _ := body["error"].(map[string]any)["message"].(string)
			if !strings.Contains(msg, c.msg) {
				t.Fatalf("message %q lacks %q", msg, c.msg)
			}
		})
	}
}
