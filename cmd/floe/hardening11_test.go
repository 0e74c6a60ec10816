package main

import (
	"bytes"
	"context"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// lockedBuffer is an io.Writer a serving command writes to while the test
// reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

var boxPassword = regexp.MustCompile(`Password: (\S+)`)

// Hardening item 11: a first start that fails after the catalog opened (a
// port in use) must not leave an admin whose generated password nobody saw.
// The second start prints a password, and the admin signs in with it.
func TestHardening11FirstStartFailureKeepsAdminPasswordShown(t *testing.T) {
	t.Setenv("FLOE_ADMIN_PASSWORD", "") // empty: the generated-password path
	data := t.TempDir()

	// First start: the plugin channel's port is taken (held by this test,
	// so nothing else can take it), so the start fails after the catalog
	// was opened and migrated.
	hold, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	args := []string{"serve", "--data", data, "--grpc", hold.Addr().String()}
	for _, name := range []string{"http", "lance", "iceberg", "s3tables"} {
		args = append(args, "--"+name, "127.0.0.1:0")
	}
	out, code := run(t, args...)
	hold.Close()
	if code == 0 || !strings.Contains(out, "grpc: listen on") {
		t.Fatalf("first start: code %d, output %q; want the grpc bind failure", code, out)
	}

	// Second start: it must show a password that signs the admin in.
	ctx, cancel := context.WithCancel(context.Background())
	srv := startServe(t, ctx, "--data", data)
	t.Cleanup(func() {
		cancel()
		srv.wait(t)
	})
	deadline := time.Now().Add(60 * time.Second)
	var password string
	for password == "" {
		if strings.Contains(srv.out.String(), "floe is running") {
			m := boxPassword.FindStringSubmatch(srv.out.String())
			if m == nil {
				t.Fatalf("the second start's box shows no password, so the admin's password was never shown:\n%s", srv.out.String())
			}
			password = m[1]
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no start box within a minute:\n%s", srv.out.String())
		}
		time.Sleep(20 * time.Millisecond) // polling interval, not an assertion
	}
	addrs := srv.addrs
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	form := url.Values{"username": {"admin"}, "password": {password}}
	resp, err := client.PostForm("http://"+addrs["http"]+"/login", form)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("admin sign-in with the shown password: %d, want 303", resp.StatusCode)
	}
}
