package replicas_test

import (
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/floe/floe/internal/replicas"
	"github.com/floe/floe/persist/pgtest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// reply is one HTTP answer, read whole.
type reply struct {
	status int
	body   string
}

// call sends one request with the cluster's API key.
func call(t *testing.T, c *replicas.Cluster, method, url, body string) reply {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("x-api-key", c.APIKey)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	return do(t, http.DefaultClient, req)
}

func do(t *testing.T, client *http.Client, req *http.Request) reply {
	t.Helper()
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return reply{resp.StatusCode, string(b)}
}

// login signs the admin in on one replica's console and returns a client
// holding the session cookie, plus the cookie itself.
func login(t *testing.T, r *replicas.Replica) *http.Cookie {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	client := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	form := url.Values{"username": {"admin"}, "password": {replicas.AdminPassword}}
	req, _ := http.NewRequest("POST", r.Console+"/login", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if got := do(t, client, req); got.status != http.StatusSeeOther && got.status != http.StatusFound {
		t.Fatalf("login on replica %d: %d %s", r.Index, got.status, got.body)
	}
	u, _ := url.Parse(r.Console)
	for _, ck := range jar.Cookies(u) {
		return ck
	}
	t.Fatal("login set no cookie")
	return nil
}

// eventually polls cond until it holds or d passes.
func eventually(t *testing.T, d time.Duration, what string, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(d)
	last := ""
	for time.Now().Before(deadline) {
		ok, s := cond()
		if ok {
			return
		}
		last = s
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatalf("%s: not within %s (last: %s)", what, d, last)
}
