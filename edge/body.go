package edge

import (
	"errors"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/floe/floe/fault"
)

// DefaultBodyTimeout bounds how long a request body may take to arrive,
// counted from the moment its headers are in. At 300 KB/s the largest body
// any surface accepts (the Iceberg REST's 8 MiB) still arrives; a client
// trickling bytes to hold a connection open is cut off at this point, on
// every surface (#23 item 2). net/http lifts the deadline itself once a
// body has been read to its end (its background read of the connection
// runs without one), so it never cuts a handler that is still working.
const DefaultBodyTimeout = 30 * time.Second

// body is a request body as the edge hands it on: capped at the surface's
// MaxBody, with a note once it has been read to its end, so a refusal
// knows whether the client is still sending. It lives in the request's
// state (no allocation of its own).
type body struct {
	rc  io.ReadCloser
	eof bool
}

func (b *body) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	if err == io.EOF {
		b.eof = true
	}
	return n, err
}

func (b *body) Close() error { return b.rc.Close() }

// SetBodyTimeout changes how long request bodies may take to arrive (tests
// shorten it); d <= 0 restores DefaultBodyTimeout. Call it before serving.
func (s *Surface) SetBodyTimeout(d time.Duration) {
	if d <= 0 {
		d = DefaultBodyTimeout
	}
	s.bodyTimeout.Store(int64(d))
}

// startBody gives the request's body its read deadline and its cap before
// anything (the surface's Wrap, authentication, the handler) reads it.
func (s *Surface) startBody(w http.ResponseWriter, r *http.Request, st *state) {
	if r.Body == nil || r.Body == http.NoBody {
		st.body.eof = true
		return
	}
	// Not every ResponseWriter reaches a connection (httptest's recorder
	// does not); such a request has no socket to hold open.
	_ = http.NewResponseController(w).SetReadDeadline(time.Now().Add(time.Duration(s.bodyTimeout.Load())))
	st.body.rc = http.MaxBytesReader(w, r.Body, s.cfg.MaxBody)
	r.Body = &st.body
}

// refusalDrain is how long an answer the edge gives before the handler
// waits for the rest of an unread body: a body the client already sent
// whole is in the socket's buffers and is read (and discarded) in far less,
// so its connection stays open for the next request; a body still
// trickling in is cut off here and its connection closed.
const refusalDrain = 100 * time.Millisecond

// cutBody is for an answer the edge gives before the handler ran (refused
// authentication, no such route, a body over the cap): net/http reads an
// unread body before it answers, and with only the body deadline a client
// without credentials could hold the connection for that long by
// trickling one. The short deadline makes the answer go out at once.
func cutBody(st *state) {
	if st.body.eof {
		return
	}
	st.body.eof = true // once
	// No background read runs while the body is unread, so nothing else
	// on the connection sees this deadline; net/http replaces it for the
	// next request.
	_ = http.NewResponseController(st.w).SetReadDeadline(time.Now().Add(refusalDrain))
}

// errBodyTimeout is what a body read that hit its deadline is answered as,
// in words without the socket's addresses.
var errBodyTimeout = &fault.Error{Kind: fault.Invalid, Field: "body",
	Message: "the request body did not arrive in time; send it whole, without pauses"}

// IsBodyTimeout reports a body read that failed because the body did not
// arrive before its deadline, for surfaces whose protocol error is not a
// fault (BodyError says it for those that take one).
func IsBodyTimeout(err error) bool { return isTimeout(err) }

// isTimeout reports a read that failed on its deadline.
func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}
