package oidc

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"errors"
	"time"

	gooidc "github.com/coreos/go-oidc/v3/oidc"
	"golang.org/x/oauth2"

	"github.com/floe/floe/fault"
)

// Pending is one console sign-in between the redirect to the provider and
// the provider's answer: kept in the browser's session, used once. State
// binds the answer to this browser, Nonce the ID token to this sign-in,
// Verifier (PKCE) the code to whoever started it.
type Pending struct {
	State    string `json:"s"`
	Nonce    string `json:"n"`
	Verifier string `json:"v"`
	Redirect string `json:"r"` // the redirect URL the code was issued for
	Next     string `json:"x"` // the console path to go on to
	Started  int64  `json:"t"` // Unix seconds
}

// PendingTTL is how long a started sign-in may take at the provider (a
// password, a second factor): an answer later than this is refused, and
// Pending kept longer in a session is dropped.
const PendingTTL = 10 * time.Minute

// Expired reports whether pend is older than PendingTTL.
func (p *Provider) Expired(pend Pending) bool {
	return p.now().Sub(time.Unix(pend.Started, 0)) > PendingTTL
}

// Identity is who the provider vouched for at a sign-in.
type Identity struct {
	Issuer, Subject string
	// Name is the name to show and suggest as the floe user name:
	// preferred_username, else email, else the subject.
	Name   string
	Email  string
	Groups []string
}

// Begin starts a sign-in: the provider's authorization URL to send the
// browser to, and the Pending to keep until it comes back to the redirect
// URL (Config.RedirectURL) with next, the console path to go on to.
func (p *Provider) Begin(ctx context.Context, next string) (string, Pending, error) {
	redirectURL := p.cfg.RedirectURL
	if !p.SignIn() {
		return "", Pending{}, &fault.Error{Kind: fault.NotFound, Field: "idp", Message: "sign-in through the identity provider is not configured (floe serve --oidc-client-id)"}
	}
	d, err := p.Discover(ctx)
	if err != nil {
		return "", Pending{}, err
	}
	pend := Pending{State: rand.Text(), Nonce: rand.Text(), Verifier: oauth2.GenerateVerifier(),
		Redirect: redirectURL, Next: next, Started: p.now().Unix()}
	u := p.oauth2Config(d, redirectURL).AuthCodeURL(pend.State, gooidc.Nonce(pend.Nonce), oauth2.S256ChallengeOption(pend.Verifier))
	return u, pend, nil
}

// Finish completes the sign-in pend started, with the code the provider
// answered: the code is exchanged (with the PKCE verifier), the ID token
// verified (signature against the JWKS, issuer, audience = client id,
// expiry) and its nonce compared. Refusals are fault.Unauthenticated with
// a sentence for the person; a provider that does not answer is
// fault.Unavailable.
func (p *Provider) Finish(ctx context.Context, pend Pending, code string) (Identity, error) {
	if code == "" {
		return Identity{}, &fault.Error{Kind: fault.Invalid, Field: "code", Message: "the identity provider's answer carries no code"}
	}
	if p.Expired(pend) {
		return Identity{}, refused("the sign-in took longer than 10 minutes at the identity provider", nil)
	}
	d, err := p.Discover(ctx)
	if err != nil {
		return Identity{}, err
	}
	cctx, cancel := context.WithTimeout(p.clientContext(ctx), idpTimeout)
	defer cancel()
	tok, err := p.oauth2Config(d, pend.Redirect).Exchange(cctx, code, oauth2.VerifierOption(pend.Verifier))
	if err != nil {
		return Identity{}, exchangeError(err)
	}
	raw, _ := tok.Extra("id_token").(string)
	if raw == "" {
		return Identity{}, refused("the identity provider answered without an ID token (is the openid scope allowed for floe's client?)", nil)
	}
	idt, err := p.verifier(p.cfg.ClientID).Verify(cctx, raw)
	if err != nil {
		return Identity{}, refused("the identity provider's ID token did not verify", err)
	}
	if subtle.ConstantTimeCompare([]byte(idt.Nonce), []byte(pend.Nonce)) != 1 {
		return Identity{}, refused("the ID token belongs to another sign-in (its nonce differs)", nil)
	}
	var claims map[string]any
	if err := idt.Claims(&claims); err != nil {
		return Identity{}, refused("the ID token's claims could not be read", err)
	}
	groups, present, err := groupsFrom(claims, p.cfg.GroupsClaim)
	if err != nil {
		return Identity{}, refused(err.Error(), nil)
	}
	if !present && d.UserInfoEndpoint() != "" {
		// Some providers put groups only in userinfo.
		if groups, err = p.userinfoGroups(cctx, d, tok, idt.Subject); err != nil {
			return Identity{}, err
		}
	}
	id := Identity{Issuer: idt.Issuer, Subject: idt.Subject, Email: stringClaim(claims, "email"), Groups: groups}
	for _, c := range []string{"preferred_username", "email"} {
		if id.Name = stringClaim(claims, c); id.Name != "" {
			break
		}
	}
	if id.Name == "" {
		id.Name = idt.Subject
	}
	return id, nil
}

// userinfoGroups reads the groups claim from userinfo, for the subject the
// ID token named.
func (p *Provider) userinfoGroups(ctx context.Context, d *gooidc.Provider, tok *oauth2.Token, subject string) ([]string, error) {
	ui, err := d.UserInfo(ctx, oauth2.StaticTokenSource(tok))
	if err != nil {
		return nil, unavailable("its userinfo request", err)
	}
	if ui.Subject != subject {
		return nil, refused("the identity provider's userinfo names another subject than its ID token", nil)
	}
	var claims map[string]any
	if err := ui.Claims(&claims); err != nil {
		return nil, refused("the identity provider's userinfo could not be read", err)
	}
	groups, _, err := groupsFrom(claims, p.cfg.GroupsClaim)
	if err != nil {
		return nil, refused(err.Error(), nil)
	}
	return groups, nil
}

// exchangeError says why the code exchange failed: a code the provider no
// longer takes (expired, used, or for another verifier) is the person's to
// retry; a refused client is the operator's to fix; anything else is a
// provider that did not answer.
func exchangeError(err error) error {
	var re *oauth2.RetrieveError
	if errors.As(err, &re) {
		switch re.ErrorCode {
		case "invalid_grant":
			return refused("the sign-in code expired or was already used", err)
		case "invalid_client", "unauthorized_client":
			return &fault.Error{Kind: fault.Unavailable, Field: "idp",
				Message: "the identity provider refused floe's client (" + re.ErrorCode + "); an administrator should check --oidc-client-id and FLOE_OIDC_CLIENT_SECRET", Err: err}
		}
		return refused("the identity provider refused the code exchange ("+re.ErrorCode+")", err)
	}
	return unavailable("the code exchange", err)
}

// refused is a sign-in the provider's answer does not support.
func refused(msg string, cause error) error {
	return &fault.Error{Kind: fault.Unauthenticated, Field: "idp", Message: msg, Err: cause}
}
