package icebergrest

import (
	"errors"
	"net/http"
	"net/url"

	"github.com/floe/floe/apikey"
	"github.com/floe/floe/edge"
)

// maxTokenRequestBytes bounds a token request: a form of a grant type, an
// id, a secret and a scope is a few hundred bytes.
const maxTokenRequestBytes = 16 << 10

// OAuth2 error codes of the spec's OAuthError (RFC 6749 §5.2).
const (
	oauthInvalidRequest       = "invalid_request"
	oauthInvalidClient        = "invalid_client"
	oauthUnsupportedGrantType = "unsupported_grant_type"
)

// issueToken serves POST /v1/oauth/tokens: the OAuth2 client-credentials
// grant, client_id/client_secret = an API key's access key id and secret
// access key, or its id and the key itself (sent in the form or as HTTP
// Basic, as RFC 6749 §2.3.1 allows). The answer
// is a short-lived bearer token with the key's role and bucket scope, which
// every route then accepts in place of the key. It is a public route of
// the edge (the client has no token yet); the key it finds is recorded as
// the request's principal.
func (s *Server) issueToken(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, maxTokenRequestBytes)
	if err := r.ParseForm(); err != nil {
		writeOAuthError(w, http.StatusBadRequest, oauthInvalidRequest, "the body must be a form (application/x-www-form-urlencoded) of at most 16 KiB")
		return
	}
	switch gt := r.PostForm.Get("grant_type"); gt {
	case "client_credentials":
	case "":
		writeOAuthError(w, http.StatusBadRequest, oauthInvalidRequest, "grant_type is required: client_credentials")
		return
	default:
		writeOAuthError(w, http.StatusBadRequest, oauthUnsupportedGrantType, "grant_type "+gt+" is not supported; use client_credentials with an API key's id and secret")
		return
	}
	id, secret := r.PostForm.Get("client_id"), r.PostForm.Get("client_secret")
	if u, p, ok := r.BasicAuth(); ok && id == "" && secret == "" {
		// RFC 6749 §2.3.1: Basic credentials are form-encoded first.
		var err1, err2 error
		id, err1 = url.QueryUnescape(u)
		secret, err2 = url.QueryUnescape(p)
		if err1 != nil || err2 != nil {
			writeOAuthError(w, http.StatusBadRequest, oauthInvalidRequest, "the Basic credentials are not form-encoded")
			return
		}
	}
	if id == "" || secret == "" {
		writeOAuthError(w, http.StatusBadRequest, oauthInvalidRequest, "client_id and client_secret are required: an API key's access key id and secret access key (or its id k_… and the key floe_…), e.g. credential=<id>:<secret> in the client")
		return
	}
	key, tok, ttl, err := s.tokens.IssueKey(r.Context(), id, secret)
	if errors.Is(err, apikey.ErrInvalidClient) {
		writeOAuthError(w, http.StatusUnauthorized, oauthInvalidClient, "client_id and client_secret do not name a live API key (unknown, revoked or expired, or the id is not the key's)")
		return
	}
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	edge.SetPrincipal(r.Context(), edge.FromKey(key, "oauth-client"))
	w.Header().Set("Cache-Control", "no-store") // RFC 6749 §5.1
	writeJSON(w, http.StatusOK, map[string]any{
		"access_token":      tok,
		"token_type":        "bearer",
		"expires_in":        int(ttl.Seconds()),
		"issued_token_type": "urn:ietf:params:oauth:token-type:access_token",
	})
}

// writeOAuthError answers with the spec's OAuthError body.
func writeOAuthError(w http.ResponseWriter, code int, typ, description string) {
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, code, map[string]string{"error": typ, "error_description": description})
}
