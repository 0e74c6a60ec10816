package s3tables_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"

	"github.com/floe/floe/catalog"
)

type rawResponse struct {
	status  int
	errType string
	body    map[string]any
}

// signedDo signs body with key for the request, then sends sent (normally
// the same body) — so a test can change the body after signing.
func (e *testEnv) signedDo(t *testing.T, key catalog.APIKey, method, path string, body, sent []byte) rawResponse {
	t.Helper()
	req, err := http.NewRequest(method, e.srv.URL+path, bytes.NewReader(sent))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if key.AccessKeyID != "" {
		sum := sha256.Sum256(body)
		creds := aws.Credentials{AccessKeyID: key.AccessKeyID, SecretAccessKey: key.SecretAccessKey}
		if err := v4.NewSigner().SignHTTP(context.Background(), creds, req, hex.EncodeToString(sum[:]), "s3tables", testRegion, time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	out := rawResponse{status: resp.StatusCode, errType: resp.Header.Get("X-Amzn-Errortype")}
	if len(b) > 0 {
		if err := json.Unmarshal(b, &out.body); err != nil {
			t.Fatalf("%s %s: body is not JSON: %q", method, path, b)
		}
	}
	return out
}

// TestRawRequests covers what the SDK never sends: unknown fields, a body
// changed after signing, no signature, malformed JSON, and floe's extra
// ListTables columns.
func TestRawRequests(t *testing.T) {
	e := newTestEnv(t)
	create := []byte(`{"name":"raw","tags":{"a":"b"},"someFutureField":{"x":[1,2]},"format":"ICEBERG"}`)
	if r := e.signedDo(t, e.rw, "PUT", "/buckets", create, create); r.status != 200 || r.body["arn"] != arnPrefix+"bucket/raw" {
		t.Fatalf("create with unknown fields: %d %s %v", r.status, r.errType, r.body)
	}
	barn := url.PathEscape(arnPrefix + "bucket/raw")
	ns := []byte(`{"namespace":["n"]}`)
	if r := e.signedDo(t, e.rw, "PUT", "/namespaces/"+barn, ns, ns); r.status != 200 {
		t.Fatalf("create namespace: %d %v", r.status, r.body)
	}
	tb := []byte(`{"name":"t","format":"ICEBERG"}`)
	if r := e.signedDo(t, e.rw, "PUT", "/tables/"+barn+"/n", tb, tb); r.status != 200 {
		t.Fatalf("create table: %d %v", r.status, r.body)
	}
	r := e.signedDo(t, e.ro, "GET", "/tables/"+barn, nil, nil)
	rows, _ := r.body["tables"].([]any)
	if r.status != 200 || len(rows) != 1 || rows[0].(map[string]any)["format"] != "ICEBERG" {
		t.Fatalf("list tables: %d %v", r.status, r.body)
	}

	cases := []struct {
		name       string
		key        catalog.APIKey
		method     string
		path       string
		signed     string
		sent       string
		wantStatus int
		wantType   string
		wantWords  string
	}{
		{"body changed after signing", e.rw, "PUT", "/buckets", `{"name":"aaa"}`, `{"name":"bbb"}`, 403, "ForbiddenException", "signature does not match"},
		{"no signature", catalog.APIKey{}, "GET", "/buckets", "", "", 403, "ForbiddenException", "not signed"},
		{"malformed JSON", e.rw, "PUT", "/buckets", `{"name":`, `{"name":`, 400, "BadRequestException", "not valid JSON"},
		{"wrong JSON type", e.rw, "PUT", "/buckets", `{"name":7}`, `{"name":7}`, 400, "BadRequestException", `"name" must be a JSON string`},
		{"no name", e.rw, "PUT", "/buckets", `{}`, `{}`, 400, "BadRequestException", "name is required"},
		{"unknown operation", e.rw, "GET", "/nothing-here", "", "", 404, "NotFoundException", "not an S3 Tables operation"},
		{"wrong method", e.rw, "POST", "/buckets", "", "", 405, "MethodNotAllowedException", "not an S3 Tables operation"},
		{"maintenance status", e.rw, "PUT", "/buckets/" + barn + "/maintenance/icebergUnreferencedFileRemoval",
			`{"value":{"status":"sometimes"}}`, `{"value":{"status":"sometimes"}}`, 400, "BadRequestException", "enabled or disabled"},
		{"maintenance type", e.rw, "PUT", "/buckets/" + barn + "/maintenance/icebergCompaction",
			`{"value":{"status":"enabled"}}`, `{"value":{"status":"enabled"}}`, 400, "BadRequestException", "icebergUnreferencedFileRemoval"},
		{"metadata outside the table", e.rw, "PUT", "/tables/" + barn + "/n/t/metadata-location",
			`{"versionToken":"x","metadataLocation":"file:///etc/passwd"}`, `{"versionToken":"x","metadataLocation":"file:///etc/passwd"}`,
			400, "BadRequestException", "inside the table's warehouse location"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := e.signedDo(t, tc.key, tc.method, tc.path, []byte(tc.signed), []byte(tc.sent))
			msg, _ := r.body["message"].(string)
			if r.status != tc.wantStatus || r.errType != tc.wantType || !strings.Contains(msg, tc.wantWords) {
				t.Fatalf("got %d %s %q; want %d %s saying %q", r.status, r.errType, msg, tc.wantStatus, tc.wantType, tc.wantWords)
			}
		})
	}
	for _, b := range []string{"aaa", "bbb"} {
		if _, err := e.store.GetBucket(context.Background(), b); err == nil {
			t.Errorf("bucket %q was created by a request whose body changed after signing", b)
		}
	}
}
