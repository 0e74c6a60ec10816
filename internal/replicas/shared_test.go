package replicas_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/floe/floe/internal/replicas"
)

// TestCatalogAndSessionsShared: what one replica writes the other reads —
// a bucket created through A's Lance REST is listed by B's, and a console
// session signed in on A is honoured by B (no sticky load balancing).
func TestCatalogAndSessionsShared(t *testing.T) {
	c := replicas.Start(t, replicas.Options{N: 2})
	a, b := c.Replicas[0], c.Replicas[1]

	if got := call(t, c, "POST", a.Lance+"/v1/namespace/shared1/create", `{"mode":"Create"}`); got.status != 200 {
		t.Fatalf("create bucket on A: %d %s", got.status, got.body)
	}
	got := call(t, c, "GET", b.Lance+"/v1/namespace/%24/list", "")
	if got.status != 200 || !strings.Contains(got.body, `"shared1"`) {
		t.Fatalf("list buckets on B: %d %s", got.status, got.body)
	}

	ck := login(t, a)
	for _, tc := range []struct {
		name   string
		cookie bool
		want   int
	}{
		{"session from A on B", true, http.StatusOK},
		{"no session on B", false, http.StatusSeeOther},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest("GET", b.Console+"/buckets", nil)
			if tc.cookie {
				req.AddCookie(ck)
			}
			client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
			r := do(t, client, req)
			if r.status != tc.want {
				t.Fatalf("GET /buckets on B: %d, want %d", r.status, tc.want)
			}
			if tc.cookie && !strings.Contains(r.body, "shared1") {
				t.Fatalf("B's bucket page does not list the bucket made on A")
			}
		})
	}
}
