package apikey

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/floe/floe/edge"
	"github.com/floe/floe/fault"
)

// Authenticate is the edge's one authentication step for the surfaces that
// take API keys (Lance REST, the task API, the Iceberg REST): the key or
// access token the request carries becomes its Principal; a bearer shaped
// as a JWT goes to the identity provider's check instead, when one is
// configured (Config.IdP). A refused
// credential is fault.Unauthenticated with the sentence that says what to
// send; a catalog that cannot be asked is fault.Unavailable (or a server
// fault), never a refusal.
func (c *Checker) Authenticate(r *http.Request) (edge.Principal, error) {
	if c.idp != nil && r.Header.Get("X-Api-Key") == "" {
		if s, ok := secret(r); ok && IsJWT(s) {
			return c.idp.Authenticate(r)
		}
	}
	key, f := c.Check(r)
	if f == nil {
		return edge.FromKey(key, via(r, key.ID == AnonymousKey.ID && key.Name == AnonymousKey.Name)), nil
	}
	if f.Reason != Failed {
		return edge.Principal{}, &fault.Error{Kind: fault.Unauthenticated, Field: "credential", Message: f.Message}
	}
	if errors.Is(f.Err, fault.Unavailable) {
		return edge.Principal{}, f.Err
	}
	return edge.Principal{}, fmt.Errorf("apikey: checking a credential: %w", f.Err)
}

// via names how the request carried its credential, for the access log
// and the audit trail.
func via(r *http.Request, anonymous bool) string {
	switch {
	case anonymous:
		return "anonymous"
	case r.Header.Get("X-Api-Key") != "":
		return "x-api-key"
	}
	if _, tok, ok := strings.Cut(r.Header.Get("Authorization"), " "); ok && isToken(strings.TrimSpace(tok)) {
		return "oauth-token"
	}
	return "bearer"
}
