package web

import (
	"testing"

	"github.com/floe/floe/edge"
)

// TestEveryConsoleRouteNamesItsOperation: every page and form names its
// operation for the audit trail, and every form post is a write; the one
// GET that writes is the identity provider's sign-in callback (it starts a
// session, so the trail records each sign-in).
func TestEveryConsoleRouteNamesItsOperation(t *testing.T) {
	e := newEnv(t, Surfaces{})
	sf := e.server.surface
	if u := sf.Unmarked(); len(u) > 0 {
		t.Fatalf("routes without edge.Op: %v", u)
	}
	for _, r := range sf.Routes() {
		writes := len(r.Pattern) > 5 && r.Pattern[:5] == "POST " || r.Pattern == "GET /login/oidc/callback"
		if writes != (r.Access == edge.Writes) {
			t.Errorf("%s (%s): a form post must write and a page must read", r.Pattern, r.Operation)
		}
	}
}
