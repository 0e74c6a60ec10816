package web

import (
	"testing"

	"github.com/floe/floe/edge"
)

// TestEveryConsoleRouteNamesItsOperation: every page and form names its
// operation for the audit trail, and every form post is a write.
func TestEveryConsoleRouteNamesItsOperation(t *testing.T) {
	e := newEnv(t, Surfaces{})
	sf := e.server.surface
	if u := sf.Unmarked(); len(u) > 0 {
		t.Fatalf("routes without edge.Op: %v", u)
	}
	for _, r := range sf.Routes() {
		if post := len(r.Pattern) > 5 && r.Pattern[:5] == "POST "; post != (r.Access == edge.Writes) {
			t.Errorf("%s (%s): a form post must write and a page must read", r.Pattern, r.Operation)
		}
	}
}
