package web

import (
	"bufio"
	"net"
	"net/http"
	"time"

	"github.com/gorilla/websocket"
)

// readLoop discards client messages and notices a dead or closed peer.
func (c *liveConn) readLoop() {
	c.ws.SetReadLimit(liveReadLimit)
	_ = c.ws.SetReadDeadline(time.Now().Add(livePongWait))
	c.ws.SetPongHandler(func(string) error { return c.ws.SetReadDeadline(time.Now().Add(livePongWait)) })
	for {
		if _, _, err := c.ws.ReadMessage(); err != nil {
			return
		}
		_ = c.ws.SetReadDeadline(time.Now().Add(livePongWait))
	}
}

// writeLoop is the connection's only writer. It ends on kill, a write
// error or the lifetime cap, and closes the socket (which ends readLoop).
func (c *liveConn) writeLoop() {
	ping := time.NewTicker(livePingEvery)
	life := time.NewTimer(liveLifetime)
	defer func() {
		ping.Stop()
		life.Stop()
		c.kill()
		_ = c.ws.SetWriteDeadline(time.Now().Add(time.Second))
		_ = c.ws.WriteMessage(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseGoingAway, "reconnect"))
		c.ws.Close()
	}()
	for {
		select {
		case <-c.done:
			return
		case <-life.C:
			return
		case msg := <-c.send:
			_ = c.ws.SetWriteDeadline(time.Now().Add(liveWriteTimeout))
			if err := c.ws.WriteMessage(websocket.TextMessage, msg); err != nil {
				return
			}
		case <-ping.C:
			_ = c.ws.SetWriteDeadline(time.Now().Add(liveWriteTimeout))
			if err := c.ws.WriteMessage(websocket.PingMessage, nil); err != nil {
				return
			}
		}
	}
}

// hijackable lets the upgrader reach the connection through wrappers that
// do not implement http.Hijacker themselves (the session middleware's).
type hijackable struct{ http.ResponseWriter }

func (h hijackable) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	return http.NewResponseController(h.ResponseWriter).Hijack()
}
