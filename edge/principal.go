package edge

import "github.com/floe/floe/identity"

// Principal is who made a request (identity.Principal; the edge finds it,
// services take it without importing the HTTP layer).
type Principal = identity.Principal

// PrincipalKind says what sort of caller a Principal is.
type PrincipalKind = identity.Kind

// The kinds of caller, as the edge's surfaces name them.
const (
	Anonymous = identity.Anonymous
	User      = identity.User
	APIKey    = identity.APIKey
)

// FromKey is the principal of an API key (identity.FromKey).
var FromKey = identity.FromKey
