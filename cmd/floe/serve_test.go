package main

import (
	"bytes"
	"context"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
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
	// Each case takes one address before floe starts; floe must fail and
	// leave every address it had bound before that one free again.
	for _, taken := range surfaceFlags {
		t.Run(taken+" taken", func(t *testing.T) {
			addrs := map[string]string{}
			for _, name := range surfaceFlags {
				addrs[name] = freeAddr(t)
			}
			hold, err := net.Listen("tcp", addrs[taken])
			if err != nil {
				t.Fatal(err)
			}
			defer hold.Close()
			args := []string{"serve", "--data", t.TempDir()}
			for _, name := range surfaceFlags {
				args = append(args, "--"+name, addrs[name])
			}
			out, code := run(t, args...)
			if code == 0 || !strings.Contains(out, taken+": listen on "+addrs[taken]) {
				t.Fatalf("code %d, output %q: want the %s bind failure", code, out, taken)
			}
			for _, name := range surfaceFlags {
				if name != taken {
					mustBindAgain(t, name, addrs[name])
				}
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
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			console := freeAddr(t)
			args := append([]string{"serve", "--data", t.TempDir(), "--http", console, "--lance", "", "--iceberg", "", "--s3tables", ""}, tc.args...)
			out, code := run(t, args...)
			if code != 2 || !strings.Contains(out, tc.want) {
				t.Fatalf("code %d, output %q; want 2 and %q", code, out, tc.want)
			}
			mustBindAgain(t, "console", console)
		})
	}
}

func TestServeRunThenCloseFreesEveryPort(t *testing.T) {
	addrs := map[string]string{}
	args := []string{"serve", "--data", t.TempDir()}
	for _, name := range surfaceFlags {
		addrs[name] = freeAddr(t)
		args = append(args, "--"+name, addrs[name])
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cmd := newRootCmd()
	var out bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&out)
	cmd.SetArgs(args)
	done := make(chan error, 1)
	go func() { done <- cmd.ExecuteContext(ctx) }()

	// Wait until the console answers; a failed start ends the command.
	for up := false; !up; {
		select {
		case err := <-done:
			t.Fatalf("serve ended before it answered: %v\n%s", err, out.String())
		default:
		}
		resp, err := http.Get("http://" + addrs["http"] + "/healthz")
		if err == nil {
			resp.Body.Close()
			up = resp.StatusCode == http.StatusOK
		}
		if !up {
			time.Sleep(20 * time.Millisecond) // polling interval, not an assertion
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("serve after cancel: %v", err)
	}
	for _, name := range surfaceFlags {
		mustBindAgain(t, name, addrs[name])
	}
}
