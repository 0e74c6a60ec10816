// Package idptest starts a real OpenID provider on loopback for tests: ORY
// Hydra (`hydra serve all --dev`, an in-memory database) with a small
// login and consent app of ours in front of it — the app shows a sign-in
// form for the users a test adds, consents to every request, and hands
// Hydra each user's and client's groups as claims (Hydra's token hook).
// Tokens are Hydra's own: signed with its keys and published in its JWKS,
// never made by the test.
//
// The binary comes from scripts/hydra-build.sh (cached like weed); tests
// that need it skip locally with a sentence saying how to get it, and fail
// in CI (CI=true).
package idptest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// HydraVersion is the Hydra module version tools/hydra/go.mod pins; the
// binary scripts/hydra-build.sh builds is cached under this name. A test
// checks the two agree.
const HydraVersion = "v2.3.0"

// errNoHydra says the binary is missing and how to get it.
var errNoHydra = errors.New("the OpenID provider for tests (ORY Hydra) is not built: run scripts/hydra-build.sh " +
	"(a few minutes the first time), or point FLOE_HYDRA at a hydra binary")

// startTimeout bounds Hydra's start; it is ready in about a second here.
const startTimeout = 60 * time.Second

// hydraPath finds the binary: $FLOE_HYDRA, else the cache that
// scripts/hydra-build.sh fills (${FLOE_CACHE:-$HOME/.cache/floe}).
func hydraPath() (string, error) {
	if p := os.Getenv("FLOE_HYDRA"); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("FLOE_HYDRA=%s: %w", p, err)
		}
		return p, nil
	}
	cache := os.Getenv("FLOE_CACHE")
	if cache == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", errNoHydra
		}
		cache = filepath.Join(home, ".cache", "floe")
	}
	p := filepath.Join(cache, "hydra-"+HydraVersion)
	if _, err := os.Stat(p); err != nil {
		return "", errNoHydra
	}
	return p, nil
}

// User is a person who can sign in at the provider.
type User struct {
	// Subject is the user's id at the provider (the sub claim) and the
	// name typed into the sign-in form.
	Subject  string
	Password string
	Email    string
	Groups   []string
}

// Provider is one running Hydra and its login and consent app.
type Provider struct {
	// Issuer is the provider's issuer URL (its public address).
	Issuer string
	admin  string
	app    *appServer
	cmd    *exec.Cmd
	log    string // Hydra's output, for a failing test
	client *http.Client
	exited chan struct{} // closed when Hydra's process has ended

	mu           sync.Mutex
	users        map[string]User
	clientGroups map[string][]string // client credentials' groups, by client id
	stopped      bool
}

// Start runs a fresh provider for one test and stops it at cleanup. Each
// provider has its own issuer URL, so a second one is "another issuer".
func Start(t testing.TB) *Provider {
	t.Helper()
	bin, err := hydraPath()
	if err != nil {
		if errors.Is(err, errNoHydra) && os.Getenv("CI") == "" {
			t.Skip(err)
		}
		t.Fatal(err)
	}
	p := &Provider{users: map[string]User{}, clientGroups: map[string][]string{}, client: &http.Client{Timeout: 10 * time.Second}}
	p.app = startApp(t, p.appHandler()) // 127.0.0.1
	t.Cleanup(p.app.Close)
	ports, err := freePorts(2)
	if err != nil {
		t.Fatal(err)
	}
	public, admin := "127.0.0.1:"+strconv.Itoa(ports[0]), "127.0.0.1:"+strconv.Itoa(ports[1])
	p.Issuer, p.admin = "http://"+public, "http://"+admin
	dir := t.TempDir()
	cfg := filepath.Join(dir, "hydra.json")
	if err := writeConfig(cfg, ports, p.Issuer, p.app.URL); err != nil {
		t.Fatal(err)
	}
	p.log = filepath.Join(dir, "hydra.log")
	out, err := os.Create(p.log)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	// --sqa-opt-out: no usage reports to Ory (the network is closed
	// anyway); every listener is on 127.0.0.1 (hydra.json).
	p.cmd = exec.Command(bin, "serve", "all", "--dev", "--sqa-opt-out", "--config", cfg)
	p.cmd.Stdout, p.cmd.Stderr = out, out
	p.cmd.SysProcAttr = procAttr()
	p.cmd.Env = append(os.Environ(), "LOG_LEVEL=warn")
	if err := p.cmd.Start(); err != nil {
		t.Fatalf("start hydra: %v", err)
	}
	p.exited = make(chan struct{})
	go func() { _ = p.cmd.Wait(); close(p.exited) }() // the one Wait
	t.Cleanup(p.Stop)
	if err := p.waitReady(); err != nil {
		p.Stop()
		t.Fatalf("%v\n%s", err, p.tail())
	}
	// Access tokens are signed with an ES256 key made now (Hydra would
	// make an RSA 4096 key on the first token, seconds of CPU on a busy
	// machine); ID tokens keep Hydra's RS256 key, so both kinds are
	// verified.
	p.adminCall(t, http.MethodPost, "/admin/keys/hydra.jwt.access-token", map[string]any{"alg": "ES256", "use": "sig", "kid": "idptest-access"}, nil)
	// Hydra makes some of its keys on first use; asking for discovery and
	// the key set now keeps that work out of the first call a test
	// measures or bounds with floe's own timeouts.
	// On a loaded machine the first answer may be an error while Hydra
	// makes its RSA key: ask again until startTimeout.
	for _, path := range []string{"/.well-known/openid-configuration", "/.well-known/jwks.json"} {
		if err := p.warm(p.Issuer + path); err != nil {
			t.Fatalf("idptest: %s did not answer: %v\n%s", path, err, p.tail())
		}
	}
	return p
}

// warm asks u until it answers 200, Hydra exits or startTimeout passes.
func (p *Provider) warm(u string) error {
	deadline := time.Now().Add(startTimeout)
	c := &http.Client{Timeout: startTimeout}
	for {
		resp, err := c.Get(u)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
			err = fmt.Errorf("status %s", resp.Status)
		}
		if time.Now().After(deadline) {
			return err
		}
		select {
		case <-p.exited:
			return errors.New("hydra exited")
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// writeConfig writes Hydra's configuration: loopback listeners, the app's
// login and consent pages and token hook, JWT access tokens with the
// groups claim at their top level.
func writeConfig(path string, ports []int, issuer, app string) error {
	cfg := map[string]any{
		"dsn": "memory",
		"serve": map[string]any{
			"public": map[string]any{"host": "127.0.0.1", "port": ports[0]},
			"admin":  map[string]any{"host": "127.0.0.1", "port": ports[1]},
		},
		"urls": map[string]any{
			"self":    map[string]any{"issuer": issuer},
			"login":   app + "/login",
			"consent": app + "/consent",
			"error":   app + "/error",
		},
		"secrets":    map[string]any{"system": []string{"floe-idptest-system-secret-" + strconv.Itoa(os.Getpid())}},
		"strategies": map[string]any{"access_token": "jwt"},
		"oauth2": map[string]any{
			"allowed_top_level_claims": []string{"groups"},
			"token_hook":               app + "/token-hook",
		},
		"log": map[string]any{"level": "warn"},
	}
	b, err := json.MarshalIndent(cfg, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o600)
}

func (p *Provider) waitReady() error {
	deadline := time.Now().Add(startTimeout)
	for {
		if p.answers(p.Issuer+"/health/ready") && p.answers(p.admin+"/health/ready") {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("idptest: hydra was not ready within %s", startTimeout)
		}
		select {
		case <-p.exited:
			return errors.New("idptest: hydra exited")
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// answers reports whether u answers 200 within startTimeout.
func (p *Provider) answers(u string) bool {
	resp, err := (&http.Client{Timeout: startTimeout}).Get(u)
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

// Stop stops Hydra (the provider is then down: what a sign-in or a token
// check meets when the provider is unreachable). Safe to call twice.
func (p *Provider) Stop() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stopped || p.cmd == nil || p.cmd.Process == nil {
		return
	}
	p.stopped = true
	_ = p.cmd.Process.Kill()
	<-p.exited
}

// tail is the end of Hydra's log.
func (p *Provider) tail() string {
	b, _ := os.ReadFile(p.log)
	if len(b) > 4000 {
		b = b[len(b)-4000:]
	}
	return string(b)
}

// AddUser lets u sign in.
func (p *Provider) AddUser(u User) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.users[u.Subject] = u
}

// WebClient registers a confidential client for the authorization code
// flow with redirectURL (a console's callback).
func (p *Provider) WebClient(t testing.TB, id, secret, redirectURL string) {
	t.Helper()
	p.adminCall(t, http.MethodPost, "/admin/clients", map[string]any{
		"client_id": id, "client_secret": secret,
		"grant_types":                []string{"authorization_code", "refresh_token"},
		"response_types":             []string{"code"},
		"redirect_uris":              []string{redirectURL},
		"scope":                      "openid profile email",
		"token_endpoint_auth_method": "client_secret_basic",
	}, nil)
}

// Service is a client of the client-credentials flow (an engine).
type Service struct {
	ID, Secret string
	// Audiences its tokens may name (the token request's audience).
	Audiences []string
	// Groups its access tokens carry (the groups claim).
	Groups []string
	// Scope it may ask for, space-separated ("" none; iceberg-go asks
	// for "catalog").
	Scope string
	// PostSecret makes it send its secret in the form body
	// (client_secret_post, as iceberg-go does) instead of Basic auth.
	PostSecret bool
	// Lifespan > 0 makes its access tokens live that long (Hydra's
	// default is an hour).
	Lifespan time.Duration
}

// ServiceClient registers s.
func (p *Provider) ServiceClient(t testing.TB, s Service) {
	t.Helper()
	method := "client_secret_basic"
	if s.PostSecret {
		method = "client_secret_post"
	}
	p.adminCall(t, http.MethodPost, "/admin/clients", map[string]any{
		"client_id": s.ID, "client_secret": s.Secret,
		"grant_types":                []string{"client_credentials"},
		"audience":                   s.Audiences,
		"scope":                      s.Scope,
		"token_endpoint_auth_method": method,
	}, nil)
	if s.Lifespan > 0 {
		p.adminCall(t, http.MethodPut, "/admin/clients/"+s.ID+"/lifespans", map[string]any{
			"client_credentials_grant_access_token_lifespan": s.Lifespan.String(),
		}, nil)
	}
	p.mu.Lock()
	p.clientGroups[s.ID] = s.Groups
	p.mu.Unlock()
}

// TokenURL is the provider's token endpoint.
func (p *Provider) TokenURL() string { return p.Issuer + "/oauth2/token" }

// ClientCredentials asks the provider's token endpoint for an access token
// for audience, as an engine does.
func (p *Provider) ClientCredentials(t testing.TB, id, secret, audience string) string {
	t.Helper()
	form := "grant_type=client_credentials&audience=" + audience
	req, err := http.NewRequest(http.MethodPost, p.TokenURL(), strings.NewReader(form))
	if err != nil {
		t.Fatal(err)
	}
	req.SetBasicAuth(id, secret)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	p.do(t, req, &tok)
	if tok.AccessToken == "" {
		t.Fatal("idptest: the token endpoint answered no access_token")
	}
	return tok.AccessToken
}

// adminCall sends a JSON request to Hydra's admin API.
func (p *Provider) adminCall(t testing.TB, method, path string, body, out any) {
	t.Helper()
	b, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequest(method, p.admin+path, strings.NewReader(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	p.do(t, req, out)
}

func (p *Provider) do(t testing.TB, req *http.Request, out any) {
	t.Helper()
	resp, err := p.client.Do(req)
	if err != nil {
		t.Fatalf("idptest: %s %s: %v", req.Method, req.URL.Path, err)
	}
	defer resp.Body.Close()
	var raw json.RawMessage
	if err := json.NewDecoder(resp.Body).Decode(&raw); err != nil && resp.StatusCode != http.StatusNoContent {
		t.Fatalf("idptest: %s %s: %s, unreadable body: %v", req.Method, req.URL.Path, resp.Status, err)
	}
	if resp.StatusCode >= 300 {
		t.Fatalf("idptest: %s %s: %s %s", req.Method, req.URL.Path, resp.Status, raw)
	}
	if out != nil {
		if err := json.Unmarshal(raw, out); err != nil {
			t.Fatalf("idptest: %s %s: %v", req.Method, req.URL.Path, err)
		}
	}
}

// admin calls of the app (outside a test's goroutine: no t).
func (p *Provider) adminJSON(ctx context.Context, method, path string, body, out any) error {
	var rd *strings.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = strings.NewReader(string(b))
	} else {
		rd = strings.NewReader("")
	}
	req, err := http.NewRequestWithContext(ctx, method, p.admin+path, rd)
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := p.client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 300 {
		return fmt.Errorf("hydra admin %s %s: %s", method, path, resp.Status)
	}
	return json.NewDecoder(resp.Body).Decode(out)
}

func freePorts(n int) ([]int, error) {
	ls := make([]net.Listener, 0, n)
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	ports := make([]int, 0, n)
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

// appServer is the login/consent app on a loopback port of its own.
type appServer struct {
	URL string
	srv *http.Server
}

func startApp(t testing.TB, h http.Handler) *appServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	a := &appServer{URL: "http://" + ln.Addr().String(), srv: &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}}
	go a.srv.Serve(ln)
	return a
}

// Close stops the app.
func (a *appServer) Close() { a.srv.Close() }
