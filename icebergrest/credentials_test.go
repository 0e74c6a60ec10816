package icebergrest

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go"
	"github.com/floe/floe/catalog"
	"github.com/floe/floe/internal/s3test"
	"github.com/floe/floe/warehouse"
)

// getJSON sends a GET with headers and decodes the JSON answer.
func (e *testEnv) getJSON(t *testing.T, path string, header map[string]string) (int, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest("GET", e.http.URL+path, nil)
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := e.http.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var out map[string]any
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatalf("GET %s: %d %s", path, resp.StatusCode, raw)
	}
	return resp.StatusCode, out
}

// TestIssue26LoadCredentialsLocal: loadCredentials answered 406 although
// it is part of the spec clients refresh keys through. On a warehouse that
// vends nothing it answers an empty list (never keys LoadTable would not
// give), 404 for a missing table, and a planId naming no plan of the table
// is a 404 NoSuchPlanIdException.
func TestIssue26LoadCredentialsLocal(t *testing.T) {
	e := strictEnv(t)
	code, body := e.getJSON(t, "/v1/lake/namespaces/ns/tables/t/credentials", nil)
	creds, ok := body["storage-credentials"].([]any)
	if code != 200 || !ok || len(creds) != 0 {
		t.Fatalf("local warehouse: %d %v; want 200 and []", code, body)
	}
	if code, body := e.getJSON(t, "/v1/lake/namespaces/ns/tables/nope/credentials", nil); code != 404 || errType(body) != typeNoSuchTable {
		t.Fatalf("missing table: %d %v", code, body)
	}
	if code, body := e.getJSON(t, "/v1/lake/namespaces/ns/tables/t/credentials?planId=zzz", nil); code != 404 || errType(body) != typeNoSuchPlanID {
		t.Fatalf("unknown plan: %d %v", code, body)
	}
}

// stsEnv is newEnv on a real S3 store with its STS, floe vending
// prefix-scoped session keys (--vend-credentials sts).
func stsEnv(t *testing.T) (*testEnv, *s3test.Store, string) {
	t.Helper()
	st := s3test.NewWithSTS(t)
	bucket := st.Bucket(t)
	ctx := context.Background()
	root, err := warehouse.Parse("s3://" + bucket + "/wh")
	if err != nil {
		t.Fatal(err)
	}
	b, err := warehouse.OpenS3(ctx, root, warehouse.S3Config{Endpoint: st.Endpoint, Region: s3test.Region, PathStyle: true,
		AccessKey: st.AccessKey, SecretKey: st.SecretKey, STSRoleARN: st.RoleARN})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	store, err := catalog.Open(ctx, catalog.Options{Path: filepath.Join(dir, "catalog.db"), Warehouse: root.String(), Backend: b})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	srv := New(Config{Store: store, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Anonymous: true,
		Storage: warehouse.ClientAccess{S3: b, Mode: warehouse.VendSTS}})
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(hs.Close)
	return &testEnv{store: store, srv: srv, http: hs, dir: dir}, st, bucket
}

// jwtExpiry reads the exp claim of the store's session token (a JWT the
// store checks on every request).
func jwtExpiry(t *testing.T, token string) time.Time {
	t.Helper()
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		t.Fatalf("session token is not a JWT: %d parts", len(parts))
	}
	raw, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		t.Fatal(err)
	}
	var claims struct {
		Exp int64 `json:"exp"`
	}
	if err := json.Unmarshal(raw, &claims); err != nil {
		t.Fatal(err)
	}
	return time.Unix(claims.Exp, 0)
}

// TestIssue26LoadCredentialsSTS: on an S3 warehouse with
// --vend-credentials sts, /credentials hands out what LoadTable vends
// under X-Iceberg-Access-Delegation (the same keys, prefix and expiry);
// the keys read and write the table's own files and nothing of the table
// beside it, and they expire when they say: the expiry floe states is the
// exp claim of the session token the store checks on every request.
func TestIssue26LoadCredentialsSTS(t *testing.T) {
	e, st, bucket := stsEnv(t)
	ctx := context.Background()
	e.bucket(t, "lake", catalog.FormatIceberg)
	if code, body := e.call(t, "POST", "/v1/lake/namespaces", "", `{"namespace":["ns"]}`); code != 200 {
		t.Fatalf("create namespace %d %v", code, body)
	}
	for _, name := range []string{"t", "tb"} {
		create := `{"name":"` + name + `","schema":{"type":"struct","schema-id":0,"fields":[{"id":1,"name":"id","type":"long","required":true}]}}`
		if code, body := e.call(t, "POST", "/v1/lake/namespaces/ns/tables", "", create); code != 200 {
			t.Fatalf("create table %d %v", code, body)
		}
	}
	before := time.Now()
	code, body := e.getJSON(t, "/v1/lake/namespaces/ns/tables/t/credentials", nil)
	creds, _ := body["storage-credentials"].([]any)
	if code != 200 || len(creds) != 1 {
		t.Fatalf("/credentials: %d %v; want one credential", code, body)
	}
	cred := creds[0].(map[string]any)
	cfg := cred["config"].(map[string]any)
	loc := "s3://" + bucket + "/wh/lake/ns/t"
	if cred["prefix"] != loc {
		t.Fatalf("prefix %v, want the table location %s", cred["prefix"], loc)
	}
	key, secret, token := cfg["s3.access-key-id"].(string), cfg["s3.secret-access-key"].(string), cfg["s3.session-token"].(string)
	if key == "" || key == st.AccessKey || secret == "" || token == "" {
		t.Fatalf("config %v: want session keys, not floe's own", cfg)
	}
	ms, err := strconv.ParseInt(cfg["s3.session-token-expires-at-ms"].(string), 10, 64)
	if err != nil {
		t.Fatalf("s3.session-token-expires-at-ms: %v", err)
	}
	expires := time.UnixMilli(ms)
	if !expires.After(before.Add(30 * time.Minute)) {
		t.Fatalf("keys expire at %s, want about an hour from now", expires)
	}
	if exp := jwtExpiry(t, token); exp.Sub(expires).Abs() > time.Second {
		t.Fatalf("floe says the keys expire at %s; the store's token says %s", expires, exp)
	}

	// What LoadTable vends under the header is the same.
	code, load := e.getJSON(t, "/v1/lake/namespaces/ns/tables/t", map[string]string{accessDelegation: "vended-credentials"})
	lc, _ := load["config"].(map[string]any)
	if code != 200 || lc["s3.access-key-id"] != key || lc["s3.session-token-expires-at-ms"] != cfg["s3.session-token-expires-at-ms"] {
		t.Fatalf("LoadTable vends %v, /credentials %v", lc, cfg)
	}

	cl := s3.New(s3.Options{BaseEndpoint: aws.String(st.Endpoint), Region: s3test.Region, UsePathStyle: true, RetryMaxAttempts: 1,
		Credentials: credentials.NewStaticCredentialsProvider(key, secret, token)})
	own := "wh/lake/ns/t/data/x.parquet"
	other := "wh/lake/ns/tb/data/x.parquet"
	if _, err := cl.PutObject(ctx, &s3.PutObjectInput{Bucket: &bucket, Key: &own, Body: bytes.NewReader([]byte("mine"))}); err != nil {
		t.Fatalf("write in the table with the vended keys: %v", err)
	}
	if _, err := cl.GetObject(ctx, &s3.GetObjectInput{Bucket: &bucket, Key: &own}); err != nil {
		t.Fatalf("read in the table with the vended keys: %v", err)
	}
	_, err = cl.PutObject(ctx, &s3.PutObjectInput{Bucket: &bucket, Key: &other, Body: bytes.NewReader([]byte("theirs"))})
	var apiErr smithy.APIError
	if !errors.As(err, &apiErr) || apiErr.ErrorCode() != "AccessDenied" {
		t.Fatalf("write into the table beside it: %v; want AccessDenied", err)
	}
}
