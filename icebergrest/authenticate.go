package icebergrest

import (
	"net/http"
	"strings"

	"github.com/floe/floe/edge"
	"github.com/floe/floe/fault"
)

// sigV4Scheme starts the Authorization header of a SigV4-signed request.
const sigV4Scheme = "AWS4-HMAC-SHA256"

// authenticator is the Iceberg REST's one authentication step: a request
// signed with SigV4 (Authorization: AWS4-HMAC-SHA256 …, as engines send it
// when configured for AWS S3 Tables) goes to the SigV4 verifier; anything
// else — x-api-key, a Bearer key or access token, or nothing in anonymous
// mode — to the API-key checker.
type authenticator struct {
	sigv4 edge.Authenticator // nil: signed requests are refused
	keys  edge.Authenticator
}

func (c authenticator) Authenticate(r *http.Request) (edge.Principal, error) {
	if !strings.HasPrefix(r.Header.Get("Authorization"), sigV4Scheme) {
		return c.keys.Authenticate(r)
	}
	if c.sigv4 == nil {
		return edge.Principal{}, &fault.Error{Kind: fault.Unauthenticated, Field: "credential",
			Message: "this Iceberg REST does not accept SigV4-signed requests; send the API key as x-api-key: <key> or Authorization: Bearer <key>"}
	}
	p, err := c.sigv4.Authenticate(r)
	if e, ok := fault.As(err); ok && e.Kind == fault.Unauthenticated {
		// A signature that does not verify is a 403, as AWS answers it
		// (the request did carry a credential; it is not one that works).
		return p, &fault.Error{Kind: fault.Forbidden, Field: e.Field, Message: e.Message, Err: e.Err}
	}
	return p, err
}
