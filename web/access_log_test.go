package web

import (
	"bytes"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/floe/floe/static"
)

// syncBuffer is a log sink safe for the server's goroutines.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// Static files, the icon and /live log at debug; pages at info; a failure
// on a quiet route is never hidden at debug.
func TestAccessLogLevels(t *testing.T) {
	var out syncBuffer
	e := newEnv(t, allSurfaces, func(c *Config) {
		c.Logger = slog.New(slog.NewTextHandler(&out, &slog.HandlerOptions{Level: slog.LevelDebug}))
	})
	c := e.anon()
	for _, p := range []string{static.URL("css/app.css"), static.URL("favicon.svg"), "/favicon.ico", "/live", "/login"} {
		e.get(c, p)
	}
	cases := []struct {
		route, level string
	}{
		{"GET /static/", "DEBUG"},
		{"GET /favicon.ico", "DEBUG"},
		{"GET /live", "WARN"}, // this console has no plugin channel: 503
		{"GET /login", "INFO"},
	}
	lines := strings.Split(out.String(), "\n")
	for _, tc := range cases {
		t.Run(tc.route, func(t *testing.T) {
			found := 0
			for _, l := range lines {
				if strings.Contains(l, "msg=http") && strings.Contains(l, `route="`+tc.route+`" `) {
					found++
					if !strings.Contains(l, "level="+tc.level) {
						t.Errorf("want level %s: %s", tc.level, l)
					}
				}
			}
			if found == 0 {
				t.Fatalf("no access log line for %s in:\n%s", tc.route, out.String())
			}
		})
	}
}
