package edge

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/floe/floe/fault"
)

// rawRequest writes head (a request line and headers, without the blank
// line) and then prefix of the body on a fresh connection to srv, leaving
// the rest of the body unsent; it answers the connection and a reader of
// what the server sends back. The test's own bound on the connection makes
// an answer that never comes a failure, not a hang.
func rawRequest(t *testing.T, srv *httptest.Server, head, prefix string) (net.Conn, *bufio.Reader) {
	t.Helper()
	conn, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	conn.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.WriteString(conn, head+"\r\n\r\n"+prefix); err != nil {
		t.Fatal(err)
	}
	return conn, bufio.NewReader(conn)
}

// Hardening item 2 (#23): a body that stops arriving is answered 400 with a
// sentence once the edge's body deadline passes, on every surface (the
// fixture stands for any), instead of holding the connection.
func TestHardening2BodyDeadlineCutsATrickle(t *testing.T) {
	f := newFixture(t)
	f.srv.SetBodyTimeout(200 * time.Millisecond)
	srv := httptest.NewServer(f.srv)
	t.Cleanup(srv.Close)
	_, rd := rawRequest(t, srv, "POST /v1/table/t/describe HTTP/1.1\r\nHost: x\r\nx-api-key: good\r\nContent-Length: 40", "{")
	resp, err := http.ReadResponse(rd, nil)
	if err != nil {
		t.Fatalf("no answer to a stalled body: %v", err)
	}
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 400 || !strings.Contains(string(raw), "did not arrive in time") || strings.Contains(string(raw), "127.0.0.1") {
		t.Fatalf("%d %s, want 400 saying the body did not arrive in time (and no socket address)", resp.StatusCode, raw)
	}
}

// Hardening item 2: a request the edge refuses before its handler — no
// credentials, no such route, a body over the cap — is answered at once
// although its body is still arriving, and the connection is closed behind
// the answer, so a client without credentials cannot hold it by trickling
// a body (net/http reads an unread body before it answers). The body
// deadline is left at its default, so only the refusal can end these.
func TestHardening2RefusalDoesNotWaitForTheBody(t *testing.T) {
	f := newFixture(t)
	srv := httptest.NewServer(f.srv)
	t.Cleanup(srv.Close)
	for _, tc := range []struct {
		name, head string
		status     int
	}{
		{"no key", "POST /v1/table/t/describe HTTP/1.1\r\nHost: x\r\nContent-Length: 60", 401},
		{"bad key", "POST /v1/table/t/describe HTTP/1.1\r\nHost: x\r\nx-api-key: bad\r\nTransfer-Encoding: chunked", 401},
		{"no route", "POST /v2/nothing HTTP/1.1\r\nHost: x\r\nContent-Length: 60", 404},
		{"over the cap", "POST /v1/table/t/describe HTTP/1.1\r\nHost: x\r\nx-api-key: good\r\nContent-Length: 65", 413},
	} {
		t.Run(tc.name, func(t *testing.T) {
			prefix := "{"
			if strings.Contains(tc.head, "chunked") {
				prefix = "1\r\n{\r\n"
			}
			conn, rd := rawRequest(t, srv, tc.head, prefix)
			resp, err := http.ReadResponse(rd, nil)
			if err != nil {
				t.Fatalf("no answer while the body is still arriving: %v", err)
			}
			io.Copy(io.Discard, resp.Body)
			if resp.StatusCode != tc.status || !resp.Close {
				t.Fatalf("%d close=%v, want %d and the connection closed", resp.StatusCode, resp.Close, tc.status)
			}
			// The server closes its end: the read ends (EOF or reset), it
			// does not wait for the rest of the body.
			conn.SetReadDeadline(time.Now().Add(5 * time.Second))
			if _, err := rd.ReadByte(); err == nil || isTimeout(err) {
				t.Fatalf("the connection stayed open after the refusal: %v", err)
			}
		})
	}
}

// A refused request whose body was sent whole keeps its connection for
// the next request: the cut is only for bodies still arriving.
func TestHardening2KeepAliveAfterAWholeBody(t *testing.T) {
	f := newFixture(t)
	srv := httptest.NewUnstartedServer(f.srv)
	var conns atomic.Int32
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	for range 3 {
		req, _ := http.NewRequest("POST", srv.URL+"/v1/healthz-nope", strings.NewReader("{}"))
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 404 {
			t.Fatalf("%d", resp.StatusCode)
		}
		req, _ = http.NewRequest("POST", srv.URL+"/v1/table/t/describe", strings.NewReader("{}"))
		req.Header.Set("x-api-key", "good")
		if resp, err = srv.Client().Do(req); err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	if n := conns.Load(); n != 1 {
		t.Errorf("%d connections for 6 requests whose bodies were whole, want 1 (kept alive)", n)
	}
}

func TestBodyErrorTimeout(t *testing.T) {
	err := BodyError(&net.OpError{Op: "read", Net: "tcp", Err: timeoutErr{}})
	if !errors.Is(err, fault.Invalid) || !strings.Contains(err.Error(), "did not arrive in time") {
		t.Errorf("a body read past its deadline: %v", err)
	}
	if !IsBodyTimeout(&net.OpError{Op: "read", Net: "tcp", Err: timeoutErr{}}) || IsBodyTimeout(io.ErrUnexpectedEOF) {
		t.Error("IsBodyTimeout")
	}
}

type timeoutErr struct{}

func (timeoutErr) Error() string   { return "i/o timeout" }
func (timeoutErr) Timeout() bool   { return true }
func (timeoutErr) Temporary() bool { return true }
