package icebergrest

import (
	"context"
	"io"
	"log/slog"
	"net/http/httptest"
	"net/url"
	"testing"

	"github.com/floe/floe/catalog"
)

const (
	testRegion  = "us-east-1"
	testAccount = "123456789012"
)

// newARNEnv is newEnv with the S3 Tables region and account of floe serve's
// --s3tables-region and --s3tables-account.
func newARNEnv(t *testing.T, anonymous bool) *testEnv {
	t.Helper()
	e := newEnv(t, anonymous)
	srv := New(Config{Store: e.store, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Anonymous: anonymous,
		Region: testRegion, Account: testAccount})
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(hs.Close)
	e.srv, e.http = srv, hs
	return e
}

func awsARN(name string) string {
	return "arn:aws:s3tables:" + testRegion + ":" + testAccount + ":bucket/" + name
}

// TestWarehouseARN: a table bucket's ARN (AWS's form, as engines configured
// for S3 Tables send it, or floe's own) names the bucket in /v1/config's
// warehouse and as the {prefix} of every route; an ARN of another region,
// account or resource is refused in the spec's shape.
func TestWarehouseARN(t *testing.T) {
	ctx := context.Background()
	e := newARNEnv(t, false)
	e.bucket(t, "lake", catalog.FormatIceberg)
	e.bucket(t, "other", catalog.FormatIceberg)
	e.bucket(t, "vecs", catalog.FormatLance)
	_, rw, _ := e.store.CreateAPIKey(ctx, "rw", catalog.RoleReadWrite, "", 0)
	_, scoped, _ := e.store.CreateAPIKey(ctx, "scoped", catalog.RoleReadWrite, "other", 0)
	lake, err := e.store.GetBucket(ctx, "lake")
	if err != nil {
		t.Fatal(err)
	}
	config := func(wh string) string { return "/v1/config?warehouse=" + url.QueryEscape(wh) }

	for _, wh := range []string{awsARN("lake"), lake.ARN, "lake", "s3://lake/"} {
		code, body := e.call(t, "GET", config(wh), rw, nil)
		if code != 200 || body["overrides"].(map[string]any)["prefix"] != "lake" {
			t.Fatalf("config %s: %d %v", wh, code, body)
		}
	}

	// The ARN as the prefix itself, its slash percent-encoded in one segment.
	prefix := "/v1/" + url.PathEscape(awsARN("lake"))
	if code, body := e.call(t, "POST", prefix+"/namespaces", rw, map[string]any{"namespace": []string{"ns"}}); code != 200 {
		t.Fatalf("create namespace under the ARN: %d %v", code, body)
	}
	// floe's own ARN as the prefix: the table lands in bucket lake.
	code, body := e.call(t, "POST", "/v1/"+url.PathEscape(lake.ARN)+"/namespaces/ns/tables", rw, map[string]any{
		"name": "t", "schema": map[string]any{"type": "struct", "fields": []any{map[string]any{"id": 1, "name": "id", "required": true, "type": "long"}}}})
	if code != 200 {
		t.Fatalf("create table under floe's ARN: %d %v", code, body)
	}
	code, body = e.call(t, "GET", "/v1/lake/namespaces/ns/tables/t", rw, nil)
	if code != 200 {
		t.Fatalf("the table made through the floe ARN prefix is not in bucket lake: %d %v", code, body)
	}
	if code, body := e.call(t, "GET", prefix+"/namespaces/ns/tables/t", rw, nil); code != 200 {
		t.Fatalf("load through the ARN prefix: %d %v", code, body)
	}

	refused := []struct {
		name, path, key string
		code            int
		typ             string
	}{
		{"other region", config("arn:aws:s3tables:eu-west-1:" + testAccount + ":bucket/lake"), rw, 400, typeBadRequest},
		{"other account", config("arn:aws:s3tables:" + testRegion + ":999999999999:bucket/lake"), rw, 400, typeBadRequest},
		{"floe ARN of another region", config("arn:floe:s3tables:elsewhere:000000000000:bucket/lake"), rw, 400, typeBadRequest},
		{"a table's ARN", config(awsARN("lake") + "/table/0b6e3f9c-1d2a-4e5f-8a9b-0c1d2e3f4a5b"), rw, 400, typeBadRequest},
		{"another service", config("arn:aws:s3:::lake"), rw, 400, typeBadRequest},
		{"another partition", config("arn:aws-cn:s3tables:" + testRegion + ":" + testAccount + ":bucket/lake"), rw, 400, typeBadRequest},
		{"bad name in ARN", config(awsARN("Bad_Name")), rw, 400, typeBadRequest},
		{"missing bucket", config(awsARN("nobucket")), rw, 404, typeNoSuchWarehouse},
		{"lance bucket", config(awsARN("vecs")), rw, 400, typeBadRequest},
		{"scoped key, other bucket", config(awsARN("lake")), scoped, 403, typeForbidden},
		{"scoped key, other bucket, prefix", prefix + "/namespaces", scoped, 403, typeForbidden},
		{"prefix of another region", "/v1/" + url.PathEscape("arn:aws:s3tables:eu-west-1:"+testAccount+":bucket/lake") + "/namespaces", rw, 400, typeBadRequest},
	}
	for _, c := range refused {
		t.Run(c.name, func(t *testing.T) {
			code, body := e.call(t, "GET", c.path, c.key, nil)
			if code != c.code || errType(body) != c.typ {
				t.Fatalf("%d %v, want %d %s", code, body, c.code, c.typ)
			}
		})
	}
	if code, body := e.call(t, "GET", config(awsARN("other")), scoped, nil); code != 200 || body["overrides"].(map[string]any)["prefix"] != "other" {
		t.Fatalf("scoped key, own bucket by ARN: %d %v", code, body)
	}
}
