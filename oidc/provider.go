// Package oidc connects floe to the organization's OpenID provider: console
// sign-in through the authorization code flow (PKCE, state and nonce; see
// Begin and Finish) and the provider's access tokens on the catalog
// surfaces (Authenticate, an edge.Authenticator). Every token is verified
// by github.com/coreos/go-oidc against the issuer's published keys (JWKS):
// signature, issuer, audience and expiry; nothing here checks a JWT by
// hand. What a verified person or client may do comes from its groups
// (Rights), until grants decide it.
package oidc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"sync"
	"time"

	gooidc "github.com/coreos/go-oidc/v3/oidc"
	"golang.org/x/oauth2"

	"github.com/floe/floe/identity"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/fault"
)

// Config configures the provider floe trusts.
type Config struct {
	// Issuer is the provider's issuer URL, exactly as its discovery
	// document and its tokens write it (--oidc-issuer).
	Issuer string
	// ClientID is floe's client at the provider (--oidc-client-id): the
	// console signs in as it, and ID tokens must name it as audience.
	ClientID string
	// ClientSecret is that client's secret (FLOE_OIDC_CLIENT_SECRET); ""
	// for a public client, which PKCE alone protects.
	ClientSecret string
	// Audience is what an access token must name in aud to be accepted on
	// the catalog surfaces (--oidc-audience); "" accepts no access tokens.
	Audience string
	// GroupsClaim names the claim that lists a user's or client's groups
	// (--oidc-groups-claim; default "groups"); a dotted path descends into
	// objects ("realm_access.roles").
	GroupsClaim string
	// RedirectURL is the console's callback the provider sends the
	// browser back to (…/login/oidc/callback), as registered at the
	// provider for ClientID (--oidc-redirect-url).
	RedirectURL string
	// Scopes are asked at sign-in; "openid" is always among them. Default
	// openid, profile, email.
	Scopes []string
	// Label names the provider on the sign-in button ("Sign in with
	// Label"); default the issuer's host.
	Label string
	// Rights is the interim rule from groups to what a principal may do
	// (see Rights).
	Rights Rights
	// HTTPClient talks to the provider; nil is one with idpTimeout and
	// bodies capped at maxIdPResponse.
	HTTPClient *http.Client
	// Granted reports whether a principal holds any grant (its own or a
	// group's; authz.Rights.Any). A bearer whose groups map to no role
	// (Rights) is admitted when it does, and grants alone decide its
	// requests; nil admits none such.
	Granted func(ctx context.Context, p identity.Principal) bool
	// Now is the clock tokens are checked against; nil = time.Now.
	Now    func() time.Time
	Logger *slog.Logger
}

// idpTimeout bounds one call to the provider (discovery, keys, the code
// exchange, userinfo): a sign-in waits on it, so a provider that hangs
// fails the sign-in with a sentence instead of holding the browser.
const idpTimeout = 10 * time.Second

// maxIdPResponse caps what floe reads of one answer of the provider: a
// discovery document, a key set or a token answer is a few KiB; go-oidc
// reads them whole, so the cap sits in the transport.
const maxIdPResponse = 1 << 20

// rediscoverAfter is how long a failed discovery is remembered: requests
// meanwhile fail at once (the provider is down) instead of each waiting
// idpTimeout on it.
const rediscoverAfter = 5 * time.Second

// Provider is floe's view of one OpenID provider: discovered on first
// use (a provider that is down at floe's start does not stop the console
// or local sign-in), then kept. Safe for concurrent use.
type Provider struct {
	cfg    Config
	client *http.Client
	now    func() time.Time
	log    *slog.Logger
	// verified remembers the access tokens that verified (see
	// VerifyAccessToken).
	verified verifiedTokens

	mu       sync.Mutex
	disc     *gooidc.Provider
	keys     *keySet // the provider's jwks_uri, once discovered
	failedAt time.Time
	failure  error
}

// New builds a Provider; it does not call the provider (Discover does).
func New(cfg Config) (*Provider, error) {
	u, err := url.Parse(cfg.Issuer)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return nil, fmt.Errorf("oidc: the issuer %q is not an http(s) URL", cfg.Issuer)
	}
	if cfg.ClientID == "" && cfg.Audience == "" {
		return nil, errors.New("oidc: give a client id (console sign-in), an audience (bearer tokens), or both")
	}
	if cfg.ClientID != "" {
		if r, err := url.Parse(cfg.RedirectURL); err != nil || (r.Scheme != "https" && r.Scheme != "http") || r.Host == "" {
			return nil, fmt.Errorf("oidc: the redirect URL %q is not an http(s) URL", cfg.RedirectURL)
		}
	}
	if cfg.GroupsClaim == "" {
		cfg.GroupsClaim = "groups"
	}
	if len(cfg.Scopes) == 0 {
		cfg.Scopes = []string{"profile", "email"}
	}
	if !slices.Contains(cfg.Scopes, gooidc.ScopeOpenID) {
		cfg.Scopes = append([]string{gooidc.ScopeOpenID}, cfg.Scopes...)
	}
	if cfg.Label == "" {
		cfg.Label = u.Host
	}
	p := &Provider{cfg: cfg, client: cfg.HTTPClient, now: cfg.Now, log: cfg.Logger}
	if p.client == nil {
		p.client = &http.Client{Timeout: idpTimeout, Transport: cappedTransport{http.DefaultTransport}}
	}
	if p.now == nil {
		p.now = time.Now
	}
	if p.log == nil {
		p.log = slog.Default()
	}
	return p, nil
}

// Label is the provider's name on the sign-in button.
func (p *Provider) Label() string { return p.cfg.Label }

// Issuer is the issuer URL tokens must carry.
func (p *Provider) Issuer() string { return p.cfg.Issuer }

// ConsoleRole is the console role a user of groups gets (Rights).
func (p *Provider) ConsoleRole(groups []string) catalog.Role { return p.cfg.Rights.ConsoleRole(groups) }

// NoRights says why a principal of groups gets no role, for a refusal.
func (p *Provider) NoRights(groups []string) string {
	return groupList(groups) + " give no rights in floe: " + p.cfg.Rights.describe()
}

// SignIn reports whether console sign-in is configured (a client id).
func (p *Provider) SignIn() bool { return p.cfg.ClientID != "" }

// Discover reads the provider's discovery document (once; a failure is
// retried after rediscoverAfter). An unreachable provider is
// fault.Unavailable.
func (p *Provider) Discover(ctx context.Context) (*gooidc.Provider, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.disc != nil {
		return p.disc, nil
	}
	if p.failure != nil && p.now().Sub(p.failedAt) < rediscoverAfter {
		return nil, p.failure
	}
	// The provider keeps the context's client for its key set, so the
	// request's own cancellation must not reach it.
	dctx, cancel := context.WithTimeout(gooidc.ClientContext(context.WithoutCancel(ctx), p.client), idpTimeout)
	defer cancel()
	d, err := gooidc.NewProvider(dctx, p.cfg.Issuer)
	if err != nil {
		p.log.Warn("the identity provider's discovery failed", "issuer", p.cfg.Issuer, "err", err)
		p.failedAt = p.now()
		msg := "the identity provider " + p.cfg.Issuer + " does not answer; try again in a moment"
		var mismatch *gooidc.IssuerMismatchError
		if errors.As(err, &mismatch) {
			// A configuration mistake, often a trailing slash: tokens would
			// never match either.
			msg = "the identity provider's discovery document names the issuer " + mismatch.Discovered + ", not " + p.cfg.Issuer + "; an administrator should give --oidc-issuer exactly as the provider writes it"
		}
		p.failure = &fault.Error{Kind: fault.Unavailable, Field: "idp", Message: msg, Err: err}
		return nil, p.failure
	}
	var meta struct {
		JWKS string `json:"jwks_uri"`
	}
	if err := d.Claims(&meta); err != nil || meta.JWKS == "" {
		p.failedAt = p.now()
		p.failure = &fault.Error{Kind: fault.Unavailable, Field: "idp",
			Message: "the identity provider " + p.cfg.Issuer + " publishes no signing keys (jwks_uri) in its discovery document", Err: err}
		return nil, p.failure
	}
	p.disc, p.keys, p.failure = d, newKeySet(meta.JWKS, p.client, p.now), nil
	return d, nil
}

// clientContext carries floe's client to oauth2 and go-oidc calls.
func (p *Provider) clientContext(ctx context.Context) context.Context {
	return gooidc.ClientContext(ctx, p.client)
}

// unavailable says the provider could not be reached during a call.
func unavailable(what string, err error) error {
	return &fault.Error{Kind: fault.Unavailable, Field: "idp",
		Message: "the identity provider did not answer " + what + "; try again in a moment", Err: err}
}

// cappedTransport caps every answer's body at maxIdPResponse.
type cappedTransport struct{ next http.RoundTripper }

func (c cappedTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := c.next.RoundTrip(r)
	if err != nil {
		return nil, err
	}
	resp.Body = &cappedBody{ReadCloser: resp.Body, left: maxIdPResponse}
	return resp, nil
}

// errTooLarge: the provider sent more than maxIdPResponse.
var errTooLarge = fmt.Errorf("oidc: the identity provider's answer is larger than %d bytes", maxIdPResponse)

type cappedBody struct {
	io.ReadCloser
	left int64
}

func (b *cappedBody) Read(buf []byte) (int, error) {
	if b.left <= 0 {
		// One byte more tells a body of exactly the cap from a longer one.
		var one [1]byte
		if n, _ := b.ReadCloser.Read(one[:]); n > 0 {
			return 0, errTooLarge
		}
		return 0, io.EOF
	}
	if int64(len(buf)) > b.left {
		buf = buf[:b.left]
	}
	n, err := b.ReadCloser.Read(buf)
	b.left -= int64(n)
	return n, err
}

// oauth2Config is the code flow's client for one redirect URL. How the
// client authenticates at the token endpoint is fixed from the discovery
// document (oauth2's auto-detection would retry a refused code with the
// other style, and report the provider's answer to that instead).
func (p *Provider) oauth2Config(d *gooidc.Provider, redirectURL string) *oauth2.Config {
	ep := d.Endpoint()
	var meta struct {
		Methods []string `json:"token_endpoint_auth_methods_supported"`
	}
	_ = d.Claims(&meta)
	switch {
	case p.cfg.ClientSecret == "":
		ep.AuthStyle = oauth2.AuthStyleInParams // a public client names itself in the form
	case len(meta.Methods) == 0 || slices.Contains(meta.Methods, "client_secret_basic"):
		ep.AuthStyle = oauth2.AuthStyleInHeader // the spec's default
	default:
		ep.AuthStyle = oauth2.AuthStyleInParams
	}
	return &oauth2.Config{ClientID: p.cfg.ClientID, ClientSecret: p.cfg.ClientSecret, Endpoint: ep,
		RedirectURL: redirectURL, Scopes: p.cfg.Scopes}
}

// verifier checks tokens of the discovered provider for audience aud.
func (p *Provider) verifier(aud string) *gooidc.IDTokenVerifier {
	p.mu.Lock()
	keys := p.keys
	p.mu.Unlock()
	return gooidc.NewVerifier(p.cfg.Issuer, keys, &gooidc.Config{ClientID: aud, SupportedSigningAlgs: algNames(), Now: p.now})
}
