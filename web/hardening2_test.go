package web

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/floe/floe/catalog"
)

// Hardening item 2c (#23): /live upgrades from one session stop at the
// per-session cap with 429 and a sentence, while another session still
// gets its socket; all sessions together stop at the total cap with 503;
// a closed socket gives its place back.
func TestHardening2LiveSocketsAreCapped(t *testing.T) {
	e := newLiveEnv(t)
	e.server.live.slots = newLiveSlots(liveMaxPerSession + 4) // a total the test can reach
	one := e.browser(catalog.RoleAdmin)
	var open []*websocket.Conn
	t.Cleanup(func() {
		for _, ws := range open {
			ws.Close()
		}
	})
	refused := func(hdr http.Header, want int, words string) {
		t.Helper()
		ws, resp, err := e.dial("jobs=x", hdr)
		if err == nil {
			ws.Close()
			t.Fatalf("upgrade %d succeeded past the cap", len(open)+1)
		}
		if resp == nil {
			t.Fatalf("no answer: %v", err)
		}
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != want || !strings.Contains(string(body), words) || resp.Header.Get("Retry-After") == "" {
			t.Fatalf("%d %q, want %d saying %q with Retry-After", resp.StatusCode, body, want, words)
		}
	}
	for i := range liveMaxPerSession * 3 {
		ws, resp, err := e.dial("jobs=x", one)
		if err != nil {
			if i != liveMaxPerSession || resp == nil || resp.StatusCode != http.StatusTooManyRequests {
				t.Fatalf("upgrade %d of one session: %v (%v); want %d upgrades, then 429", i+1, err, resp, liveMaxPerSession)
			}
			break
		}
		open = append(open, ws)
	}
	if len(open) != liveMaxPerSession {
		t.Fatalf("one session opened %d live sockets, want at most %d", len(open), liveMaxPerSession)
	}
	refused(one, http.StatusTooManyRequests, "close some tabs")

	for range 4 { // other sessions, up to the total
		ws, _, err := e.dial("jobs=x", e.browser(catalog.RoleReadonly))
		if err != nil {
			t.Fatalf("another session, under the total: %v", err)
		}
		open = append(open, ws)
	}
	refused(e.browser(catalog.RoleReadonly), http.StatusServiceUnavailable, "its most")

	// Closing one of the first session's sockets gives its place back once
	// the server has seen the close.
	open[0].Close()
	open = open[1:]
	deadline := time.Now().Add(liveWait)
	for {
		ws, resp, err := e.dial("jobs=x", one)
		if err == nil {
			open = append(open, ws)
			break
		}
		if resp == nil || resp.StatusCode != http.StatusTooManyRequests || time.Now().After(deadline) {
			t.Fatalf("after a close: %v (%v)", err, resp)
		}
		time.Sleep(10 * time.Millisecond) // polling until the server has seen the close
	}
}
