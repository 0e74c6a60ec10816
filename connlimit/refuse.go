package connlimit

// Refusing a connection when a listener is full: the protocol's answer,
// written in the background, a bounded number at once.

import (
	"net"
	"strconv"
	"time"
)

// refuse answers raw with the protocol's refusal (in the background, a
// bounded number at once) and closes it.
func (l *Listener) refuse(raw net.Conn) {
	if l.o.Refuse == nil {
		raw.Close()
		return
	}
	select {
	case l.b.refusing <- struct{}{}:
	default:
		raw.Close() // too many refusals at once: no answer
		return
	}
	go func() {
		defer func() { <-l.b.refusing }()
		defer raw.Close()
		_ = raw.SetDeadline(time.Now().Add(refuseLinger))
		l.o.Refuse(raw)
		// Read (and drop) what the client sent until it closes or the
		// linger ends: closing with unread data would reset the
		// connection, and the client might never see the answer.
		if cw, ok := raw.(interface{ CloseWrite() error }); ok {
			_ = cw.CloseWrite()
		}
		buf := make([]byte, 1024)
		for {
			if _, err := raw.Read(buf); err != nil {
				return
			}
		}
	}()
}

// HTTPRefusal is the Refuse of an HTTP listener: 503 with a sentence and
// Retry-After, written before the request was read (clients read an
// answer that comes early).
func HTTPRefusal(name string) func(net.Conn) {
	msg := "floe's " + name + " address is at its connection limit; retry in a moment.\n"
	resp := []byte("HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain; charset=utf-8\r\nRetry-After: 1\r\nConnection: close\r\nContent-Length: " +
		strconv.Itoa(len(msg)) + "\r\n\r\n" + msg)
	return func(c net.Conn) { _, _ = c.Write(resp) }
}
