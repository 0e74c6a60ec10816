package edge

import (
	"github.com/floe/floe/catalog"
)

// PrincipalKind says what sort of caller a Principal is.
type PrincipalKind string

// The kinds of caller.
const (
	// Anonymous: no credential, on a surface whose anonymous mode is on.
	Anonymous PrincipalKind = "anonymous"
	// User: a console user signed in with a session.
	User PrincipalKind = "user"
	// APIKey: an API key (x-api-key, Bearer, or floe's OAuth bearer for it,
	// or its SigV4 access key pair).
	APIKey PrincipalKind = "apikey"
)

// Principal is who made a request, as the one authentication step found
// them: the identity authorization decides on and audit records.
type Principal struct {
	Kind PrincipalKind
	// ID is stable: a user's name, an API key's id.
	ID string
	// Name is for people: a key's label, a user's name.
	Name string
	// Role is the coarse role (admin, readonly, readwrite).
	Role catalog.Role
	// Bucket scopes an API key to one bucket; "" is every bucket.
	Bucket string
	// Via says how the credential came: session, x-api-key, bearer,
	// oauth-token, sigv4, anonymous.
	Via string
	// Key is the API key behind an APIKey principal (its role and scope
	// answer CanRead/CanWrite today).
	Key catalog.APIKey
}

// String is the principal as the access log writes it: "apikey:k1",
// "user:admin", "anonymous", or "-" for a request nobody was found for.
func (p Principal) String() string {
	switch p.Kind {
	case "":
		return "-"
	case Anonymous:
		return "anonymous"
	}
	return string(p.Kind) + ":" + p.ID
}

// FromKey is the principal of an API key (a real key, or the anonymous
// identity of a surface in anonymous mode).
func FromKey(k catalog.APIKey, via string) Principal {
	kind := APIKey
	if via == "anonymous" {
		kind = Anonymous
	}
	return Principal{Kind: kind, ID: k.ID, Name: k.Name, Role: k.Role, Bucket: k.Bucket, Via: via, Key: k}
}
