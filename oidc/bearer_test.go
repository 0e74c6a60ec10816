package oidc

import (
	"context"
	"encoding/base64"
	"errors"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/fault"
	"github.com/floe/floe/identity"
	"github.com/floe/floe/internal/idptest"
)

// countingTransport counts requests per path, so a test can tell how often
// floe asked the provider for its keys.
type countingTransport struct {
	next  http.RoundTripper
	jwks  atomic.Int64
	total atomic.Int64
}

func (c *countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	c.total.Add(1)
	if strings.HasSuffix(r.URL.Path, "/jwks.json") {
		c.jwks.Add(1)
	}
	return c.next.RoundTrip(r)
}

func newBearer(t *testing.T, idp *idptest.Provider, now func() time.Time) (*Provider, *countingTransport) {
	t.Helper()
	ct := &countingTransport{next: cappedTransport{http.DefaultTransport}}
	p, err := New(Config{Issuer: idp.Issuer, Audience: "floe", Rights: Rights{AdminGroup: "platform", ReadonlyGroup: "analysts"},
		HTTPClient: &http.Client{Transport: ct, Timeout: idpTimeout}, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	return p, ct
}

// TestAccessTokens verifies the real provider's client-credentials tokens:
// the principal a good one becomes, and each refusal with its kind.
func TestAccessTokens(t *testing.T) {
	idp := idptest.Start(t)
	idp.ServiceClient(t, idptest.Service{ID: "engine", Secret: "engine-secret-1", Audiences: []string{"floe", "other"}, Groups: []string{"platform", "etl"}})
	idp.ServiceClient(t, idptest.Service{ID: "reader", Secret: "reader-secret-1", Audiences: []string{"floe"}, Groups: []string{"analysts"}})
	idp.ServiceClient(t, idptest.Service{ID: "stranger", Secret: "stranger-secret", Audiences: []string{"floe"}, Groups: []string{"marketing"}})
	other := idptest.Start(t)
	other.ServiceClient(t, idptest.Service{ID: "engine", Secret: "engine-secret-1", Audiences: []string{"floe"}, Groups: []string{"platform"}})

	var skew atomic.Int64 // how far the verifier's clock runs ahead
	p, _ := newBearer(t, idp, func() time.Time { return time.Now().Add(time.Duration(skew.Load())) })
	ctx := context.Background()

	good := idp.ClientCredentials(t, "engine", "engine-secret-1", "floe")
	pr, err := p.VerifyAccessToken(ctx, good)
	if err != nil {
		t.Fatalf("a good token: %v", err)
	}
	want := identity.Principal{Kind: identity.Token, ID: "engine", Name: "engine", Role: catalog.RoleReadWrite, Groups: []string{"platform", "etl"}, Via: Via}
	if pr.Kind != want.Kind || pr.ID != want.ID || pr.Name != want.Name || pr.Role != want.Role || pr.Via != want.Via || strings.Join(pr.Groups, ",") != "platform,etl" {
		t.Fatalf("principal = %+v, want %+v", pr, want)
	}
	if !pr.Key.CanWrite("any-bucket") || pr.Key.ID != "idp:engine" {
		t.Fatalf("the token's key %+v does not act as a readwrite key on every bucket", pr.Key)
	}
	if pr, err := p.VerifyAccessToken(ctx, idp.ClientCredentials(t, "reader", "reader-secret-1", "floe")); err != nil || pr.Role != catalog.RoleReadonly || pr.Key.CanWrite("b") || !pr.Key.CanRead("b") {
		t.Fatalf("a reader's token: %+v, %v", pr, err)
	}

	tampered := func(tok string) string {
		parts := strings.Split(tok, ".")
		payload, _ := base64.RawURLEncoding.DecodeString(parts[1])
		payload = []byte(strings.Replace(string(payload), `"etl"`, `"ETL"`, 1))
		parts[1] = base64.RawURLEncoding.EncodeToString(payload)
		return strings.Join(parts, ".")
	}
	none := base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"none","typ":"JWT"}`)) + "." +
		base64.RawURLEncoding.EncodeToString([]byte(`{"iss":"`+idp.Issuer+`","aud":["floe"],"sub":"engine","exp":4102444800,"groups":["platform"]}`)) + "."
	cases := []struct {
		name  string
		token func() string
		skew  time.Duration
		kind  fault.Kind
		says  string
	}{
		{"another audience", func() string { return idp.ClientCredentials(t, "engine", "engine-secret-1", "other") }, 0, fault.Unauthenticated, "audience"},
		{"another issuer", func() string { return other.ClientCredentials(t, "engine", "engine-secret-1", "floe") }, 0, fault.Unauthenticated, "issued by"},
		{"expired", func() string { return good }, 2 * time.Hour, fault.Unauthenticated, "expired"},
		{"altered claims", func() string { return tampered(good) }, 0, fault.Unauthenticated, "signature"},
		{"alg none", func() string { return none }, 0, fault.Unauthenticated, "signed JWT"},
		{"not a JWT", func() string { return "abc.def.ghi" }, 0, fault.Unauthenticated, "signed JWT"},
		{"groups without rights", func() string { return idp.ClientCredentials(t, "stranger", "stranger-secret", "floe") }, 0, fault.Forbidden, "marketing"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tok := c.token()
			skew.Store(int64(c.skew))
			defer skew.Store(0)
			_, err := p.VerifyAccessToken(ctx, tok)
			e, ok := fault.As(err)
			if !ok || e.Kind != c.kind || !strings.Contains(e.Message, c.says) {
				t.Fatalf("error = %v, want %s saying %q", err, c.kind, c.says)
			}
		})
	}
	t.Run("the expired token verifies again on a clock before its expiry", func(t *testing.T) {
		// Proves the expired case failed for its expiry alone.
		if _, err := p.VerifyAccessToken(ctx, good); err != nil {
			t.Fatal(err)
		}
	})
}

// TestUnknownKeyIDsBoundFetches: tokens naming key ids the provider does
// not publish make floe fetch its keys at most once per refetchEvery, not
// once per request; a good token still verifies meanwhile.
func TestUnknownKeyIDsBoundFetches(t *testing.T) {
	idp := idptest.Start(t)
	idp.ServiceClient(t, idptest.Service{ID: "engine", Secret: "engine-secret-1", Audiences: []string{"floe"}, Groups: []string{"platform"}})
	now := time.Now()
	var clock atomic.Int64
	clock.Store(now.UnixNano())
	p, ct := newBearer(t, idp, func() time.Time { return time.Unix(0, clock.Load()) })
	ctx := context.Background()
	good := idp.ClientCredentials(t, "engine", "engine-secret-1", "floe")
	parts := strings.Split(good, ".")
	header, _ := base64.RawURLEncoding.DecodeString(parts[0])
	forged := func(i int) string {
		h := strings.Replace(string(header), `"kid":"`, `"kid":"made-up-`+string(rune('a'+i))+`-`, 1)
		return base64.RawURLEncoding.EncodeToString([]byte(h)) + "." + parts[1] + "." + parts[2]
	}
	for i := range 10 {
		if _, err := p.VerifyAccessToken(ctx, forged(i)); !errors.Is(err, fault.Unauthenticated) {
			t.Fatalf("forged key id %d: %v", i, err)
		}
	}
	if n := ct.jwks.Load(); n != 1 {
		t.Fatalf("10 tokens with made-up key ids fetched the keys %d times, want 1 (the first fetch)", n)
	}
	if _, err := p.VerifyAccessToken(ctx, good); err != nil {
		t.Fatalf("a good token among them: %v", err)
	}
	clock.Add(int64(refetchEvery))
	if _, err := p.VerifyAccessToken(ctx, forged(11)); !errors.Is(err, fault.Unauthenticated) {
		t.Fatal(err)
	}
	if n := ct.jwks.Load(); n != 2 {
		t.Fatalf("after refetchEvery an unknown key id fetched %d times in all, want 2", n)
	}
}

// TestProviderDown: a provider that does not answer is Unavailable (503
// on every surface), never a refusal of the token.
func TestProviderDown(t *testing.T) {
	idp := idptest.Start(t)
	idp.ServiceClient(t, idptest.Service{ID: "engine", Secret: "engine-secret-1", Audiences: []string{"floe"}, Groups: []string{"platform"}})
	tok := idp.ClientCredentials(t, "engine", "engine-secret-1", "floe")
	p, _ := newBearer(t, idp, nil)
	idp.Stop()
	_, err := p.VerifyAccessToken(context.Background(), tok)
	if e, ok := fault.As(err); !ok || e.Kind != fault.Unavailable {
		t.Fatalf("provider down: %v, want Unavailable", err)
	}
}

// BenchmarkVerifyAccessToken: a token's full verification (parse, the
// ES256 signature against Hydra's key, claims) beside the same token
// answered from memory, alternating in one run; full/remembered is what
// the memory saves per request.
func BenchmarkVerifyAccessToken(b *testing.B) {
	idp := idptest.Start(b)
	idp.ServiceClient(b, idptest.Service{ID: "engine", Secret: "engine-secret-1", Audiences: []string{"floe"}, Groups: []string{"platform"}})
	tok := idp.ClientCredentials(b, "engine", "engine-secret-1", "floe")
	p, err := New(Config{Issuer: idp.Issuer, Audience: "floe", Rights: Rights{AdminGroup: "platform"}})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	if _, err := p.VerifyAccessToken(ctx, tok); err != nil {
		b.Fatal(err)
	}
	var full, remembered time.Duration
	n := 0
	b.ReportAllocs()
	for b.Loop() {
		t0 := time.Now()
		if _, _, err := p.verifyAccessToken(ctx, tok); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		if _, err := p.VerifyAccessToken(ctx, tok); err != nil {
			b.Fatal(err)
		}
		full += t1.Sub(t0)
		remembered += time.Since(t1)
		n++
	}
	b.ReportMetric(float64(full.Microseconds())/float64(n), "full-µs")
	b.ReportMetric(float64(remembered.Nanoseconds())/float64(n)/1e3, "remembered-µs")
	b.ReportMetric(full.Seconds()/remembered.Seconds(), "full/remembered")
}
