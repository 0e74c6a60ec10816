package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

// TestServeSharesOAuthTokens: a bearer from the Iceberg REST's
// /v1/oauth/tokens works on the Lance REST and the task API of the same
// floe serve, with its key's role; a token floe never issued is 401 on each.
func TestServeSharesOAuthTokens(t *testing.T) {
	dir := t.TempDir()
	data := "--data=" + dir
	ctx, cancel := context.WithCancel(context.Background())
	srv := startServe(t, ctx, data, "--s3tables", "")
	t.Cleanup(func() {
		cancel()
		if err := srv.wait(t); err != nil {
			t.Errorf("serve: %v", err)
		}
	})
	lance, ice := srv.addrs["lance"], srv.addrs["iceberg"]
	if _, code := run(t, "bucket", "create", "vecs", "--format", "lance", data); code != 0 {
		t.Fatal("bucket create failed")
	}
	printed, code := run(t, "token", "create", "--role", "readwrite", data)
	m := regexp.MustCompile(`access key id (FLOE[A-Z2-7]{16}), secret access key ([0-9A-Za-z]{40})`).FindStringSubmatch(printed)
	if code != 0 || m == nil {
		t.Fatalf("token create printed no access key pair (code %d):\n%s", code, printed)
	}

	form := url.Values{"grant_type": {"client_credentials"}, "client_id": {m[1]}, "client_secret": {m[2]}}
	resp, err := http.PostForm("http://"+ice+"/v1/oauth/tokens", form)
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

	send := func(method, u, host, bearer, body string) int {
		t.Helper()
		req, err := http.NewRequest(method, u, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		if host != "" {
			req.Host = host
		}
		req.Header.Set("Authorization", "Bearer "+bearer)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode >= 300 && resp.StatusCode != 401 {
			t.Logf("%s %s: %d %s", method, u, resp.StatusCode, b)
		}
		return resp.StatusCode
	}
	steps := []struct {
		name, method, url, host, bearer, body string
		want                                  int
	}{
		{"Lance REST: create namespace", "POST", "http://" + lance + "/v1/namespace/vecs$ns/create", "", tok.AccessToken, "{}", 200},
		{"Lance REST: declare table", "POST", "http://" + lance + "/v1/table/vecs$ns$t/declare", "", tok.AccessToken, "{}", 200},
		{"task API: list tasks", "GET", "http://" + lance + "/lance/oss/v1/table/ns$t/tasks?task_type=lance_compact", "vecs.localhost", tok.AccessToken, "", 200},
		{"Lance REST: unknown token", "POST", "http://" + lance + "/v1/namespace/vecs/list", "", "floe_oat_nope", "{}", 401},
		{"task API: unknown token", "GET", "http://" + lance + "/lance/oss/v1/table/ns$t/tasks?task_type=lance_compact", "vecs.localhost", "floe_oat_nope", "", 401},
	}
	for _, s := range steps {
		if got := send(s.method, s.url, s.host, s.bearer, s.body); got != s.want {
			t.Errorf("%s = %d, want %d", s.name, got, s.want)
		}
	}
}
