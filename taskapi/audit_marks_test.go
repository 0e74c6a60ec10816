package taskapi

import (
	"testing"

	"github.com/floe/floe/edge"
)

// TestEveryRouteNamesItsOperation: the audit trail records every write and
// refusal under its operation, so no route may go without one.
func TestEveryRouteNamesItsOperation(t *testing.T) {
	s := auditSurface(t)
	if u := s.Unmarked(); len(u) > 0 {
		t.Fatalf("routes without edge.Op: %v", u)
	}
	writes := 0
	for _, r := range s.Routes() {
		if r.Access == edge.Writes {
			writes++
		}
	}
	if writes == 0 {
		t.Fatal("no route is marked as a write")
	}
}

func auditSurface(t *testing.T) *edge.Surface {
	e := newEnv(t, envOpts{})
	return New(Config{Store: e.store, Tasks: e.svc}).(*edge.Surface)
}
