package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
)

// keyExpiryLifetime is how long the key of TestServeRefusesExpiredKeys
// lives: long enough for one pass over the surfaces on a loaded machine.
const keyExpiryLifetime = "8s"

// TestServeRefusesExpiredKeys: a key made with floe token create
// --expires-in works on every surface that takes keys until it expires,
// then every one of them refuses it with a sentence saying it expired —
// the key cache of each surface notwithstanding (it was just used) — and
// so does an OAuth bearer issued for it before.
func TestServeRefusesExpiredKeys(t *testing.T) {
	dir := t.TempDir()
	data := "--data=" + dir
	ctx, cancel := context.WithCancel(context.Background())
	srv := startServe(t, ctx, data)
	t.Cleanup(func() {
		cancel()
		if err := srv.wait(t); err != nil {
			t.Errorf("serve: %v", err)
		}
	})
	lance, ice, s3t := srv.addrs["lance"], srv.addrs["iceberg"], srv.addrs["s3tables"]
	for _, args := range [][]string{{"bucket", "create", "vecs", "--format", "lance"}, {"bucket", "create", "lake", "--format", "iceberg"}} {
		if out, code := run(t, append(args, data)...); code != 0 {
			t.Fatalf("%v: %s", args, out)
		}
	}
	printed, code := run(t, "token", "create", "--role", "readwrite", "--expires-in", keyExpiryLifetime, data)
	pair := regexp.MustCompile(`access key id (FLOE[A-Z2-7]{16}), secret access key ([0-9A-Za-z]{40})`).FindStringSubmatch(printed)
	expiry := regexp.MustCompile(`expires (\S+);`).FindStringSubmatch(printed)
	if code != 0 || pair == nil || expiry == nil {
		t.Fatalf("token create --expires-in (code %d):\n%s", code, printed)
	}
	key := lastLine(printed)
	expires, err := time.Parse(time.RFC3339, expiry[1])
	if err != nil {
		t.Fatal(err)
	}

	resp, err := http.PostForm("http://"+ice+"/v1/oauth/tokens", url.Values{"grant_type": {"client_credentials"}, "client_id": {pair[1]}, "client_secret": {pair[2]}})
	if err != nil {
		t.Fatal(err)
	}
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	err = json.NewDecoder(resp.Body).Decode(&tok)
	resp.Body.Close()
	if err != nil || resp.StatusCode != 200 || tok.AccessToken == "" {
		t.Fatalf("token exchange: %d %v", resp.StatusCode, err)
	}

	type call struct {
		name, method, url, host string
		auth                    func(*http.Request)
		body                    string
	}
	bearer := func(b string) func(*http.Request) {
		return func(r *http.Request) { r.Header.Set("Authorization", "Bearer "+b) }
	}
	sign := func(service string) func(*http.Request) {
		return func(r *http.Request) {
			sum := sha256.Sum256(nil)
			hash := hex.EncodeToString(sum[:])
			r.Header.Set("X-Amz-Content-Sha256", hash)
			if err := v4.NewSigner().SignHTTP(ctx, aws.Credentials{AccessKeyID: pair[1], SecretAccessKey: pair[2]}, r, hash, service, "us-east-1", time.Now()); err != nil {
				t.Fatal(err)
			}
		}
	}
	calls := []call{
		{"Lance REST, x-api-key", "POST", "http://" + lance + "/v1/namespace/vecs/list", "", func(r *http.Request) { r.Header.Set("x-api-key", key) }, "{}"},
		{"task API", "GET", "http://" + lance + "/lance/oss/v1/table/ns$t/tasks?task_type=lance_compact", "vecs.localhost", bearer(key), ""},
		{"Iceberg REST, bearer key", "GET", "http://" + ice + "/v1/config?warehouse=lake", "", bearer(key), ""},
		{"Iceberg REST, OAuth bearer", "GET", "http://" + ice + "/v1/config?warehouse=lake", "", bearer(tok.AccessToken), ""},
		{"Iceberg REST, SigV4", "GET", "http://" + ice + "/v1/config?warehouse=" + url.QueryEscape("arn:aws:s3tables:us-east-1:000000000000:bucket/lake"), "", sign("s3tables"), ""},
		{"S3 Tables, SigV4", "GET", "http://" + s3t + "/buckets", "", sign("s3tables"), ""},
	}
	do := func(c call) (int, string) {
		t.Helper()
		req, err := http.NewRequest(c.method, c.url, strings.NewReader(c.body))
		if err != nil {
			t.Fatal(err)
		}
		if c.host != "" {
			req.Host = c.host
		}
		c.auth(req)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		return resp.StatusCode, string(b)
	}
	for _, c := range calls {
		if code, body := do(c); code >= 300 && code != 404 {
			t.Fatalf("%s before expiry: %d %s", c.name, code, body)
		}
	}
	if time.Now().After(expires) {
		t.Fatalf("the calls before expiry ran past it (%s): raise keyExpiryLifetime", keyExpiryLifetime)
	}
	// The printed time is to the second: wait a second past it. This waits
	// for the expiry; it asserts no time.
	time.Sleep(time.Until(expires) + 1100*time.Millisecond)
	for _, c := range calls {
		code, body := do(c)
		if code != http.StatusUnauthorized && code != http.StatusForbidden {
			t.Errorf("%s after expiry: %d %s", c.name, code, body)
			continue
		}
		if c.name == "Iceberg REST, OAuth bearer" {
			if !strings.Contains(body, "expired") {
				t.Errorf("%s after expiry says %s", c.name, body)
			}
			continue
		}
		if !strings.Contains(body, "expired at "+expires.UTC().Format(time.RFC3339)) {
			t.Errorf("%s after expiry does not say the key expired, and when: %d %s", c.name, code, body)
		}
	}
	// token list shows the live keys; --expired adds the refused one, marked.
	if out, code := run(t, "token", "list", data); code != 0 || strings.Contains(out, pair[1]) {
		t.Errorf("token list after expiry (code %d) still lists the key:\n%s", code, out)
	}
	out, code := run(t, "token", "list", "--expired", "--json", data)
	var listed []struct {
		AccessKeyID string `json:"access_key_id"`
		Expired     bool   `json:"expired"`
	}
	if i := strings.Index(out, "["); code != 0 || i < 0 || json.Unmarshal([]byte(out[i:]), &listed) != nil {
		t.Fatalf("token list --expired --json (code %d):\n%s", code, out)
	}
	marked := false
	for _, k := range listed {
		marked = marked || k.AccessKeyID == pair[1] && k.Expired
	}
	if !marked {
		t.Errorf("token list --expired --json does not mark the key expired: %s", out)
	}
	if out, _ := run(t, "token", "list", "--expired", data); !strings.Contains(out, "(expired)") {
		t.Errorf("token list --expired does not say which key expired:\n%s", out)
	}
}
