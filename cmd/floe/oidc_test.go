package main

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	iceberggo "github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/catalog/rest"
	"github.com/apache/iceberg-go/table"

	"github.com/floe/floe/internal/idptest"
)

// expiresAt reads a token's exp claim (unverified: only to know when to
// try it again).
func expiresAt(t *testing.T, tok string) time.Time {
	t.Helper()
	parts := strings.Split(tok, ".")
	payload, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		t.Fatal(err)
	}
	var c struct {
		Exp int64 `json:"exp"`
	}
	if err := json.Unmarshal(payload, &c); err != nil {
		t.Fatal(err)
	}
	return time.Unix(c.Exp, 0)
}

// TestIdPTokensOnCatalogs: engines authenticate to floe serve's Lance REST,
// task API and Iceberg REST with the identity provider's client-credentials
// tokens — iceberg-go and LanceDB 0.39 asking the provider's token endpoint
// themselves — beside floe's own API keys; an expired token, one for
// another audience, one from another issuer and one whose groups give no
// rights are refused in each protocol's shape.
func TestIdPTokensOnCatalogs(t *testing.T) {
	idp := idptest.Start(t)
	idp.ServiceClient(t, idptest.Service{ID: "engine", Secret: "engine-secret-1", Audiences: []string{"floe", "other"},
		Groups: []string{"platform"}, Scope: "catalog", PostSecret: true})
	idp.ServiceClient(t, idptest.Service{ID: "engine-basic", Secret: "engine-secret-2", Audiences: []string{"floe", "other"}, Groups: []string{"platform"}})
	idp.ServiceClient(t, idptest.Service{ID: "brief", Secret: "brief-secret-1", Audiences: []string{"floe"}, Groups: []string{"platform"}, Lifespan: time.Second})
	idp.ServiceClient(t, idptest.Service{ID: "stranger", Secret: "stranger-secret", Audiences: []string{"floe"}, Groups: []string{"marketing"}})
	other := idptest.Start(t)
	other.ServiceClient(t, idptest.Service{ID: "engine", Secret: "engine-secret-1", Audiences: []string{"floe"}, Groups: []string{"platform"}})

	dir := t.TempDir()
	data := "--data=" + dir
	ctx, cancel := context.WithCancel(context.Background())
	srv := startServe(t, ctx, data, "--s3tables", "", "--oidc-issuer", idp.Issuer, "--oidc-audience", "floe", "--oidc-admin-group", "platform")
	t.Cleanup(func() {
		cancel()
		if err := srv.wait(t); err != nil {
			t.Errorf("serve: %v", err)
		}
	})
	lance, ice := "http://"+srv.addrs["lance"], "http://"+srv.addrs["iceberg"]
	for _, b := range [][2]string{{"lake", "iceberg"}, {"vecs", "lance"}} {
		if _, code := run(t, "bucket", "create", b[0], "--format", b[1], data); code != 0 {
			t.Fatalf("bucket create %s failed", b[0])
		}
	}

	t.Run("iceberg-go with the provider's client credentials", func(t *testing.T) {
		tokenURL, _ := url.Parse(idp.TokenURL())
		cat, err := rest.NewCatalog(ctx, "floe", ice, rest.WithWarehouseLocation("lake"),
			rest.WithCredential("engine:engine-secret-1"), rest.WithAuthURI(tokenURL), rest.WithAudience("floe"))
		if err != nil {
			t.Fatalf("rest.NewCatalog: %v", err)
		}
		if err := cat.CreateNamespace(ctx, table.Identifier{"sales"}, nil); err != nil {
			t.Fatalf("create namespace: %v", err)
		}
		schema := iceberggo.NewSchema(0, iceberggo.NestedField{ID: 1, Name: "id", Type: iceberggo.PrimitiveTypes.Int64, Required: true})
		if _, err := cat.CreateTable(ctx, table.Identifier{"sales", "orders"}, schema); err != nil {
			t.Fatalf("create table: %v", err)
		}
		if _, err := cat.LoadTable(ctx, table.Identifier{"sales", "orders"}); err != nil {
			t.Fatalf("load table: %v", err)
		}
		// A client whose provider refuses it never gets in.
		bad, err := rest.NewCatalog(ctx, "floe", ice, rest.WithWarehouseLocation("lake"),
			rest.WithCredential("engine:wrong-secret"), rest.WithAuthURI(tokenURL), rest.WithAudience("floe"))
		if err == nil {
			_, err = bad.LoadTable(ctx, table.Identifier{"sales", "orders"})
		}
		if err == nil {
			t.Fatal("a client the provider refused loaded a table")
		}
	})

	t.Run("LanceDB 0.39 with the provider's client credentials", func(t *testing.T) {
		root, err := filepath.Abs("../..")
		if err != nil {
			t.Fatal(err)
		}
		node, err := exec.LookPath("node")
		if err == nil {
			_, err = os.Stat(filepath.Join(root, "node_modules", "@lancedb", "lancedb", "package.json"))
		}
		if err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("the LanceDB client test needs node and @lancedb/lancedb in node_modules (run npm ci): %v", err)
			}
			t.Skipf("skipping: node or @lancedb/lancedb missing (%v); run npm ci", err)
		}
		expired := idp.ClientCredentials(t, "brief", "brief-secret-1", "floe")
		waitPast(t, expiresAt(t, expired))
		cctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(cctx, node, "--test", "--test-reporter=spec", "test/lancedb-idp/")
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "FLOE_LANCE_URL="+lance, "FLOE_IDP_TOKEN_URL="+idp.TokenURL(),
			"FLOE_IDP_CLIENT=engine-basic", "FLOE_IDP_SECRET=engine-secret-2", "FLOE_IDP_AUDIENCE=floe", "FLOE_IDP_EXPIRED_TOKEN="+expired)
		out, err := cmd.CombinedOutput()
		if err != nil || testing.Verbose() {
			t.Logf("node --test test/lancedb-idp/:\n%s", out)
		}
		if err != nil {
			t.Fatalf("LanceDB journey failed: %v", err)
		}
	})

	t.Run("refusals in each protocol's shape", func(t *testing.T) {
		good := idp.ClientCredentials(t, "engine-basic", "engine-secret-2", "floe")
		for _, u := range []string{lance + "/v1/namespace/vecs$ns/create", lance + "/v1/table/vecs$ns$t/declare"} {
			if status, body := call(t, "POST", u, "", good, "{}"); status != http.StatusOK {
				t.Fatalf("%s with the good token: %d %s", u, status, body)
			}
		}
		expired := idp.ClientCredentials(t, "brief", "brief-secret-1", "floe")
		waitPast(t, expiresAt(t, expired))
		tokens := map[string]string{
			"expired":          expired,
			"another audience": idp.ClientCredentials(t, "engine-basic", "engine-secret-2", "other"),
			"another issuer":   other.ClientCredentials(t, "engine", "engine-secret-1", "floe"),
			"no rights":        idp.ClientCredentials(t, "stranger", "stranger-secret", "floe"),
		}
		says := map[string]string{"expired": "expired", "another audience": "audience", "another issuer": "issued by", "no rights": "marketing"}
		surfaces := []struct {
			name, method, url, host, body string
			shape                         func(t *testing.T, status int, body []byte, says string)
		}{
			{"Lance REST", "POST", lance + "/v1/namespace/vecs/list", "", "{}", lanceShape},
			{"task API", "GET", lance + "/lance/oss/v1/table/ns$t/tasks?task_type=lance_compact", "vecs.localhost", "", taskShape},
			{"Iceberg REST", "GET", ice + "/v1/lake/namespaces", "", "", icebergShape},
		}
		for _, s := range surfaces {
			t.Run(s.name, func(t *testing.T) {
				if status, body := call(t, s.method, s.url, s.host, good, s.body); status != http.StatusOK {
					t.Fatalf("the good token: %d %s", status, body)
				}
				for name, tok := range tokens {
					status, body := call(t, s.method, s.url, s.host, tok, s.body)
					want := http.StatusUnauthorized
					if name == "no rights" {
						want = http.StatusForbidden
					}
					if status != want {
						t.Fatalf("%s: %d %s, want %d", name, status, body, want)
					}
					s.shape(t, status, body, says[name])
					t.Logf("%s: %d %s", name, status, body)
				}
			})
		}
	})

	t.Run("floe's API keys keep working beside the provider's tokens", func(t *testing.T) {
		printed, code := run(t, "token", "create", "--role", "readonly", data)
		lines := strings.Split(strings.TrimSpace(printed), "\n")
		key := strings.TrimSpace(lines[len(lines)-1])
		if code != 0 || !strings.HasPrefix(key, "floe_") {
			t.Fatalf("token create: %d %q", code, printed)
		}
		req, _ := http.NewRequest("GET", ice+"/v1/lake/namespaces", nil)
		req.Header.Set("x-api-key", key)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("API key: %d", resp.StatusCode)
		}
	})
}

// waitPast waits until the wall clock is past exp (token expiry has
// whole-second resolution).
func waitPast(t *testing.T, exp time.Time) {
	t.Helper()
	if d := time.Until(exp.Add(time.Second)); d > 0 {
		time.Sleep(d)
	}
}

func call(t *testing.T, method, u, host, bearer, body string) (int, []byte) {
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
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

// The three protocols' refusal shapes.
func lanceShape(t *testing.T, status int, body []byte, says string) {
	t.Helper()
	var e struct {
		Error, Detail string
		Code          int
	}
	want := map[int]int{401: 16, 403: 15}[status]
	if json.Unmarshal(body, &e) != nil || e.Code != want || e.Error == "" || !strings.Contains(e.Error+" "+e.Detail, says) {
		t.Fatalf("Lance error %s, want code %d saying %q", body, want, says)
	}
}

func taskShape(t *testing.T, status int, body []byte, says string) {
	t.Helper()
	var e struct {
		Error, Detail string
		Code          int
	}
	want := map[int]int{401: 16, 403: 15}[status]
	if json.Unmarshal(body, &e) != nil || e.Code != want || !strings.Contains(e.Error+" "+e.Detail, says) {
		t.Fatalf("task API error %s, want code %d saying %q", body, want, says)
	}
}

func icebergShape(t *testing.T, status int, body []byte, says string) {
	t.Helper()
	var e struct {
		Error struct {
			Message, Type string
			Code          int
		}
	}
	wantType := map[int]string{401: "NotAuthorizedException", 403: "ForbiddenException"}[status]
	if json.Unmarshal(body, &e) != nil || e.Error.Code != status || e.Error.Type != wantType || !strings.Contains(e.Error.Message, says) {
		t.Fatalf("Iceberg error %s, want %s %d saying %q", body, wantType, status, says)
	}
}

// TestOIDCFlags: combinations that cannot work are refused before floe
// opens anything, with a sentence.
func TestOIDCFlags(t *testing.T) {
	data := "--data=" + t.TempDir()
	cases := []struct {
		args []string
		says string
	}{
		{[]string{"--oidc-client-id", "floe"}, "need --oidc-issuer"},
		{[]string{"--oidc-audience", "floe"}, "need --oidc-issuer"},
		{[]string{"--oidc-issuer", "https://idp.example.test"}, "needs --oidc-client-id"},
		{[]string{"--oidc-issuer", "https://idp.example.test", "--oidc-audience", "floe", "--oidc-redirect-url", "https://floe.example.test/login/oidc/callback"}, "give --oidc-client-id too"},
		{[]string{"--oidc-issuer", "not a url", "--oidc-audience", "floe", "--http", "127.0.0.1:0", "--grpc", "127.0.0.1:0", "--lance", "", "--iceberg", "", "--s3tables", ""}, "not an http(s) URL"},
		{[]string{"--oidc-issuer", "https://idp.example.test", "--oidc-client-id", "floe", "--http", "0.0.0.0:9400"}, "give --oidc-redirect-url"},
		{[]string{"--oidc-issuer", "https://idp.example.test", "--oidc-client-id", "floe", "--http", ":9400"}, "give --oidc-redirect-url"},
	}
	for _, c := range cases {
		out, code := run(t, append(append([]string{"serve"}, c.args...), data)...)
		if code != 2 || !strings.Contains(out, c.says) {
			t.Errorf("serve %v: code %d, output %q; want 2 saying %q", c.args, code, out, c.says)
		}
	}
}

// TestServeConsoleSignIn: floe serve's console signs a user in through the
// provider with the client secret from FLOE_OIDC_CLIENT_SECRET and the
// default redirect URL on the bound console address.
func TestServeConsoleSignIn(t *testing.T) {
	idp := idptest.Start(t)
	idp.AddUser(idptest.User{Subject: "ada", Password: "ada-password", Groups: []string{"analysts"}})
	t.Setenv("FLOE_OIDC_CLIENT_SECRET", "console-secret-1")
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	srv := startServe(t, ctx, "--data="+dir, "--s3tables", "", "--oidc-issuer", idp.Issuer, "--oidc-client-id", "floe-console",
		"--oidc-readonly-group", "analysts", "--oidc-name", "Example SSO")
	t.Cleanup(func() {
		cancel()
		if err := srv.wait(t); err != nil {
			t.Errorf("serve: %v", err)
		}
	})
	console := "http://" + srv.addrs["http"]
	idp.WebClient(t, "floe-console", "console-secret-1", console+"/login/oidc/callback")

	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar, Timeout: 30 * time.Second}
	resp, err := c.Get(console + "/login/oidc?next=/jobs")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	form := resp.Request.URL // the provider's sign-in form
	challenge := form.Query().Get("login_challenge")
	if challenge == "" {
		t.Fatalf("no sign-in form of the provider at %s", form)
	}
	resp, err = c.PostForm(form.Scheme+"://"+form.Host+"/login", url.Values{"challenge": {challenge}, "username": {"ada"}, "password": {"ada-password"}})
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Request.URL.Path != "/jobs" || !strings.Contains(string(body), `data-testid="current-user">ada<`) {
		t.Fatalf("after sign-in: %d at %s\n%s", resp.StatusCode, resp.Request.URL, body)
	}
	out, code := run(t, "user", "list", "--data="+dir)
	if code != 0 || !regexpMatch(`(?m)^ada\s+readonly\s+idp\s+analysts\s`, out) {
		t.Fatalf("user list (%d):\n%s", code, out)
	}
}
