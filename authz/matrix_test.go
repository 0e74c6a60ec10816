package authz_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"golang.org/x/crypto/bcrypt"

	"github.com/floe/floe/audit"
	"github.com/floe/floe/audit/auditedge"
	"github.com/floe/floe/authz"
	"github.com/floe/floe/catalog"
	"github.com/floe/floe/handlers"
	"github.com/floe/floe/icebergrest"
	"github.com/floe/floe/identity"
	"github.com/floe/floe/internal/dbschema"
	"github.com/floe/floe/lancerest"
	"github.com/floe/floe/persist"
	"github.com/floe/floe/persist/persisttest"
	"github.com/floe/floe/s3tables"
	"github.com/floe/floe/taskapi"
	"github.com/floe/floe/tasks"
	"github.com/floe/floe/web"
)

// The authorization matrix (#22): every route of every surface, asked by
// every kind of principal, is allowed exactly where the principal's grants
// say (by a model written here from the grant rules, not by the
// authorizer) and refused in the protocol's own 401/403 shape everywhere
// else; and every refusal is in the audit trail the surfaces write to
// (once, by request id). The identity provider's rows (an expired IdP
// token, a token for another audience, a group's namespace reader) are
// TestAuthorizationMatrixIdP, on the same world and routes.

// principal is one row of the matrix: its grants (nil for the ones that
// present no valid credential) and how it authenticates.
type principal struct {
	name   string
	grants []grantSpec
	// noCredential: sends nothing; badCredential: sends one floe refuses.
	noCredential, badCredential bool
}

type grantSpec struct {
	priv  identity.Privilege
	place string
}

// Each principal holds the same grants in the Lance bucket and the Iceberg
// bucket, so every surface's routes meet each of them.
func onBoth(priv identity.Privilege, place string) []grantSpec {
	return []grantSpec{{priv, "lnc" + place}, {priv, "ice" + place}}
}

var principals = []principal{
	{name: "anonymous", noCredential: true},
	{name: "wrong token", badCredential: true},
	{name: "reader of another table", grants: onBoth(identity.Read, "/ns/other")},
	{name: "namespace reader", grants: onBoth(identity.Read, "/ns")},
	{name: "namespace writer", grants: onBoth(identity.Write, "/ns")},
	{name: "bucket maintainer", grants: onBoth(identity.Maintain, "")},
	{name: "manager", grants: onBoth(identity.Manage, "")},
}

// need is what a route needs: priv on res; see (priv "") needs only to see
// res (a grant on it, around it or inside it); anyone needs only to be
// authenticated.
type need struct {
	priv   identity.Privilege
	res    string
	anyone bool
}

func on(priv identity.Privilege, res string) need { return need{priv: priv, res: res} }
func seeing(res string) need                      { return need{res: res} }

var authenticated = need{anyone: true}

// allows is the model: what the grant rules say, from the vocabulary's
// Contains and Implies alone.
func (p principal) allows(n need) bool {
	if p.noCredential || p.badCredential {
		return false
	}
	if n.anyone {
		return true
	}
	want := place(n.res)
	for _, g := range p.grants {
		at := place(g.place)
		if n.priv == "" {
			if at.Contains(want) || want.Contains(at) {
				return true
			}
			continue
		}
		if at.Contains(want) && g.priv.Implies(n.priv) {
			return true
		}
	}
	return false
}

func place(s string) identity.Resource {
	b, ns, t, err := catalog.ParsePlace(s)
	if err != nil {
		panic(err)
	}
	return identity.Resource{Bucket: b, Namespace: ns, Table: t}
}

// route is one request; all needs must hold (a rename needs manage on the
// table and on where it goes).
type route struct {
	method, path, body string
	needs              []need
}

func r(method, path, body string, needs ...need) route {
	return route{method: method, path: path, body: body, needs: needs}
}

func (p principal) allowsAll(rt route) bool {
	for _, n := range rt.needs {
		if !p.allows(n) {
			return false
		}
	}
	return true
}

type world struct {
	db        *persist.DB
	trail     *audit.Trail // every surface of the world records into it
	tasksSvc  *tasks.Service
	store     *catalog.Store
	az        *authz.Authorizer
	lance     http.Handler
	tasks     http.Handler
	iceberg   http.Handler
	s3        http.Handler
	console   *httptest.Server
	keys      map[string]catalog.APIKey // principal name → its key
	secrets   map[string]string
	consoleOf map[string]*http.Client
}

const (
	s3Region  = "eu-west-3"
	s3Account = "123456789012"
	password  = "matrix-password-1"
)

func newWorld(t *testing.T) *world {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	db := persisttest.OpenAt(t, filepath.Join(dir, "catalog.db"), dbschema.All()...)
	st, err := catalog.New(db, catalog.Options{Warehouse: filepath.Join(dir, "warehouse"), BcryptCost: bcrypt.MinCost,
		Region: s3Region, Account: s3Account})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	w := &world{store: st, az: authz.New(st), keys: map[string]catalog.APIKey{}, secrets: map[string]string{}, consoleOf: map[string]*http.Client{}}
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	w.trail = audit.New(audit.Config{Store: audit.NewStore(db)})
	tctx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { _ = w.trail.Run(tctx); close(done) }()
	t.Cleanup(func() { stop(); <-done })
	aud := auditedge.New(w.trail, false)
	w.lance = lancerest.New(lancerest.Config{Store: st, Logger: quiet, Authz: w.az, Auditor: aud}).Handler()
	ts, err := tasks.New(db, st, fakeRunner{}, quiet)
	if err != nil {
		t.Fatal(err)
	}
	w.db, w.tasksSvc = db, ts
	w.tasks = taskapi.New(taskapi.Config{Store: st, Tasks: ts, Logger: quiet, Authz: w.az, Auditor: aud})
	ice := icebergrest.New(icebergrest.Config{Store: st, Logger: quiet, Authz: w.az, Auditor: aud})
	t.Cleanup(ice.Close)
	w.iceberg = ice.Handler()
	w.s3 = s3tables.New(s3tables.Config{Store: st, Logger: quiet, Region: s3Region, Account: s3Account, Authz: w.az, Auditor: aud}).Handler()
	console, err := web.New(web.Config{DB: db, Store: st, Logger: quiet, Authz: w.az, Tasks: ts, Auditor: aud, Audit: w.trail.Store(),
		Surfaces: handlers.Surfaces{Lance: "127.0.0.1:1", Iceberg: "127.0.0.1:2", S3Tables: "127.0.0.1:3"}})
	if err != nil {
		t.Fatal(err)
	}
	w.console = httptest.NewServer(console.Handler())
	t.Cleanup(w.console.Close)

	// The world: a Lance and an Iceberg bucket, each with tables t, other
	// and doomed in namespace ns; a bucket nobody here holds anything in.
	_, adminSecret, err := st.CreateAPIKey(ctx, "admin", catalog.RoleReadWrite, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range []struct {
		name string
		f    catalog.Format
	}{{"lnc", catalog.FormatLance}, {"ice", catalog.FormatIceberg}, {"elsewhere", catalog.FormatLance}} {
		if _, err := st.CreateBucket(ctx, catalog.CreateBucketInput{Name: b.name, Format: b.f}); err != nil {
			t.Fatal(err)
		}
		if _, err := st.CreateNamespace(ctx, b.name, []string{"ns"}, nil); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"t", "other", "doomed"} {
		if _, _, err := st.CreateTable(ctx, catalog.CreateTableInput{TableRef: catalog.TableRef{Bucket: "lnc", Namespace: []string{"ns"}, Name: name}, Format: catalog.FormatLance}); err != nil {
			t.Fatal(err)
		}
		body := `{"name":"` + name + `","schema":{"type":"struct","schema-id":0,"fields":[{"id":1,"name":"id","type":"long","required":false}]}}`
		req := httptest.NewRequest("POST", "/v1/ice/namespaces/ns/tables", strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+adminSecret)
		rec := httptest.NewRecorder()
		w.iceberg.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			t.Fatalf("create Iceberg table %s: %d %s", name, rec.Code, rec.Body)
		}
	}
	for _, p := range principals {
		if p.noCredential || p.badCredential {
			continue
		}
		k, secret, err := st.CreateAPIKey(ctx, p.name, catalog.RoleNone, "", 0)
		if err != nil {
			t.Fatal(err)
		}
		w.keys[p.name], w.secrets[p.name] = k, secret
		user := strings.ReplaceAll(p.name, " ", "-")
		if _, err := st.CreateUser(ctx, user, password, catalog.RoleReadonly); err != nil {
			t.Fatal(err)
		}
		// The user's role grant goes: only the matrix's grants decide.
		if err := st.RemoveGrant(ctx, catalog.Grant{Grantee: catalog.Grantee{Kind: "user", ID: user}, Privilege: "read"}); err != nil {
			t.Fatal(err)
		}
		for _, g := range p.grants {
			b, ns, tb, _ := catalog.ParsePlace(g.place)
			for _, who := range []catalog.Grantee{{Kind: "apikey", ID: k.ID}, {Kind: "user", ID: user}} {
				if _, _, err := st.AddGrant(ctx, catalog.Grant{Grantee: who, Bucket: b, Namespace: ns, Table: tb, Privilege: string(g.priv)}); err != nil {
					t.Fatal(err)
				}
			}
		}
		w.consoleOf[p.name] = w.signIn(t, user)
	}
	return w
}

func (w *world) signIn(t *testing.T, user string) *http.Client {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := c.PostForm(w.console.URL+"/login", url.Values{"username": {user}, "password": {password}})
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("sign in %s: %d", user, res.StatusCode)
	}
	return c
}

type fakeRunner struct{}

func (fakeRunner) SubmitJob(context.Context, string, string, map[string]string) (string, error) {
	return "job-1", nil
}

// answer is what a surface said.
type answer struct {
	status int
	header http.Header
	body   string
}

// refusal checks an answer is the surface's refusal: unauthenticated
// (no or a bad credential) or forbidden, in its protocol's shape.
type surface struct {
	name   string
	routes []route
	do     func(t *testing.T, w *world, p principal, rt route) answer
	// refused reports whether a is this protocol's refusal of p.
	refused func(p principal, a answer) bool
}

func jsonField(body, field string) any {
	var m map[string]any
	if json.Unmarshal([]byte(body), &m) != nil {
		return nil
	}
	return m[field]
}

// lanceRefused: 401 code 16 without a valid credential, 403 code 15 else.
func lanceRefused(p principal, a answer) bool {
	if p.noCredential || p.badCredential {
		return a.status == http.StatusUnauthorized && jsonField(a.body, "code") == float64(16)
	}
	return a.status == http.StatusForbidden && jsonField(a.body, "code") == float64(15)
}

func icebergRefused(p principal, a answer) bool {
	if a.body == "" { // HEAD: the status is the whole answer
		return a.status == http.StatusUnauthorized && (p.noCredential || p.badCredential) ||
			a.status == http.StatusForbidden && !p.noCredential && !p.badCredential
	}
	var e struct {
		Error struct {
			Type string `json:"type"`
			Code int    `json:"code"`
		} `json:"error"`
	}
	if json.Unmarshal([]byte(a.body), &e) != nil {
		return false
	}
	if p.noCredential || p.badCredential {
		return a.status == http.StatusUnauthorized && e.Error.Type == "NotAuthorizedException" && e.Error.Code == 401
	}
	return a.status == http.StatusForbidden && e.Error.Type == "ForbiddenException" && e.Error.Code == 403
}

func s3Refused(p principal, a answer) bool {
	typ := a.header.Get("x-amzn-errortype")
	if p.noCredential || p.badCredential {
		return a.status == http.StatusForbidden && typ == "ForbiddenException"
	}
	return a.status == http.StatusForbidden && (typ == "AccessDeniedException" || typ == "ForbiddenException")
}

func consoleRefused(p principal, a answer) bool {
	if p.noCredential || p.badCredential {
		return a.status == http.StatusSeeOther && strings.HasPrefix(a.header.Get("Location"), "/login")
	}
	return a.status == http.StatusForbidden && strings.Contains(a.body, `data-testid="error-page"`)
}

func serve(h http.Handler, req *http.Request) answer {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return answer{status: rec.Code, header: rec.Header(), body: rec.Body.String()}
}

// withKey sends the principal's API key (or a wrong one, or none).
func withKey(w *world, p principal, req *http.Request) {
	switch {
	case p.badCredential:
		req.Header.Set("x-api-key", "floe_0000000000000000000000000000000000000000")
	case !p.noCredential:
		req.Header.Set("x-api-key", w.secrets[p.name])
	}
}

func bodyOf(s string) io.Reader {
	if s == "" {
		return http.NoBody
	}
	return strings.NewReader(s)
}

func restDo(h func(*world) http.Handler, host string) func(*testing.T, *world, principal, route) answer {
	return func(t *testing.T, w *world, p principal, rt route) answer {
		req := httptest.NewRequest(rt.method, rt.path, bodyOf(rt.body))
		if host != "" {
			req.Host = host
		}
		withKey(w, p, req)
		return serve(h(w), req)
	}
}

func s3Do(t *testing.T, w *world, p principal, rt route) answer {
	req := httptest.NewRequest(rt.method, rt.path, bodyOf(rt.body))
	req.Host = "s3tables.test"
	if !p.noCredential {
		k := w.keys[p.name]
		if p.badCredential {
			k = catalog.APIKey{AccessKeyID: "FLOEAAAAAAAAAAAAAAAA", SecretAccessKey: "wrong-wrong-wrong-wrong-wrong-wrong-wron"}
		}
		sum := sha256.Sum256([]byte(rt.body))
		req.Header.Set("X-Amz-Content-Sha256", hex.EncodeToString(sum[:]))
		if err := v4.NewSigner().SignHTTP(context.Background(), aws.Credentials{AccessKeyID: k.AccessKeyID, SecretAccessKey: k.SecretAccessKey},
			req, hex.EncodeToString(sum[:]), "s3tables", s3Region, time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	return serve(w.s3, req)
}

func consoleDo(t *testing.T, w *world, p principal, rt route) answer {
	var c *http.Client
	switch {
	case p.noCredential:
		c = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	case p.badCredential:
		jar, _ := cookiejar.New(nil)
		u, _ := url.Parse(w.console.URL)
		jar.SetCookies(u, []*http.Cookie{{Name: "floe_session", Value: "not-a-session", Path: "/"}})
		c = &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	default:
		c = w.consoleOf[p.name]
	}
	req, err := http.NewRequest(rt.method, w.console.URL+rt.path, bodyOf(rt.body))
	if err != nil {
		t.Fatal(err)
	}
	if rt.method == "POST" {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	res, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return answer{status: res.StatusCode, header: res.Header, body: string(b)}
}

func TestAuthorizationMatrix(t *testing.T) {
	w := newWorld(t)
	var refusals []refusal
	for _, s := range surfaces(w) {
		t.Run(s.name, func(t *testing.T) {
			for _, rt := range s.routes {
				for _, p := range principals {
					a := s.do(t, w, p, rt)
					allowed := p.allowsAll(rt)
					switch refused := s.refused(p, a); {
					case allowed && (refused || a.status == http.StatusUnauthorized || a.status == http.StatusForbidden):
						t.Errorf("%s %s as %s: refused (%d %s), but its grants allow it", rt.method, rt.path, p.name, a.status, brief(a.body))
					case !allowed && !refused:
						t.Errorf("%s %s as %s: answered %d %s, want the protocol's refusal", rt.method, rt.path, p.name, a.status, brief(a.body))
					case a.status >= 500:
						t.Errorf("%s %s as %s: %d %s", rt.method, rt.path, p.name, a.status, brief(a.body))
					case !allowed:
						refusals = append(refusals, refusal{s.name, rt.method, rt.path, p.name, a.header.Get("X-Request-Id")})
					}
				}
			}
		})
	}
	checkAudited(t, w.trail, refusals)
}

// refusal is one answer of the matrix that refused, by its request id.
type refusal struct{ surface, method, path, who, requestID string }
