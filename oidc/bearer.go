package oidc

import (
	"context"
	"crypto/sha256"
	"errors"
	"net/http"
	"strings"
	"sync"
	"time"

	gooidc "github.com/coreos/go-oidc/v3/oidc"
	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/fault"
	"github.com/floe/floe/identity"
)

// Via is how a principal of a provider's access token authenticated, for
// logs and the audit trail.
const Via = identity.ViaIdPToken

// Authenticate is the edge's authentication step for an access token of
// the provider (package apikey hands it the bearers shaped as JWTs): the
// token is verified by go-oidc — signature against the provider's keys,
// issuer, audience (Config.Audience) and expiry — and becomes a principal
// of kind Token whose ID is its subject and whose groups are its groups
// claim. A token that does not verify is fault.Unauthenticated with the
// reason (expired, another audience, another issuer, a key the provider
// does not publish); a valid token whose groups give no rights is
// fault.Forbidden (see Rights); a provider that cannot be asked for its
// keys is fault.Unavailable.
func (p *Provider) Authenticate(r *http.Request) (identity.Principal, error) {
	h := strings.TrimSpace(r.Header.Get("Authorization"))
	scheme, raw, ok := strings.Cut(h, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return identity.Principal{}, unauthenticated("send the identity provider's access token as Authorization: Bearer <token>", nil)
	}
	return p.VerifyAccessToken(r.Context(), strings.TrimSpace(raw))
}

// peeked is what a token says of itself before it is verified: only to
// refuse early (another issuer) and to say why a verification failed.
type peeked struct {
	Issuer   string       `json:"iss"`
	Audience jwt.Audience `json:"aud"`
}

// VerifyAccessToken verifies raw as Authenticate does. A token that
// verified is answered from memory (p.verified) until it expires, for at
// most verifiedTTL: an engine sends the same token with every request.
func (p *Provider) VerifyAccessToken(ctx context.Context, raw string) (identity.Principal, error) {
	if p.cfg.Audience == "" {
		return identity.Principal{}, unauthenticated("this floe accepts no identity-provider tokens (floe serve --oidc-audience names the audience they must carry); send an API key", nil)
	}
	sum := sha256.Sum256([]byte(raw))
	if pr, ok := p.verified.get(sum, p.now()); ok {
		return pr, nil
	}
	pr, exp, err := p.verifyAccessToken(ctx, raw)
	if err == nil {
		p.verified.put(sum, pr, exp, p.now())
	}
	return pr, err
}

// verifyAccessToken is VerifyAccessToken without the memory; exp is the
// token's expiry.
func (p *Provider) verifyAccessToken(ctx context.Context, raw string) (identity.Principal, time.Time, error) {
	tok, err := jwt.ParseSigned(raw, signingAlgs)
	if err != nil || len(tok.Headers) != 1 {
		return identity.Principal{}, time.Time{}, unauthenticated("the bearer token is neither a floe API key nor a signed JWT of the identity provider", err)
	}
	var pk peeked
	if err := tok.UnsafeClaimsWithoutVerification(&pk); err != nil {
		return identity.Principal{}, time.Time{}, unauthenticated("the bearer token's claims are not JSON", err)
	}
	if pk.Issuer != p.cfg.Issuer {
		return identity.Principal{}, time.Time{}, unauthenticated("the token was issued by "+printableOrDash(pk.Issuer)+", not by the identity provider this floe trusts ("+p.cfg.Issuer+")", nil)
	}
	if _, err := p.Discover(ctx); err != nil {
		return identity.Principal{}, time.Time{}, err
	}
	// Fetching the keys first surfaces why there are none (a provider
	// down, a key id it does not publish), which go-oidc's error does not
	// carry; the verification below then finds them cached.
	if _, err := p.keys.keysFor(ctx, tok.Headers[0].KeyID); err != nil {
		if errors.Is(err, errUnknownKey) {
			return identity.Principal{}, time.Time{}, unauthenticated("the token is signed with a key the identity provider does not publish", err)
		}
		return identity.Principal{}, time.Time{}, err
	}
	idt, err := p.verifier(p.cfg.Audience).Verify(ctx, raw)
	if err != nil {
		return identity.Principal{}, time.Time{}, p.whyNot(pk, err)
	}
	var claims map[string]any
	if err := idt.Claims(&claims); err != nil {
		return identity.Principal{}, time.Time{}, unauthenticated("the token's claims could not be read", err)
	}
	groups, _, err := groupsFrom(claims, p.cfg.GroupsClaim)
	if err != nil {
		return identity.Principal{}, time.Time{}, unauthenticated(err.Error(), nil)
	}
	name := idt.Subject
	for _, c := range []string{"preferred_username", "client_id", "azp"} {
		if v := stringClaim(claims, c); v != "" && printable(v) {
			name = v
			break
		}
	}
	role := p.cfg.Rights.TokenRole(groups)
	pr := identity.Principal{Kind: identity.Token, ID: idt.Subject, Name: name, Role: role, Groups: groups, Via: Via,
		// The surfaces check a principal's key until grants decide; the
		// token acts as a key of its role on every bucket.
		Key: catalog.APIKey{ID: "idp:" + idt.Subject, Name: "idp:" + name, Role: role}}
	if role == "" && (p.cfg.Granted == nil || !p.cfg.Granted(ctx, pr)) {
		return pr, time.Time{}, &fault.Error{Kind: fault.Forbidden, Field: "groups",
			Message: "the identity provider's token for " + name + " is valid, but " + p.NoRights(groups)}
	}
	return pr, idt.Expiry, nil
}

// whyNot says why go-oidc refused a token whose issuer was right, from
// what the token claimed; the verification decided, this only explains.
func (p *Provider) whyNot(pk peeked, err error) error {
	var expired *gooidc.TokenExpiredError
	switch {
	case errors.As(err, &expired):
		return unauthenticated("the token expired at "+expired.Expiry.UTC().Format(time.RFC3339)+"; ask the identity provider for a new one", err)
	case strings.HasPrefix(err.Error(), "failed to verify signature"), strings.Contains(err.Error(), "malformed jwt"):
		return unauthenticated("the token's signature does not verify against the identity provider's keys", err)
	case !pk.Audience.Contains(p.cfg.Audience):
		return unauthenticated("the token is for audience "+printableOrDash(strings.Join(pk.Audience, ", "))+", not for this floe: ask the identity provider for a token with audience "+p.cfg.Audience, err)
	}
	return unauthenticated("the token did not verify", err)
}

func unauthenticated(msg string, cause error) error {
	return &fault.Error{Kind: fault.Unauthenticated, Field: "credential", Message: msg, Err: cause}
}

// groupList names groups for a sentence.
func groupList(groups []string) string {
	if len(groups) == 0 {
		return "its groups (none)"
	}
	return "its groups (" + strings.Join(groups, ", ") + ")"
}

// printableOrDash keeps a client's claim out of a message when it is long
// or not printable.
func printableOrDash(s string) string {
	if s == "" || len(s) > 200 || !printable(s) {
		return "-"
	}
	return `"` + s + `"`
}

// verifiedTTL bounds how long a verified token is answered from memory: a
// signing key the provider withdraws (its JWKS no longer lists it) stops
// vouching for tokens floe already verified with it within this.
const verifiedTTL = time.Minute

// maxVerified bounds the tokens remembered: an engine reuses one token for
// its lifetime, so this is thousands of engines at once; past it the
// memory starts over and tokens are verified afresh.
const maxVerified = 10_000

// verifiedTokens remembers principals of verified tokens by the token's
// SHA-256, each until its token's expiry or verifiedTTL, whichever is
// first. Refusals are never remembered.
type verifiedTokens struct {
	mu sync.Mutex
	m  map[[sha256.Size]byte]verifiedToken
}

type verifiedToken struct {
	p     identity.Principal
	until time.Time
}

func (v *verifiedTokens) get(sum [sha256.Size]byte, now time.Time) (identity.Principal, bool) {
	v.mu.Lock()
	defer v.mu.Unlock()
	e, ok := v.m[sum]
	if !ok || !now.Before(e.until) {
		return identity.Principal{}, false
	}
	return e.p, true
}

func (v *verifiedTokens) put(sum [sha256.Size]byte, p identity.Principal, exp, now time.Time) {
	until := now.Add(verifiedTTL)
	if exp.Before(until) {
		until = exp
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.m == nil || len(v.m) >= maxVerified {
		v.m = make(map[[sha256.Size]byte]verifiedToken)
	}
	v.m[sum] = verifiedToken{p: p, until: until}
}
