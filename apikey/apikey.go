// Package apikey is the one API-key check of floe's REST surfaces (Lance
// Namespace REST, the Lance task API, the Iceberg REST): one extraction
// (x-api-key or Authorization: Bearer), one verification cache, one
// anonymous rule. Each surface renders a refusal in its own error body.
package apikey

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/fault"
	"github.com/floe/floe/identity"
)

// AnonymousKey is the identity of a request without a key when anonymous
// mode is on: read and write on every bucket.
var AnonymousKey = catalog.APIKey{ID: "anonymous", Name: "anonymous", Role: catalog.RoleReadWrite}

// Reason says why a request was refused.
type Reason int

const (
	// Missing: no key was sent and anonymous mode is off.
	Missing Reason = iota + 1
	// Malformed: an Authorization header that is not "Bearer <key>".
	Malformed
	// Unknown: the key is unknown, revoked or expired. Anonymous mode never
	// lets such a key through: a client that sends a key means to use it.
	Unknown
	// Failed: the catalog could not be asked (a server fault, 500).
	Failed
)

// Refusal is why a request gets no key. Message is a sentence for the
// client (never the cause of a server fault); Err is that cause, for the log.
type Refusal struct {
	Reason  Reason
	Message string
	Err     error
}

// Status is the HTTP status of the refusal: 401, or 500 for Failed.
func (f *Refusal) Status() int {
	if f.Reason == Failed {
		return http.StatusInternalServerError
	}
	return http.StatusUnauthorized
}

// Config configures a Checker.
type Config struct {
	Keys Keys
	// Anonymous lets requests without a key through as AnonymousKey.
	Anonymous bool
	// Now is the cache's clock; nil means time.Now (tests share one clock
	// with the catalog).
	Now func() time.Time
	// Tokens, when set, lets access tokens it issued stand in for keys.
	Tokens *Tokens
	// IdP, when set, authenticates the bearers shaped as JWTs: access
	// tokens of the organization's identity provider (package oidc). The
	// shape decides (see IsJWT), never a failed try of the other check.
	IdP IdP
}

// IdP verifies an identity provider's access token.
type IdP interface {
	Authenticate(r *http.Request) (identity.Principal, error)
}

// Checker verifies the key of a request. It is safe for concurrent use.
type Checker struct {
	v         *verifier
	anonymous bool
	tokens    *Tokens
	idp       IdP
}

// New builds a Checker.
func New(cfg Config) *Checker {
	v := newVerifier(cfg.Keys, CacheTTL, cfg.Now)
	return &Checker{v: v, anonymous: cfg.Anonymous, tokens: cfg.Tokens, idp: cfg.IdP}
}

// secret extracts the key a request sends; ok is false for a malformed
// Authorization header.
func secret(r *http.Request) (s string, ok bool) {
	if s = strings.TrimSpace(r.Header.Get("X-Api-Key")); s != "" {
		return s, true
	}
	h := strings.TrimSpace(r.Header.Get("Authorization"))
	if h == "" {
		return "", true
	}
	scheme, tok, found := strings.Cut(h, " ")
	tok = strings.TrimSpace(tok)
	if !found || !strings.EqualFold(scheme, "Bearer") || tok == "" {
		return "", false
	}
	return tok, true
}

// Check returns the key a request authenticates with, or why it does not.
func (c *Checker) Check(r *http.Request) (catalog.APIKey, *Refusal) {
	s, ok := secret(r)
	switch {
	case !ok:
		return catalog.APIKey{}, &Refusal{Reason: Malformed,
			Message: "the Authorization header is not a Bearer token; send the API key as x-api-key: <key> or Authorization: Bearer <key>"}
	case s == "" && c.anonymous:
		return AnonymousKey, nil
	case s == "":
		return catalog.APIKey{}, &Refusal{Reason: Missing,
			Message: "an API key is required: send it as x-api-key: <key> or Authorization: Bearer <key>; create one with `floe token create` or on the console's API keys page"}
	}
	if c.tokens != nil && isToken(s) {
		key, err := c.tokens.verify(r.Context(), s)
		switch {
		case err == nil:
			return key, nil
		case errors.Is(err, errUnknownToken):
			return catalog.APIKey{}, &Refusal{Reason: Unknown,
				Message: "the access token is unknown or expired, or its API key was revoked; ask /v1/oauth/tokens for a new one"}
		}
		return catalog.APIKey{}, &Refusal{Reason: Failed, Message: "the access token could not be checked; the server log has the cause", Err: err}
	}
	key, err := c.v.verify(r.Context(), s)
	switch {
	case err == nil:
		return key, nil
	case errors.Is(err, catalog.ErrKeyExpired):
		return catalog.APIKey{}, &Refusal{Reason: Unknown, Message: fault.Message(err, "the API key expired; create a new one")}
	case errors.Is(err, fault.NotFound), errors.Is(err, fault.Invalid):
		return catalog.APIKey{}, &Refusal{Reason: Unknown,
			Message: "the API key is unknown, revoked or expired; create a new one with `floe token create` or on the console's API keys page"}
	}
	return catalog.APIKey{}, &Refusal{Reason: Failed, Message: "the API key could not be checked; the server log has the cause", Err: err}
}

type ctxKey struct{}

// KeyFrom returns the key Middleware put in the request's context.
func KeyFrom(ctx context.Context) (catalog.APIKey, bool) {
	k, ok := ctx.Value(ctxKey{}).(catalog.APIKey)
	return k, ok
}

// Middleware checks every request before next sees it and puts the key in
// its context (read it with KeyFrom). A refused request is answered by
// refuse, in the surface's own error body.
func (c *Checker) Middleware(refuse func(http.ResponseWriter, *http.Request, *Refusal), next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key, f := c.Check(r)
		if f != nil {
			refuse(w, r, f)
			return
		}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), ctxKey{}, key)))
	})
}
