package authz_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/floe/floe/audit/auditedge"
	"github.com/floe/floe/catalog"
	"github.com/floe/floe/icebergrest"
	"github.com/floe/floe/identity"
	"github.com/floe/floe/internal/idptest"
	"github.com/floe/floe/lancerest"
	"github.com/floe/floe/oidc"
	"github.com/floe/floe/taskapi"
)

// The identity provider's rows of the matrix: bearer tokens a real ORY
// Hydra issued by the client-credentials flow, over the three surfaces
// that accept them (Lance REST, its task API, Iceberg REST), with the
// same routes and the same grant model as TestAuthorizationMatrix. The
// surfaces here write to the world's audit trail (on the matrix's
// database), and every refusal they answered must be in it, by request id.

// idpRow is a matrix principal that authenticates with a Hydra token.
type idpRow struct {
	principal
	token string
	// late checks the token on a clock past its expiry.
	late bool
}

const idpAudience = "floe"

func TestAuthorizationMatrixIdP(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	idp := idptest.Start(t)
	// analysts maps to no role (no admin or read-only group below): what
	// its members may do is its grants, here read on ns of both buckets.
	idp.ServiceClient(t, idptest.Service{ID: "etl-analysts", Secret: "etl-analysts-secret", Audiences: []string{idpAudience, "another-api"}, Groups: []string{"analysts"}})
	for _, g := range onBoth(read, "/ns") {
		b, ns, _, _ := catalog.ParsePlace(g.place)
		if _, _, err := w.store.AddGrant(ctx, catalog.Grant{Grantee: catalog.Grantee{Kind: catalog.GranteeGroup, ID: "analysts"}, Bucket: b, Namespace: ns, Privilege: string(g.priv)}); err != nil {
			t.Fatal(err)
		}
	}
	rows := []idpRow{
		// A token Hydra issued, checked on a clock two hours on (Hydra's
		// tokens live one): what floe sees of a token held past its expiry.
		{principal: principal{name: "expired IdP token", badCredential: true}, token: idp.ClientCredentials(t, "etl-analysts", "etl-analysts-secret", idpAudience), late: true},
		{principal: principal{name: "IdP token for another audience", badCredential: true}, token: idp.ClientCredentials(t, "etl-analysts", "etl-analysts-secret", "another-api")},
		{principal: principal{name: "IdP namespace reader (group analysts)", grants: onBoth(read, "/ns")}, token: idp.ClientCredentials(t, "etl-analysts", "etl-analysts-secret", idpAudience)},
	}

	var skew atomic.Int64
	prov, err := oidc.New(oidc.Config{Issuer: idp.Issuer, Audience: idpAudience, Granted: granted(w),
		Now: func() time.Time { return time.Now().Add(time.Duration(skew.Load())) }})
	if err != nil {
		t.Fatal(err)
	}
	aud := auditedge.New(w.trail, false)
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	lance := lancerest.New(lancerest.Config{Store: w.store, Logger: quiet, Authz: w.az, IdP: prov, Auditor: aud}).Handler()
	tasksH := taskapi.New(taskapi.Config{Store: w.store, Tasks: w.tasksSvc, Logger: quiet, Authz: w.az, IdP: prov, Auditor: aud})
	ice := icebergrest.New(icebergrest.Config{Store: w.store, Logger: quiet, Authz: w.az, IdP: prov, Auditor: aud})
	t.Cleanup(ice.Close)
	iceH := ice.Handler()

	var refusals []refusal
	allowedN := 0
	for _, s := range []struct {
		name    string
		routes  []route
		h       http.Handler
		host    string
		refused func(principal, answer) bool
	}{
		{"lance", lanceRoutes(), lance, "", lanceRefused},
		{"taskapi", taskRoutes(), tasksH, "lnc.localhost", lanceRefused},
		{"iceberg", icebergRoutes(), iceH, "", icebergRefused},
	} {
		t.Run(s.name, func(t *testing.T) {
			for _, rt := range s.routes {
				for _, p := range rows {
					req := httptest.NewRequest(rt.method, rt.path, bodyOf(rt.body))
					if s.host != "" {
						req.Host = s.host
					}
					req.Header.Set("Authorization", "Bearer "+p.token)
					if p.late {
						skew.Store(int64(2 * time.Hour))
					}
					a := serve(s.h, req)
					skew.Store(0)
					allowed := p.allowsAll(rt)
					switch refused := s.refused(p.principal, a); {
					case allowed && (refused || a.status == http.StatusUnauthorized || a.status == http.StatusForbidden):
						t.Errorf("%s %s as %s: refused (%d %s), but its grants allow it", rt.method, rt.path, p.name, a.status, brief(a.body))
					case !allowed && !refused:
						t.Errorf("%s %s as %s: answered %d %s, want the protocol's refusal", rt.method, rt.path, p.name, a.status, brief(a.body))
					case a.status >= 500:
						t.Errorf("%s %s as %s: %d %s", rt.method, rt.path, p.name, a.status, brief(a.body))
					case allowed:
						allowedN++
					default:
						refusals = append(refusals, refusal{s.name, rt.method, rt.path, p.name, a.header.Get("X-Request-Id")})
					}
				}
			}
		})
	}

	if len(refusals) == 0 || allowedN == 0 {
		t.Fatalf("%d refused, %d allowed: the rows are not what they say", len(refusals), allowedN)
	}
	t.Logf("%d allowed", allowedN)
	checkAudited(t, w.trail, refusals)
}

// granted is floe serve's oidc.Config.Granted, over the matrix's authorizer.
func granted(w *world) func(context.Context, identity.Principal) bool {
	return func(ctx context.Context, p identity.Principal) bool {
		r, err := w.az.Rights(ctx, p)
		return err == nil && r.Any()
	}
}
