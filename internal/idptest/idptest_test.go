package idptest

import (
	"errors"
	"net/http"
	"net/url"
	"os"
	"strings"
	"testing"
)

// The binary the cache holds must be the one tools/hydra pins.
func TestVersionMatchesToolsModule(t *testing.T) {
	b, err := os.ReadFile("../../tools/hydra/go.mod")
	if err != nil {
		t.Fatal(err)
	}
	want := "github.com/ory/hydra/v2 " + HydraVersion
	if !strings.Contains(string(b), want) {
		t.Fatalf("tools/hydra/go.mod does not require %q; update HydraVersion with it", want)
	}
}

func TestHydraPathHonoursEnv(t *testing.T) {
	t.Setenv("FLOE_HYDRA", "/nonexistent/hydra")
	if _, err := hydraPath(); err == nil || !strings.Contains(err.Error(), "FLOE_HYDRA") {
		t.Fatalf("hydraPath with a missing FLOE_HYDRA: %v, want an error naming FLOE_HYDRA", err)
	}
	t.Setenv("FLOE_HYDRA", "")
	t.Setenv("FLOE_CACHE", t.TempDir())
	if _, err := hydraPath(); !errors.Is(err, errNoHydra) {
		t.Fatalf("hydraPath with an empty cache: %v, want errNoHydra", err)
	}
}

// TestProviderOnLoopback: every listener of the provider is on
// 127.0.0.1, its discovery names the issuer, and a wrong password at its
// form is refused.
func TestProviderOnLoopback(t *testing.T) {
	p := Start(t)
	for _, raw := range []string{p.Issuer, p.admin, p.app.URL} {
		u, err := url.Parse(raw)
		if err != nil || u.Hostname() != "127.0.0.1" {
			t.Fatalf("%s is not on loopback", raw)
		}
	}
	resp, err := http.Get(p.Issuer + "/.well-known/openid-configuration")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("discovery: %s", resp.Status)
	}
	p.AddUser(User{Subject: "ada", Password: "right"})
	resp, err = http.PostForm(p.app.URL+"/login", url.Values{"challenge": {"x"}, "username": {"ada"}, "password": {"wrong"}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("a wrong password: %s", resp.Status)
	}
}
