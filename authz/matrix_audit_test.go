package authz_test

// Every refusal of the authorization matrix is in the audit trail.

import (
	"context"
	"strings"
	"testing"

	"github.com/floe/floe/audit"
)

// checkAudited: every refusal is in the trail, once, as refused.
func checkAudited(t *testing.T, trail *audit.Trail, refusals []refusal) {
	t.Helper()
	ctx := context.Background()
	if err := trail.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	recorded := map[string]int{}
	for before := int64(0); ; {
		page, err := trail.Store().Query(ctx, audit.Filter{Outcome: "refused", Before: before, Limit: audit.MaxLimit})
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range page.Entries {
			recorded[e.RequestID]++
		}
		if page.Next == 0 {
			break
		}
		before = page.Next
	}
	missing := 0
	for _, r := range refusals {
		if r.requestID == "" {
			t.Errorf("%s %s %s as %s: the refusal carries no request id", r.surface, r.method, r.path, r.who)
		} else if n := recorded[r.requestID]; n != 1 {
			missing++
			t.Errorf("%s %s %s as %s: %d refused audit entries for request %s, want 1", r.surface, r.method, r.path, r.who, n, r.requestID)
		}
	}
	t.Logf("%d refusals, %d of them not audited once", len(refusals), missing)
}

func brief(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 200 {
		return s[:200] + "…"
	}
	return s
}
