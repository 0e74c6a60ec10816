package icebergrest

import (
	"crypto/rand"
	"encoding/hex"
	"net/http"
	"strconv"
	"sync/atomic"
)

// requestIDs numbers requests: a random per-process prefix and a counter,
// so ids are unique across restarts without a random read per request.
type requestIDs struct {
	prefix string
	seq    *atomic.Uint64
}

func newRequestIDs() requestIDs {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return requestIDs{prefix: "ice-" + hex.EncodeToString(b[:]) + "-", seq: new(atomic.Uint64)}
}

func (r requestIDs) next() string {
	return r.prefix + strconv.FormatUint(r.seq.Add(1), 10)
}

// requestID is the id the handler gave this request (X-Request-Id).
func requestID(w http.ResponseWriter) string { return w.Header().Get("X-Request-Id") }
