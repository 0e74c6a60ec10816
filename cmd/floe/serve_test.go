package main

import (
	"context"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/observe"
	"github.com/floe/floe/plugin"
)

// mustBindAgain fails the test when addr is still bound by someone.
func mustBindAgain(t *testing.T, name, addr string) {
	t.Helper()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Errorf("the %s address %s is still bound: %v", name, addr, err)
		return
	}
	ln.Close()
}

var surfaceFlags = []string{"http", "lance", "iceberg", "s3tables", "grpc"}

func TestServeBindFailureLeaksNoListener(t *testing.T) {
	// Each case takes one address before floe starts (a port the test
	// holds); floe binds the others on port 0, must fail at the taken one,
	// and must leave every address it had bound before it free again.
	for i, taken := range surfaceFlags {
		t.Run(taken+" taken", func(t *testing.T) {
			dir := t.TempDir()
			addrs := map[string]string{}
			for _, name := range surfaceFlags {
				addrs[name] = "127.0.0.1:0"
			}
			addrs[taken] = hold(t)
			cfg := serveConfig{HTTP: addrs["http"], Lance: addrs["lance"], Iceberg: addrs["iceberg"], GRPC: addrs["grpc"],
				S3: s3tablesConfig{Addr: addrs["s3tables"]}}
			paths := dataPaths{Data: dir, Catalog: filepath.Join(dir, "catalog.db"), Warehouse: filepath.Join(dir, "warehouse")}
			var out syncBuffer
			log := slog.New(slog.NewJSONHandler(&out, &slog.HandlerOptions{Level: slog.LevelDebug}))
			s, err := startServer(context.Background(), cfg, paths, log)
			if err == nil {
				s.Close()
				t.Fatalf("start with %s taken succeeded", taken)
			}
			if !strings.Contains(err.Error(), taken+": listen on "+addrs[taken]) {
				t.Fatalf("error %v: want the %s bind failure", err, taken)
			}
			bound := boundAddrs(out.String())
			if len(bound) != i {
				t.Fatalf("bound %v before the failure, want the %d surfaces before %s", bound, i, taken)
			}
			for name, addr := range bound {
				mustBindAgain(t, name, addr)
			}
		})
	}
}

func TestServeRefusesBadFlagsBeforeBinding(t *testing.T) {
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"no console", []string{"--http", ""}, "--http must name an address"},
		{"no plugin channel", []string{"--grpc", ""}, "--grpc must name an address"},
		{"half mTLS", []string{"--grpc-tls-cert", "c.pem"}, "go together"},
		{"negative history retention", []string{"--history-retention", "-1h"}, "--history-retention must be 0"},
		{"history retention below an hour", []string{"--history-retention", "5m"}, "--history-retention must be 0"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			// The console's address is one the test holds: had floe tried
			// to bind before checking, it would report that bind failure
			// instead of the flag.
			console := hold(t)
			args := append([]string{"serve", "--data", t.TempDir(), "--http", console, "--grpc", "127.0.0.1:0",
				"--lance", "", "--iceberg", "", "--s3tables", ""}, tc.args...)
			out, code := run(t, args...)
			if code != 2 || !strings.Contains(out, tc.want) || strings.Contains(out, "listen on") {
				t.Fatalf("code %d, output %q; want 2 and %q", code, out, tc.want)
			}
		})
	}
}

func TestServeRunThenCloseFreesEveryPort(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s := startServe(t, ctx, "--data", t.TempDir())
	resp, err := http.Get("http://" + s.addrs["http"] + "/healthz")
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("healthz: %v %v\n%s", resp, err, s.out.String())
	}
	resp.Body.Close()
	cancel()
	if err := s.wait(t); err != nil {
		t.Fatalf("serve after cancel: %v", err)
	}
	for _, name := range surfaceFlags {
		if s.addrs[name] == "" {
			t.Fatalf("%s not bound: %v", name, s.addrs)
		}
		mustBindAgain(t, name, s.addrs[name])
	}
}

// Run returns only once every part it ran has stopped: right after it
// returns, the parts' last work is done (the observations' final flush
// reaches the database; the event bus and the plugin channel are closed).
func TestServeRunWaitsForItsParts(t *testing.T) {
	dir := t.TempDir()
	cfg := serveConfig{HTTP: "127.0.0.1:0", GRPC: "127.0.0.1:0"}
	paths := dataPaths{Data: dir, Catalog: filepath.Join(dir, "catalog.db"), Warehouse: filepath.Join(dir, "warehouse")}
	s, err := startServer(context.Background(), cfg, paths, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx, cancel := context.WithCancel(context.Background())
	ran := make(chan error, 1)
	go func() { ran <- s.Run(ctx) }()
	resp, err := waitGet("http://" + s.surfaces.Console + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if _, err := s.svc.observe.Put(observation("00000000-0000-0000-0000-0000000000aa")); err != nil {
		t.Fatal(err)
	}
	cancel()
	if err := <-ran; err != nil {
		t.Fatalf("Run: %v", err)
	}
	var n int
	if err := s.db.QueryRowContext(context.Background(), `SELECT COUNT(*) FROM observations`).Scan(&n); err != nil || n != 1 {
		t.Fatalf("observations stored when Run returned: %d, %v; want the one put flushed by Run itself", n, err)
	}
	if _, err := s.svc.plugin.SubmitJob(context.Background(), jobSpec()); err == nil {
		t.Fatal("the plugin channel still takes jobs after Run returned")
	}
}

// waitGet polls url until it answers; the server binds before Run serves.
func waitGet(url string) (*http.Response, error) {
	deadline := time.Now().Add(serveStartWait)
	for {
		resp, err := http.Get(url)
		if err == nil || time.Now().After(deadline) {
			return resp, err
		}
		time.Sleep(20 * time.Millisecond) // polling interval, not an assertion
	}
}

func observation(id string) observe.Observation {
	return observe.Observation{ObjectID: id, Format: catalog.FormatLance, ObservedAt: time.Now(), WorkerID: "w", Attributes: []byte(`{"rows":1}`)}
}

func jobSpec() plugin.JobSpec { return plugin.JobSpec{Type: "lance_compact", ObjectID: "t1"} }

// --history-retention reaches the observations: with a retention, a flushed
// observation leaves a kept point for the trend charts; with 0, none.
func TestServeHistoryRetentionFlag(t *testing.T) {
	for _, tc := range []struct {
		retention time.Duration
		want      int
	}{{observe.DefaultHistoryRetention, 1}, {0, 0}} {
		t.Run(tc.retention.String(), func(t *testing.T) {
			dir := t.TempDir()
			cfg := serveConfig{HTTP: "127.0.0.1:0", GRPC: "127.0.0.1:0", HistoryRetention: tc.retention}
			paths := dataPaths{Data: dir, Catalog: filepath.Join(dir, "catalog.db"), Warehouse: filepath.Join(dir, "warehouse")}
			s, err := startServer(context.Background(), cfg, paths, slog.New(slog.DiscardHandler))
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if got := s.svc.observe.HistoryRetention(); got != tc.retention {
				t.Fatalf("retention in force %v, want %v", got, tc.retention)
			}
			ctx, cancel := context.WithCancel(context.Background())
			ran := make(chan error, 1)
			go func() { ran <- s.Run(ctx) }()
			resp, err := waitGet("http://" + s.surfaces.Console + "/healthz") // running: a cancel now stops what Run started
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if _, err := s.svc.observe.Put(observation("00000000-0000-0000-0000-0000000000ab")); err != nil {
				t.Fatal(err)
			}
			cancel()
			if err := <-ran; err != nil {
				t.Fatalf("Run: %v", err)
			}
			var n int
			if err := s.db.QueryRowContext(context.Background(), `SELECT COUNT(*) FROM observation_points`).Scan(&n); err != nil || n != tc.want {
				t.Fatalf("kept points %d, %v; want %d", n, err, tc.want)
			}
		})
	}
}
