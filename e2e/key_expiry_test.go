package e2e

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestJourneyKeyExpiry makes an API key in the console that expires in
// 2 s, uses it on the Lance REST while it lives, and after its expiry
// sees the Lance REST and the Iceberg REST of the real floe refuse it with
// a sentence that says it expired, and the keys list say when it did —
// with no CSP violation or console error.
func TestJourneyKeyExpiry(t *testing.T) {
	if testing.Short() {
		t.Skip("browser journey skipped in -short mode")
	}
	execPath := chromium(t)
	p := startFloe(t, floeOptions{iceberg: true, noWorker: true, seed: func(floeProc) {}})
	bctx, logs := browserContext(t, execPath)
	step := func(name string, actions ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(bctx, actions...); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	row := `[data-testid="key-row"][data-key-name="short-lived"]`
	step("sign in", signIn(p.url)...)
	step("make a key that expires in 2 s",
		chromedp.Navigate(p.url+"/api-keys"),
		chromedp.WaitVisible(tid("key-name-input")),
		chromedp.SendKeys(tid("key-name-input"), "short-lived"),
		chromedp.SetValue(tid("key-expires-input"), "2s"),
		chromedp.Click(tid("create-key-submit")),
		chromedp.WaitVisible(tid("new-key-secret")),
	)
	secret, err := chromedp.Run(bctx, chromedp.Text(tid("new-key-secret")))
	if err != nil || !strings.HasPrefix(strings.TrimSpace(secret), "floe_") {
		t.Fatalf("secret %q, %v", secret, err)
	}
	secret = strings.TrimSpace(secret)
	expiresISO, err := chromedp.Run(bctx, chromedp.Evaluate[string](`document.querySelector('`+row+` [data-testid="key-expires"]').dataset.expires`))
	if err != nil {
		t.Fatal(err)
	}
	expires, err := time.Parse(time.RFC3339, expiresISO)
	if err != nil {
		t.Fatalf("listed expiry %q: %v", expiresISO, err)
	}
	if early, late := time.Now().Add(-5*time.Second), time.Now().Add(3*time.Second); expires.Before(early) || expires.After(late) {
		t.Fatalf("the key expires at %v, not 2 s after its creation (now %v)", expires, time.Now())
	}

	call := func(method, url, header string) (int, string) {
		t.Helper()
		req, err := http.NewRequestWithContext(context.Background(), method, url, nil)
		if err != nil {
			t.Fatal(err)
		}
		if header == "x-api-key" {
			req.Header.Set("x-api-key", secret)
		} else {
			req.Header.Set("Authorization", "Bearer "+secret)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	lanceList := p.lance + "/v1/namespace/%24/list"
	if status, body := call(http.MethodGet, lanceList, "x-api-key"); status != http.StatusOK {
		t.Fatalf("the fresh key on the Lance REST: %d %s", status, body)
	}

	// The list shows the expiry to the second (RFC 3339 has no fraction):
	// the key lives until at most a second past it. One wait, no polling.
	time.Sleep(time.Until(expires.Add(time.Second)))

	for _, c := range []struct{ surface, method, url, header string }{
		{"Lance REST", http.MethodGet, lanceList, "x-api-key"},
		{"Iceberg REST", http.MethodGet, p.iceberg + "/v1/config", "bearer"},
	} {
		status, body := call(c.method, c.url, c.header)
		if status != http.StatusUnauthorized || !strings.Contains(body, "expired") {
			t.Errorf("the expired key on the %s: %d %s", c.surface, status, body)
		}
		t.Logf("%s refuses: %d %s", c.surface, status, strings.TrimSpace(body))
	}

	step("the keys list says it expired",
		chromedp.Navigate(p.url+"/api-keys"),
		chromedp.WaitVisible(chromedp.CSS(row)),
	)
	cell, err := chromedp.Run(bctx, chromedp.Text(chromedp.CSS(row+` [data-testid="key-expires"]`)))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(cell, "expired") || !strings.Contains(cell, expires.UTC().Format("15:04:05")) {
		t.Errorf("the keys list shows %q for a key that expired at %v", cell, expires.UTC())
	}
	failOnBrowserErrors(t, logs)
}
