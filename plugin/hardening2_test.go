package plugin

import (
	"context"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/connectivity"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/floe/floe/connlimit"
	"github.com/floe/floe/plugin/pluginpb"
	"github.com/floe/floe/plugin/plugintest"
)

// Hardening item 2b (#23): plugin-channel connections that never open an
// authenticated worker stream — silent TCP, a finished HTTP/2 handshake
// with no stream, streams refused for want of a token again and again —
// are closed after the listener's deadline and never more than its idle
// cap at once, while a worker's connection stays. (floe serve's own
// timings are in cmd/floe's TestHardening2IdleGRPCConnectionsClosed.)
func TestHardening2UnauthenticatedConnectionsDoNotStay(t *testing.T) {
	h := newHarness(t, Options{DisableScheduler: true})
	inner, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	const maxIdle, deadline = 8, 400 * time.Millisecond
	lis := connlimit.NewBudget(0).Listen(inner, connlimit.Options{Name: "grpc", Share: 200, MaxIdle: maxIdle,
		IdleDeadline: deadline, MinIdleAge: 20 * time.Millisecond, Log: quietLogger()})
	p, err := New(Config{DB: h.db, Store: h.store, Logger: quietLogger(), Options: Options{DisableScheduler: true}})
	if err != nil {
		t.Fatal(err)
	}
	stopRun := start(t, p)
	t.Cleanup(func() { _ = stopRun() })
	opts, err := ServerOptions(nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- p.Serve(ctx, lis, opts...) }()
	t.Cleanup(func() { cancel(); <-served })
	addr := inner.Addr().String()
	dial := func() *grpc.ClientConn {
		c, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}

	w, err := plugintest.Connect(context.Background(), dial(), plugintest.Config{Token: h.token, WorkerID: "w1", HeartbeatEvery: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Close)
	if err := w.WaitFor(ctxT(t), func(r []*pluginpb.ConsoleMessage) bool { return len(r) > 0 && r[0].GetWelcome() != nil }); err != nil {
		t.Fatalf("the worker got no Welcome: %v", err)
	}

	var raw []net.Conn
	for range 30 { // silent TCP
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		raw = append(raw, c)
	}
	var handshaken []*grpc.ClientConn
	for range 10 { // HTTP/2 up, no stream ever
		c := dial()
		c.Connect()
		handshaken = append(handshaken, c)
	}
	// A client opening a stream without a token every 50 ms: each is
	// refused, so its connection never carries an authenticated stream and
	// is closed at the deadline although it is never without an RPC for
	// long (gRPC's MaxConnectionIdle alone would keep it). It redials,
	// which the dial count shows.
	var dials atomic.Int32
	nagging, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithContextDialer(func(ctx context.Context, a string) (net.Conn, error) {
			dials.Add(1)
			return (&net.Dialer{}).DialContext(ctx, "tcp", a)
		}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nagging.Close() })
	nagCtx, stopNag := context.WithCancel(context.Background())
	nagDone := make(chan struct{})
	go func() {
		defer close(nagDone)
		for nagCtx.Err() == nil {
			if s, err := pluginpb.NewPluginServiceClient(nagging).Connect(nagCtx); err == nil {
				_, _ = s.Recv() // Unauthenticated
			}
			time.Sleep(50 * time.Millisecond)
		}
	}()
	t.Cleanup(func() { stopNag(); <-nagDone })

	if st := lis.Stats(); st.Idle > maxIdle {
		t.Fatalf("%+v: more idle connections than the cap", st)
	}
	wait := time.Now().Add(testWait)
	for _, c := range raw {
		c.SetReadDeadline(time.Now().Add(testWait))
		if _, err := c.Read(make([]byte, 1)); err == nil {
			// gRPC's server preface; read on until the close.
			buf := make([]byte, 4096)
			for err == nil {
				_, err = c.Read(buf)
			}
			if ne, ok := err.(net.Error); ok && ne.Timeout() {
				t.Fatal("a silent connection stayed open")
			}
		}
	}
	for dials.Load() < 2 { // its connection closed under it at least once
		if time.Now().After(wait) {
			t.Fatal("the client whose every stream is refused kept its connection")
		}
		time.Sleep(20 * time.Millisecond) // polling
	}
	stopNag()
	<-nagDone
	nagging.Close()
	for {
		st := lis.Stats()
		if st.Open == 1 && st.Idle == 0 {
			break // only the worker's
		}
		if st.Open == 0 {
			t.Fatalf("the worker's connection was closed too: %v", w.Err())
		}
		if time.Now().After(wait) {
			t.Fatalf("%+v: connections without a worker stream outlived the deadline", st)
		}
		time.Sleep(20 * time.Millisecond) // polling
	}
	for i, c := range handshaken {
		sctx, cancel := context.WithTimeout(context.Background(), testWait)
		for c.GetState() == connectivity.Ready {
			if !c.WaitForStateChange(sctx, connectivity.Ready) {
				t.Errorf("handshaken connection %d is still ready", i)
				break
			}
		}
		cancel()
	}
	// Several deadlines later the worker is still connected.
	time.Sleep(3 * deadline)
	select {
	case <-w.Done():
		t.Fatalf("the worker's connection was closed: %v", w.Err())
	default:
	}
	if _, ok := p.reg.get("w1"); !ok {
		t.Fatal("the worker is gone from the registry")
	}
}
