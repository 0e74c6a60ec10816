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
	addrs := map[string]string{}
	for _, name := range surfaceFlags {
		addrs[name] = freeAddr(t)
	}
	args := func() []string {
		a := []string{"serve", "--data", data}
		for _, name := range surfaceFlags {
			a = append(a, "--"+name, addrs[name])
		}
		return a
	}

	// First start: the plugin channel's port is taken, so the start fails
	// after the catalog was opened and migrated.
	hold, err := net.Listen("tcp", addrs["grpc"])
	if err != nil {
		t.Fatal(err)
	}
	out, code := run(t, args()...)
	hold.Close()
	if code == 0 || !strings.Contains(out, "grpc: listen on") {
		t.Fatalf("first start: code %d, output %q; want the grpc bind failure", code, out)
	}

	// Second start: it must show a password that signs the admin in.
	addrs["grpc"] = freeAddr(t)
	ctx, cancel := context.WithCancel(context.Background())
	cmd := newRootCmd()
	var buf lockedBuffer
	cmd.SetOut(&buf)
	cmd.SetErr(&buf)
	cmd.SetArgs(args())
	done := make(chan error, 1)
	go func() { done <- cmd.ExecuteContext(ctx) }()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	deadline := time.Now().Add(60 * time.Second)
	var password string
	for password == "" {
		select {
		case err := <-done:
			done <- err
			t.Fatalf("second start ended: %v\n%s", err, buf.String())
		default:
		}
		if strings.Contains(buf.String(), "floe is running") {
			m := boxPassword.FindStringSubmatch(buf.String())
			if m == nil {
				t.Fatalf("the second start's box shows no password, so the admin's password was never shown:\n%s", buf.String())
			}
			password = m[1]
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no start box within a minute:\n%s", buf.String())
		}
		time.Sleep(20 * time.Millisecond) // polling interval, not an assertion
	}
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
