package handlers

import (
	"strings"
	"testing"

	"github.com/floe/floe/audit"
	"github.com/floe/floe/views"
)

// FuzzActivityFilter: whatever a URL's query holds, the Activity page's
// filter either names what is wrong or is a filter within its bounds —
// never a panic, never a page larger than the page size.
func FuzzActivityFilter(f *testing.F) {
	for _, s := range [][6]string{
		{"user:admin", "lake/raw/orders", "refused", "2026-12-01T09:30", "2026-12-02T00:00", "12"},
		{"", "*", "", "", "", ""},
		{"apikey:k1", "a//b", "ok", "2026-12-01T09:30:00Z", "x", "-1"},
		{strings.Repeat("p", 400), "a/b/c/d", "maybe", "24h", "", "99999999999999999999"},
	} {
		f.Add(s[0], s[1], s[2], s[3], s[4], s[5])
	}
	f.Fuzz(func(t *testing.T, principal, resource, outcome, since, until, before string) {
		v := views.ActivityView{Principal: principal, Resource: resource, Outcome: outcome, Since: since, Until: until}
		flt, msg := activityFilter(v, before)
		if msg != "" {
			return
		}
		if flt.Limit != activityPageSize || len(flt.Principal) > maxActivityFilter || flt.Before < 0 {
			t.Fatalf("filter out of bounds: %+v", flt)
		}
		switch flt.Outcome {
		case "", audit.OutcomeOK, audit.OutcomeFailed, audit.OutcomeRefused:
		default:
			t.Fatalf("outcome %q passed", flt.Outcome)
		}
		if flt.Namespace != "" && flt.Bucket == "" || flt.Table != "" && flt.Namespace == "" {
			t.Fatalf("a resource without its parent: %+v", flt)
		}
	})
}
