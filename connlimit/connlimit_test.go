package connlimit

import (
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// testWait bounds every wait in these tests: far beyond what any step
// needs, so only a hang trips it (no timing asserts).
const testWait = 10 * time.Second

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// served is a limited listener on loopback whose admitted connections the
// test receives (server side) from accepted.
type served struct {
	l        *Listener
	accepted chan net.Conn
	done     chan error
}

func listen(t *testing.T, b *Budget, o Options) *served {
	t.Helper()
	inner, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	o.Log = quiet
	s := &served{l: b.Listen(inner, o), accepted: make(chan net.Conn, 1000), done: make(chan error, 1)}
	go func() {
		for {
			c, err := s.l.Accept()
			if err != nil {
				s.done <- err
				return
			}
			s.accepted <- c
		}
	}()
	t.Cleanup(func() {
		s.l.Close()
		<-s.done
		for {
			select {
			case c := <-s.accepted:
				c.Close()
			default:
				return
			}
		}
	})
	return s
}

func (s *served) dial(t *testing.T) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", s.l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// admitted waits for the server side of the next admitted connection.
func (s *served) admitted(t *testing.T) net.Conn {
	t.Helper()
	select {
	case c := <-s.accepted:
		return c
	case <-time.After(testWait):
		t.Fatal("no connection was admitted")
		return nil
	}
}

// notAdmitted says no connection is admitted for a while (the only wait
// here that must pass without an event: it can only fail if the limit
// lets one through).
func (s *served) notAdmitted(t *testing.T, d time.Duration) {
	t.Helper()
	select {
	case c := <-s.accepted:
		t.Fatalf("a connection from %s was admitted beyond the limit", c.RemoteAddr())
	case <-time.After(d):
	}
}

// closedByServer says the server closed c: a read ends (EOF or reset)
// instead of waiting.
func closedByServer(t *testing.T, c net.Conn) {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(testWait))
	_, err := c.Read(make([]byte, 1))
	var ne net.Error
	if err == nil || (errors.As(err, &ne) && ne.Timeout()) {
		t.Fatalf("the connection is still open: %v", err)
	}
}

func openByServer(t *testing.T, c net.Conn) {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
	_, err := c.Read(make([]byte, 1))
	var ne net.Error
	if !errors.As(err, &ne) || !ne.Timeout() {
		t.Fatalf("the connection was closed: %v", err)
	}
	c.SetReadDeadline(time.Time{})
}

func busy(s *served, c net.Conn) { s.l.HTTPConnState(c, http.StateActive) }

func TestShareThenReserveThenRefused(t *testing.T) {
	b := NewBudget(1)
	a := listen(t, b, Options{Name: "a", Share: 2, Wait: 50 * time.Millisecond})
	other := listen(t, b, Options{Name: "b", Share: 1, Wait: 50 * time.Millisecond})
	for range 3 { // two on a's share, one borrowed from the reserve
		a.dial(t)
		busy(a, a.admitted(t))
	}
	if st := a.l.Stats(); st.Open != 3 || st.Borrowed != 1 {
		t.Fatalf("stats %+v, want 3 open, 1 borrowed", st)
	}
	refused := a.dial(t)
	a.notAdmitted(t, 300*time.Millisecond)
	closedByServer(t, refused)

	// The other listener keeps its share although the reserve is gone.
	other.dial(t)
	other.admitted(t)
	o2 := other.dial(t)
	other.notAdmitted(t, 300*time.Millisecond)
	closedByServer(t, o2)
}

func TestReserveReturnsWhenAShareSlotFrees(t *testing.T) {
	b := NewBudget(1)
	a := listen(t, b, Options{Name: "a", Share: 1, Wait: testWait})
	other := listen(t, b, Options{Name: "b", Share: 1, Wait: testWait})
	a.dial(t)
	first := a.admitted(t)
	busy(a, first)
	a.dial(t)
	busy(a, a.admitted(t)) // borrowed
	other.dial(t)
	busy(other, other.admitted(t))
	other.dial(t) // waits: b's share is used and a holds the reserve
	other.notAdmitted(t, 200*time.Millisecond)
	first.Close() // a's borrowed connection takes this share slot; the reserve goes to b
	other.admitted(t)
	if st := a.l.Stats(); st.Open != 1 || st.Borrowed != 0 {
		t.Fatalf("a: %+v, want its one connection on its share", st)
	}
}

func TestIdleLongestMakesRoom(t *testing.T) {
	b := NewBudget(0)
	a := listen(t, b, Options{Name: "a", Share: 2, MinIdleAge: 20 * time.Millisecond, Wait: testWait})
	oldest := a.dial(t)
	a.admitted(t)
	time.Sleep(5 * time.Millisecond) // so the two have distinct idle times
	younger := a.dial(t)
	a.admitted(t)
	a.dial(t)
	a.admitted(t) // in the oldest one's place, once it has been idle MinIdleAge
	closedByServer(t, oldest)
	openByServer(t, younger)
}

func TestWorkingConnectionsAreNotClosed(t *testing.T) {
	b := NewBudget(0)
	a := listen(t, b, Options{Name: "a", Share: 1, MinIdleAge: time.Millisecond, Wait: 100 * time.Millisecond, Refuse: HTTPRefusal("a")})
	working := a.dial(t)
	busy(a, a.admitted(t))
	req, _ := http.NewRequest("GET", "http://"+a.l.Addr().String()+"/", nil)
	resp, err := (&http.Client{Timeout: testWait}).Do(req)
	if err != nil {
		t.Fatalf("a refused connection got no answer: %v", err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 503 || !strings.Contains(string(body), "connection limit") || resp.Header.Get("Retry-After") == "" {
		t.Fatalf("%d %q, want 503 with a sentence and Retry-After", resp.StatusCode, body)
	}
	openByServer(t, working)
}

func TestYoungIdleConnectionsAreNotClosed(t *testing.T) {
	b := NewBudget(0)
	a := listen(t, b, Options{Name: "a", Share: 1, MinIdleAge: time.Hour, Wait: 100 * time.Millisecond})
	young := a.dial(t)
	a.admitted(t)
	refused := a.dial(t)
	a.notAdmitted(t, 300*time.Millisecond)
	closedByServer(t, refused)
	openByServer(t, young)
}

// The plugin channel's rules: at most MaxIdle connections without an
// authenticated stream, each closed IdleDeadline after it went idle; a
// held one stays.
func TestMaxIdleIdleDeadlineAndHold(t *testing.T) {
	b := NewBudget(0)
	a := listen(t, b, Options{Name: "grpc", Share: 10, MaxIdle: 2, MinIdleAge: 10 * time.Millisecond, IdleDeadline: 300 * time.Millisecond, Wait: testWait})
	worker := a.dial(t)
	release := a.l.Hold(a.admitted(t).RemoteAddr())
	idle1 := a.dial(t)
	a.admitted(t)
	a.dial(t)
	a.admitted(t)
	time.Sleep(20 * time.Millisecond) // past MinIdleAge
	a.dial(t)
	a.admitted(t) // the idle cap: replaces idle1
	closedByServer(t, idle1)
	if st := a.l.Stats(); st.Open != 3 || st.Idle != 2 {
		t.Fatalf("stats %+v, want 3 open of which 2 idle", st)
	}
	// Past the deadline the idle ones are gone, the held one is not.
	deadline := time.Now().Add(testWait)
	for a.l.Stats().Idle > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("idle connections outlived their deadline: %+v", a.l.Stats())
		}
		time.Sleep(10 * time.Millisecond) // polling
	}
	openByServer(t, worker)
	release()
	closedByServer(t, worker) // idle again, and its deadline passes
}

func TestCloseEndsAWaitingAccept(t *testing.T) {
	b := NewBudget(0)
	inner, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	l := b.Listen(inner, Options{Name: "a", Share: 1, MinIdleAge: time.Hour, Wait: time.Hour, Log: quiet})
	var wg sync.WaitGroup
	for range 2 {
		c, err := net.Dial("tcp", inner.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
	}
	first, err := l.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer first.Close()
	errc := make(chan error, 1)
	wg.Go(func() { _, err := l.Accept(); errc <- err }) // waits for room
	time.Sleep(50 * time.Millisecond)
	l.Close()
	select {
	case err := <-errc:
		if !errors.Is(err, net.ErrClosed) {
			t.Fatalf("Accept after Close: %v, want net.ErrClosed", err)
		}
	case <-time.After(testWait):
		t.Fatal("Accept still waits after Close")
	}
	wg.Wait()
}

// Through a real http.Server: connections that trickle their request
// headers fill the share, and a client with a whole request still gets
// its answer, in the place of the one idle longest.
func TestHTTPServerKeepsAnsweringUnderATrickle(t *testing.T) {
	b := NewBudget(4)
	inner, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	l := b.Listen(inner, Options{Name: "web", Share: 8, MinIdleAge: 50 * time.Millisecond, Refuse: HTTPRefusal("web"), Log: quiet})
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "ok") }),
		ConnState: l.HTTPConnState, ReadHeaderTimeout: time.Minute}
	go srv.Serve(l)
	t.Cleanup(func() { srv.Close() })
	addr := inner.Addr().String()
	for range 40 {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		io.WriteString(c, "GET / HTTP/1.1\r\nHost: x\r\n") // and never the blank line
	}
	time.Sleep(100 * time.Millisecond) // the admitted tricklers are past MinIdleAge
	client := &http.Client{Timeout: testWait, Transport: &http.Transport{DisableKeepAlives: true}}
	for i := range 5 {
		resp, err := client.Get("http://" + addr + "/")
		if err != nil {
			t.Fatalf("request %d under the trickle: %v", i, err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || string(body) != "ok" {
			t.Fatalf("request %d: %d %q", i, resp.StatusCode, body)
		}
	}
	if st := l.Stats(); st.Open > 12 {
		t.Fatalf("%+v: more open than the share and the reserve", st)
	}
}

// BenchmarkKeepAliveRequest is what the limits add to a request on a
// keep-alive connection: the two state changes net/http reports (active,
// then idle again), which is the hot path's whole cost of the limits.
func BenchmarkKeepAliveRequest(b *testing.B) {
	inner, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	l := NewBudget(0).Listen(inner, Options{Name: "bench", Share: 1, Log: quiet})
	defer l.Close()
	client, err := net.Dial("tcp", inner.Addr().String())
	if err != nil {
		b.Fatal(err)
	}
	defer client.Close()
	c, err := l.Accept()
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	b.ReportAllocs()
	for b.Loop() {
		l.HTTPConnState(c, http.StateActive)
		l.HTTPConnState(c, http.StateIdle)
	}
}
