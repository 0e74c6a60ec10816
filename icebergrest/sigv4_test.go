package icebergrest

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/iceberg-go/catalog/rest"
	"github.com/apache/iceberg-go/table"
	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/aws-sdk-go-v2/credentials"

	"github.com/floe/floe/apikey"
	"github.com/floe/floe/catalog"
	"github.com/floe/floe/sigv4"
)

// sigv4Env is the Iceberg REST with floe serve's SigV4 verifier (signing
// names s3tables and glue, region testRegion, access keys through the
// apikey cache) on a clock the test moves.
type sigv4Env struct {
	*testEnv
	clk *clock
	key catalog.APIKey // readwrite, every bucket; its pair signs
}

func newSigV4Env(t testing.TB) *sigv4Env {
	t.Helper()
	e := newEnv(t, false)
	clk := &clock{t: time.Now()}
	srv := New(Config{Store: e.store, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Region: testRegion, Account: testAccount,
		SigV4: sigv4.New(sigv4.Config{Keys: apikey.NewAccessKeys(e.store, clk.now), Services: []string{"s3tables", "glue"}, Region: testRegion, MaxBody: MaxBody, Now: clk.now})})
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(hs.Close)
	e.srv, e.http = srv, hs
	key, _, err := e.store.CreateAPIKey(context.Background(), "signer", catalog.RoleReadWrite, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	return &sigv4Env{testEnv: e, clk: clk, key: key}
}

// recorder keeps every request iceberg-go sends, after it signed them.
type recorder struct {
	mu   sync.Mutex
	reqs []recorded
}

type recorded struct {
	method, url string
	header      http.Header
	body        []byte
}

func (rc *recorder) RoundTrip(r *http.Request) (*http.Response, error) {
	var body []byte
	if r.Body != nil {
		body, _ = io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
	}
	rc.mu.Lock()
	rc.reqs = append(rc.reqs, recorded{r.Method, r.URL.String(), r.Header.Clone(), body})
	rc.mu.Unlock()
	return http.DefaultTransport.RoundTrip(r)
}

// sigv4Client is iceberg-go configured the way AWS documents its S3 Tables
// Iceberg endpoint: SigV4 with signing name service, warehouse = the
// bucket's ARN.
func (e *sigv4Env) sigv4Client(t testing.TB, warehouse, service, region, id, secret string, rt http.RoundTripper) (*rest.Catalog, error) {
	t.Helper()
	opts := []rest.Option{
		rest.WithWarehouseLocation(warehouse),
		rest.WithSigV4RegionSvc(region, service),
		rest.WithAwsConfig(aws.Config{Region: region, Credentials: credentials.NewStaticCredentialsProvider(id, secret, "")}),
	}
	if rt != nil {
		opts = append(opts, rest.WithCustomTransport(rt))
	}
	return rest.NewCatalog(context.Background(), "floe", e.http.URL, opts...)
}

// TestSigV4IcebergGo: iceberg-go v0.7.0 with rest.WithSigV4RegionSvc(
// "us-east-1", "s3tables") and warehouse = the bucket's ARN creates a
// namespace and a table, appends, scans, and loses a commit race with
// CommitFailed — every request signed with an API key's access key pair.
func TestSigV4IcebergGo(t *testing.T) {
	ctx := context.Background()
	e := newSigV4Env(t)
	e.bucket(t, "lake", catalog.FormatIceberg)
	rec := &recorder{}
	cat, err := e.sigv4Client(t, awsARN("lake"), "s3tables", testRegion, e.key.AccessKeyID, e.key.SecretAccessKey, rec)
	if err != nil {
		t.Fatalf("rest.NewCatalog with SigV4: %v", err)
	}
	if err := cat.CreateNamespace(ctx, table.Identifier{"sales"}, nil); err != nil {
		t.Fatalf("create namespace: %v", err)
	}
	ident := table.Identifier{"sales", "events"}
	tbl := createEventsTable(t, ctx, cat, ident)
	stale, err := cat.LoadTable(ctx, ident)
	if err != nil {
		t.Fatal(err)
	}
	if tbl, err = tbl.AppendTable(ctx, batch(0, 40), 1024, nil); err != nil {
		t.Fatalf("append: %v", err)
	}
	loaded, err := cat.LoadTable(ctx, ident)
	if err != nil {
		t.Fatal(err)
	}
	if got := scanIDs(t, ctx, loaded); !slices.Equal(got, seq(0, 40)) {
		t.Fatalf("scan ids = %v", got)
	}
	// The handle loaded before the append commits against a snapshot that
	// moved: CommitFailed, and the table keeps what it had.
	if _, err := stale.AppendTable(ctx, batch(100, 110), 1024, nil); !errors.Is(err, rest.ErrCommitFailed) && !errors.Is(err, table.ErrCommitFailed) {
		t.Fatalf("stale append = %v, want CommitFailed", err)
	}
	if again, _ := cat.LoadTable(ctx, ident); again.MetadataLocation() != tbl.MetadataLocation() {
		t.Fatal("the refused commit changed the table")
	}
	// Every request was signed (none carried a bearer) and went to bucket lake.
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.reqs) < 6 {
		t.Fatalf("only %d requests recorded", len(rec.reqs))
	}
	for _, r := range rec.reqs {
		a := r.header.Get("Authorization")
		if !strings.HasPrefix(a, "AWS4-HMAC-SHA256 Credential="+e.key.AccessKeyID+"/") || !strings.Contains(a, "/"+testRegion+"/s3tables/aws4_request") {
			t.Fatalf("%s %s not signed with the key's pair: %q", r.method, r.url, a)
		}
		if !strings.Contains(r.url, "/v1/config") && !strings.Contains(r.url, "/v1/lake/") {
			t.Fatalf("%s %s: not under the prefix /v1/config answered for the ARN", r.method, r.url)
		}
	}
	// The table is bucket lake's, as the catalog and the console see it.
	if _, err := e.store.GetTable(ctx, catalog.TableRef{Bucket: "lake", Namespace: []string{"sales"}, Name: "events"}); err != nil {
		t.Fatal(err)
	}
}

// TestSigV4Refused: a wrong secret, a wrong region, a service floe does not
// sign for, an unknown access key id and a request replayed outside the
// skew window are 403 in the Iceberg error model; within the window a
// replay is served (SigV4 has no nonce: the window bounds replays), and
// glue is accepted beside s3tables.
func TestSigV4Refused(t *testing.T) {
	ctx := context.Background()
	e := newSigV4Env(t)
	e.bucket(t, "lake", catalog.FormatIceberg)
	roPair, ro, err := e.store.CreateAPIKey(ctx, "ro", catalog.RoleReadonly, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	config := e.http.URL + "/v1/config?warehouse=" + url.QueryEscape(awsARN("lake"))
	cases := []struct {
		name, service, region, id, secret string
		method, url, body                 string
		at                                time.Time
		code                              int
		typ, says                         string
	}{
		{"right pair", "s3tables", testRegion, e.key.AccessKeyID, e.key.SecretAccessKey, "GET", config, "", time.Now(), 200, "", ""},
		{"glue signing name", "glue", testRegion, e.key.AccessKeyID, e.key.SecretAccessKey, "GET", config, "", time.Now(), 200, "", ""},
		{"wrong secret", "s3tables", testRegion, e.key.AccessKeyID, strings.Repeat("x", 40), "GET", config, "", time.Now(), 403, typeForbidden, "signature does not match"},
		{"wrong region", "s3tables", "eu-west-1", e.key.AccessKeyID, e.key.SecretAccessKey, "GET", config, "", time.Now(), 403, typeForbidden, "region"},
		{"other service", "execute-api", testRegion, e.key.AccessKeyID, e.key.SecretAccessKey, "GET", config, "", time.Now(), 403, typeForbidden, "service"},
		{"unknown access key", "s3tables", testRegion, "FLOEAAAAAAAAAAAAAAAA", e.key.SecretAccessKey, "GET", config, "", time.Now(), 403, typeForbidden, "unknown"},
		{"signed 20 minutes ago", "s3tables", testRegion, e.key.AccessKeyID, e.key.SecretAccessKey, "GET", config, "", time.Now().Add(-20 * time.Minute), 403, typeForbidden, "clock"},
		{"wrong secret on a write", "s3tables", testRegion, e.key.AccessKeyID, "nope", "POST", e.http.URL + "/v1/lake/namespaces", `{"namespace":["x"]}`, time.Now(), 403, typeForbidden, "signature"},
		{"readonly pair writes", "s3tables", testRegion, roPair.AccessKeyID, roPair.SecretAccessKey, "POST", e.http.URL + "/v1/lake/namespaces", `{"namespace":["x"]}`, time.Now(), 403, typeForbidden, "read-only"},
		{"signed write", "s3tables", testRegion, e.key.AccessKeyID, e.key.SecretAccessKey, "POST", e.http.URL + "/v1/lake/namespaces", `{"namespace":["x"]}`, time.Now(), 200, "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			req := signed(t, c.method, c.url, c.body, c.service, c.region, c.id, c.secret, c.at)
			code, body := do(t, e.http.Client(), req)
			if code != c.code {
				t.Fatalf("%d %s, want %d", code, body, c.code)
			}
			if c.code == 403 {
				msg, typ := icebergError(t, code, body)
				if typ != c.typ || !strings.Contains(msg, c.says) {
					t.Fatalf("refusal %s %q, want %s saying %q", typ, msg, c.typ, c.says)
				}
			}
		})
	}
	if code, _ := e.call(t, "GET", "/v1/lake/namespaces/x", "", nil); code != 401 {
		t.Fatalf("no credential at all: %d, want 401", code)
	}
	if code, _ := e.call(t, "GET", "/v1/lake/namespaces/x", ro, nil); code != 200 {
		t.Fatalf("the namespace the signed write made: %d", code)
	}

	t.Run("iceberg-go with a wrong secret", func(t *testing.T) {
		_, err := e.sigv4Client(t, awsARN("lake"), "s3tables", testRegion, e.key.AccessKeyID, strings.Repeat("y", 40), nil)
		if err == nil || !strings.Contains(err.Error(), "signature does not match") {
			t.Fatalf("NewCatalog = %v, want the refusal", err)
		}
	})
	t.Run("iceberg-go with a wrong region", func(t *testing.T) {
		_, err := e.sigv4Client(t, awsARN("lake"), "s3tables", "eu-west-1", e.key.AccessKeyID, e.key.SecretAccessKey, nil)
		if err == nil || !strings.Contains(err.Error(), "region") {
			t.Fatalf("NewCatalog = %v, want the refusal", err)
		}
	})

	t.Run("replay", func(t *testing.T) {
		rec := &recorder{}
		if _, err := e.sigv4Client(t, awsARN("lake"), "s3tables", testRegion, e.key.AccessKeyID, e.key.SecretAccessKey, rec); err != nil {
			t.Fatal(err)
		}
		rec.mu.Lock()
		captured := rec.reqs[0] // GET /v1/config, as iceberg-go signed it
		rec.mu.Unlock()
		replay := func() (int, []byte) {
			req, err := http.NewRequest(captured.method, captured.url, bytes.NewReader(captured.body))
			if err != nil {
				t.Fatal(err)
			}
			req.Header = captured.header.Clone()
			return do(t, e.http.Client(), req)
		}
		if code, body := replay(); code != 200 {
			t.Fatalf("replay within the window: %d %s", code, body)
		}
		e.clk.add(sigv4.MaxClockSkew + time.Minute)
		code, body := replay()
		if msg, typ := icebergError(t, code, body); code != 403 || typ != typeForbidden || !strings.Contains(msg, "clock") {
			t.Fatalf("replay outside the window: %d %s", code, body)
		}
	})
}

// clientSigners are the AWS SDK's v4 signers as clients hold them: one
// per session (here: per secret), with the SDK's derived-key cache. One
// signer for several secrets would not do: that cache is keyed by access
// key id, service, region and day, not by the secret.
var clientSigners sync.Map // secret → *v4.Signer

func clientSigner(secret string) *v4.Signer {
	s, _ := clientSigners.LoadOrStore(secret, v4.NewSigner())
	return s.(*v4.Signer)
}

// signed is a request signed by the AWS SDK's v4 signer, as clients sign.
func signed(t testing.TB, method, u, body, service, region, id, secret string, at time.Time) *http.Request {
	t.Helper()
	req, err := http.NewRequest(method, u, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	sum := sha256.Sum256([]byte(body))
	hash := hex.EncodeToString(sum[:])
	req.Header.Set("X-Amz-Content-Sha256", hash)
	if err := clientSigner(secret).SignHTTP(context.Background(), aws.Credentials{AccessKeyID: id, SecretAccessKey: secret}, req, hash, service, region, at); err != nil {
		t.Fatal(err)
	}
	return req
}

func do(t testing.TB, c *http.Client, req *http.Request) (int, []byte) {
	t.Helper()
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, raw
}

// TestSigV4NotConfigured: a surface without a verifier refuses a signed
// request with a sentence (401, NotAuthorized), never as a bad bearer.
func TestSigV4NotConfigured(t *testing.T) {
	e := newEnv(t, true) // anonymous: a signed request still is not let through
	e.bucket(t, "lake", catalog.FormatIceberg)
	req := signed(t, "GET", e.http.URL+"/v1/lake/namespaces", "", "s3tables", testRegion, "FLOEAAAAAAAAAAAAAAAA", "x", time.Now())
	code, body := do(t, e.http.Client(), req)
	if msg, typ := icebergError(t, code, body); code != 401 || typ != typeNotAuthorized || !strings.Contains(msg, "does not accept SigV4") {
		t.Fatalf("%d %s", code, body)
	}
}

// TestSlowBodyIsCut: a client that sends its headers and then trickles
// the body (here: one byte, then nothing) is answered 400 once the body's
// read deadline passes — signed (the SigV4 verifier reads the body to hash
// it) or with a bearer (the handler reads it) — instead of holding the
// connection, and nothing is created.
func TestSlowBodyIsCut(t *testing.T) {
	e := newSigV4Env(t)
	e.bucket(t, "lake", catalog.FormatIceberg)
	e.srv.edge.SetBodyTimeout(200 * time.Millisecond)
	_, bearer, err := e.store.CreateAPIKey(context.Background(), "bearer", catalog.RoleReadWrite, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	full := signed(t, "POST", e.http.URL+"/v1/lake/namespaces", `{"namespace":["slow"]}`, "s3tables", testRegion, e.key.AccessKeyID, e.key.SecretAccessKey, time.Now())
	for _, sign := range []bool{true, false} {
		conn, err := net.Dial("tcp", strings.TrimPrefix(e.http.URL, "http://"))
		if err != nil {
			t.Fatal(err)
		}
		// The test's own bound: a cut that never comes fails here, not by hanging.
		conn.SetDeadline(time.Now().Add(20 * time.Second))
		var head strings.Builder
		head.WriteString("POST /v1/lake/namespaces HTTP/1.1\r\nHost: " + full.Host + "\r\nContent-Length: 22\r\nContent-Type: application/json\r\n")
		if sign {
			for _, h := range []string{"Authorization", "X-Amz-Date", "X-Amz-Content-Sha256"} {
				head.WriteString(h + ": " + full.Header.Get(h) + "\r\n")
			}
		} else {
			head.WriteString("Authorization: Bearer " + bearer + "\r\n")
		}
		head.WriteString("\r\n{")
		if _, err := io.WriteString(conn, head.String()); err != nil {
			t.Fatal(err)
		}
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			t.Fatalf("signed=%v: no answer to a stalled body: %v", sign, err)
		}
		raw, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		conn.Close()
		if resp.StatusCode != 400 || !strings.Contains(string(raw), "did not arrive in time") || strings.Contains(string(raw), "127.0.0.1") {
			t.Fatalf("signed=%v: %d %s, want the body refused", sign, resp.StatusCode, raw)
		}
	}
	if _, err := e.store.GetNamespace(context.Background(), "lake", []string{"slow"}); err == nil {
		t.Fatal("the stalled request made its namespace")
	}
}

// TestBodyDeadlineLiftedOnceRead: a body that arrived whole no longer has
// a deadline — signed (read by the SigV4 check) or not (read by the
// handler): a handler still working when it would have passed keeps its
// request's context. (net/http lifts it when the body hits its end; a
// deadline set anywhere later would fail its background read of the
// connection and cancel the context.)
func TestBodyDeadlineLiftedOnceRead(t *testing.T) {
	e := newSigV4Env(t)
	const bodyTimeout = 100 * time.Millisecond
	e.srv.edge.SetBodyTimeout(bodyTimeout)
	_, bearer, err := e.store.CreateAPIKey(context.Background(), "bearer", catalog.RoleReadWrite, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	e.srv.edge.HandleFunc("POST /v1/test/slow", func(w http.ResponseWriter, r *http.Request) {
		if _, err := io.ReadAll(r.Body); err != nil {
			e.srv.writeError(w, r, err)
			return
		}
		select {
		case <-r.Context().Done():
			w.WriteHeader(http.StatusServiceUnavailable) // cancelled under the handler
		case <-time.After(5 * bodyTimeout): // well past the deadline
			io.WriteString(w, "done")
		}
	})
	for _, sign := range []bool{true, false} {
		var req *http.Request
		if sign {
			req = signed(t, "POST", e.http.URL+"/v1/test/slow", `{"x":1}`, "s3tables", testRegion, e.key.AccessKeyID, e.key.SecretAccessKey, time.Now())
		} else {
			req, _ = http.NewRequest("POST", e.http.URL+"/v1/test/slow", strings.NewReader(`{"x":1}`))
			req.Header.Set("Authorization", "Bearer "+bearer)
		}
		if code, body := do(t, e.http.Client(), req); code != 200 || string(body) != "done" {
			t.Fatalf("signed=%v: %d %s: the handler's context was cancelled after its body was in", sign, code, body)
		}
	}
}
