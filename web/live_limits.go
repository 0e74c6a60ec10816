package web

import (
	"net/http"
	"strconv"
	"sync"
)

// Caps on open /live websockets (#23 item 2c). Each one holds a socket,
// two goroutines and their buffers (about 40 KB); before these caps 19,998
// upgrades from one session took the console's RSS from 168 MB to 1 GB and
// exhausted its file descriptors.
const (
	// liveMaxPerSession: a page holds one socket, so this is open console
	// tabs of one sign-in, more than anyone watches at once. A tab past it
	// is refused with 429; the htmx ws extension retries with backoff and
	// the tab gets live updates once another one closes.
	liveMaxPerSession = 16
	// liveMaxTotal caps all sessions together (about 40 MB of sockets);
	// floe serve lowers it to half the console's connection share
	// (Config.LiveLimit) where that is less, so live pages can never fill
	// the console's connections.
	liveMaxTotal = 1024
	// liveRetryAfter is the Retry-After of a refused upgrade, in seconds.
	liveRetryAfter = 5
)

// liveSlots counts open sockets per session and in all.
type liveSlots struct {
	mu        sync.Mutex
	max       int
	open      int
	bySession map[string]int
}

func newLiveSlots(total int) *liveSlots {
	if total <= 0 || total > liveMaxTotal {
		total = liveMaxTotal
	}
	return &liveSlots{max: total, bySession: map[string]int{}}
}

// take claims a socket for session; when a cap is reached it answers the
// refusal's status and sentence instead.
func (ls *liveSlots) take(session string) (release func(), status int, msg string) {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	if ls.bySession[session] >= liveMaxPerSession {
		return nil, http.StatusTooManyRequests, "This sign-in already has " + strconv.Itoa(liveMaxPerSession) +
			" pages with live updates open; close some tabs, and this one gets live updates when it reconnects."
	}
	if ls.open >= ls.max {
		return nil, http.StatusServiceUnavailable, "The console serves " + strconv.Itoa(ls.max) +
			" live-update connections, its most; this page reconnects when one closes."
	}
	ls.open++
	ls.bySession[session]++
	var once sync.Once
	return func() {
		once.Do(func() {
			ls.mu.Lock()
			defer ls.mu.Unlock()
			ls.open--
			if ls.bySession[session]--; ls.bySession[session] <= 0 {
				delete(ls.bySession, session)
			}
		})
	}, 0, ""
}
