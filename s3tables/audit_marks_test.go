package s3tables

import (
	"testing"

	"github.com/floe/floe/catalog"
)

// TestEveryRouteNamesItsOperation: the audit trail records every write and
// refusal under its operation, so no route may go without one.
func TestEveryRouteNamesItsOperation(t *testing.T) {
	st, err := catalog.Open(t.Context(), catalog.Options{Path: t.TempDir() + "/catalog.db", Warehouse: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	srv := New(Config{Store: st})
	s := srv.surface
	if u := s.Unmarked(); len(u) > 0 {
		t.Fatalf("routes without edge.Op: %v", u)
	}
	for _, r := range s.Routes() {
		if r.Operation != srv.ops[r.Pattern].name {
			t.Errorf("%s is audited as %s, but its model name is %s", r.Pattern, r.Operation, srv.ops[r.Pattern].name)
		}
	}
}
