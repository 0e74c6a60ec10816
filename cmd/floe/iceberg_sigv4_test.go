package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
)

// TestServeIcebergSigV4AndMetrics: floe serve's Iceberg REST takes a
// request signed with the pair `floe token create` prints (signing name
// s3tables, the default --s3tables-region) for a warehouse named by the
// bucket's S3 Tables ARN, refuses one signed for another region, and the
// --metrics listener counts both on the iceberg surface's series.
func TestServeIcebergSigV4AndMetrics(t *testing.T) {
	dir := t.TempDir()
	data := "--data=" + dir
	ctx, cancel := context.WithCancel(context.Background())
	srv := startServe(t, ctx, data, "--lance", "", "--s3tables", "", "--metrics", "127.0.0.1:0",
		"--s3tables-account", "123456789012")
	t.Cleanup(func() {
		cancel()
		if err := srv.wait(t); err != nil {
			t.Errorf("serve: %v", err)
		}
	})
	// startServe returns once serve logged "floe started": the database is
	// open and migrated, so the CLI below may use it.
	ice, metrics := srv.addrs["iceberg"], srv.addrs["metrics"]
	if _, code := run(t, "bucket", "create", "lake", "--format", "iceberg", data); code != 0 {
		t.Fatal("bucket create failed")
	}
	printed, code := run(t, "token", "create", "--role", "readonly", data)
	m := regexp.MustCompile(`access key id (FLOE[A-Z2-7]{16}), secret access key ([0-9A-Za-z]{40})`).FindStringSubmatch(printed)
	if code != 0 || m == nil {
		t.Fatalf("token create printed no access key pair (code %d):\n%s", code, printed)
	}

	get := func(region string) (int, map[string]any) {
		t.Helper()
		req, err := http.NewRequest("GET", "http://"+ice+"/v1/config?warehouse="+url.QueryEscape("arn:aws:s3tables:us-east-1:123456789012:bucket/lake"), nil)
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(nil)
		hash := hex.EncodeToString(sum[:])
		req.Header.Set("X-Amz-Content-Sha256", hash)
		if err := v4.NewSigner().SignHTTP(ctx, aws.Credentials{AccessKeyID: m[1], SecretAccessKey: m[2]}, req, hash, "s3tables", region, time.Now()); err != nil {
			t.Fatal(err)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var body map[string]any
		json.NewDecoder(resp.Body).Decode(&body)
		return resp.StatusCode, body
	}
	if code, body := get("us-east-1"); code != 200 || body["overrides"].(map[string]any)["prefix"] != "lake" {
		t.Fatalf("signed config: %d %v", code, body)
	}
	if code, body := get("eu-west-1"); code != 403 {
		t.Fatalf("signed for another region: %d %v", code, body)
	}
	resp, err := http.Get("http://" + metrics + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, want := range []string{
		`floe_http_requests_total{route="GET /v1/config",status="200",surface="iceberg"} 1`,
		`floe_http_requests_total{route="GET /v1/config",status="403",surface="iceberg"} 1`,
		`floe_http_request_duration_seconds_count{route="GET /v1/config",surface="iceberg"} 2`,
	} {
		if !strings.Contains(string(raw), want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
}
