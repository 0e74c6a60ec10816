package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// syncBuffer is a bytes.Buffer safe to write from the command while the
// test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// served is one `floe serve` run in process on the addresses it bound
// itself: every surface the test does not set listens on 127.0.0.1:0, and
// the test learns the ports from the "floe started" log line, so no port
// is picked free beforehand and taken by someone else before floe binds it.
type served struct {
	// addrs are the bound host:port by surface: http, lance, iceberg,
	// s3tables, grpc, metrics ("" for a surface that is off).
	addrs map[string]string
	out   *syncBuffer
	done  chan error
}

// serveStartWait bounds the wait for the "floe started" line: migrations
// and the first admin's bcrypt under -race on a loaded machine.
const serveStartWait = 60 * time.Second

// startServe runs `floe serve` with args until ctx ends; the test's cleanup
// waits for it and fails on its error. It fails the test when serve ends
// before it has started.
func startServe(t testing.TB, ctx context.Context, args ...string) *served {
	t.Helper()
	full := append([]string{"serve", "--log-json"}, args...)
	for _, name := range []string{"http", "grpc", "lance", "iceberg", "s3tables"} {
		if !slices.Contains(args, "--"+name) {
			full = append(full, "--"+name, "127.0.0.1:0")
		}
	}
	s := &served{out: &syncBuffer{}, done: make(chan error, 1)}
	cmd := newRootCmd()
	cmd.SetOut(s.out)
	cmd.SetErr(s.out)
	cmd.SetArgs(full)
	go func() { s.done <- cmd.ExecuteContext(ctx) }()
	deadline := time.After(serveStartWait)
	for s.addrs == nil {
		select {
		case err := <-s.done:
			t.Fatalf("serve ended before it started: %v\n%s", err, s.out.String())
		case <-deadline:
			t.Fatalf("serve did not start within %s:\n%s", serveStartWait, s.out.String())
		case <-time.After(5 * time.Millisecond): // polling interval, not an assertion
		}
		s.addrs = startedAddrs(s.out.String())
	}
	return s
}

// wait returns serve's error once it has ended.
func (s *served) wait(t testing.TB) error {
	t.Helper()
	select {
	case err := <-s.done:
		return err
	case <-time.After(serveStartWait):
		t.Fatalf("serve did not end within %s after its context did:\n%s", serveStartWait, s.out.String())
		return nil
	}
}

// waitReady polls the console's /readyz until it answers 200.
func (s *served) waitReady(t testing.TB) {
	t.Helper()
	deadline := time.After(serveStartWait)
	for {
		resp, err := http.Get("http://" + s.addrs["http"] + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		select {
		case err := <-s.done:
			t.Fatalf("serve ended before it was ready: %v\n%s", err, s.out.String())
		case <-deadline:
			t.Fatalf("/readyz did not answer 200 within %s:\n%s", serveStartWait, s.out.String())
		case <-time.After(2 * time.Millisecond): // polling interval, not an assertion
		}
	}
}

// waitLog waits up to serveStartWait for serve's JSON log line with msg
// and returns its fields.
func (s *served) waitLog(t testing.TB, msg string) map[string]any {
	t.Helper()
	deadline := time.After(serveStartWait)
	for {
		sc := bufio.NewScanner(strings.NewReader(s.out.String()))
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			var l map[string]any
			if json.Unmarshal(sc.Bytes(), &l) == nil && l["msg"] == msg {
				return l
			}
		}
		select {
		case <-deadline:
			t.Fatalf("serve logged no %q within %s:\n%s", msg, serveStartWait, s.out.String())
		case <-time.After(5 * time.Millisecond): // polling interval, not an assertion
		}
	}
}

// startedAddrs reads the bound addresses from the "floe started" JSON log
// line in out; nil until it is there.
func startedAddrs(out string) map[string]string {
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		var l map[string]any
		if json.Unmarshal(sc.Bytes(), &l) != nil || l["msg"] != "floe started" {
			continue
		}
		str := func(k string) string { v, _ := l[k].(string); return v }
		return map[string]string{
			"http": strings.TrimPrefix(str("console"), "http://"), "lance": str("lance"), "iceberg": str("iceberg"),
			"s3tables": str("s3tables"), "grpc": str("grpc"), "metrics": str("metrics"),
		}
	}
	return nil
}

// boundAddrs reads the addresses a start bound before it failed from its
// "listening" debug lines (JSON), in the order bound.
func boundAddrs(out string) map[string]string {
	got := map[string]string{}
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		var l struct{ Msg, Surface, Addr string }
		if json.Unmarshal(sc.Bytes(), &l) == nil && l.Msg == "listening" {
			got[l.Surface] = l.Addr
		}
	}
	return got
}

// hold binds a loopback port for the test (it knows the address without
// picking one) and keeps it until the test ends.
func hold(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	return ln.Addr().String()
}
