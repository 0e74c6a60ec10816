package main

import (
	"context"
	"errors"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	sdk "github.com/aws/aws-sdk-go-v2/service/s3tables"
	"github.com/aws/aws-sdk-go-v2/service/s3tables/types"
)

// TestServeS3Tables runs `floe serve --s3tables …`, makes a key with
// `floe token create`, and drives the running server with the AWS SDK
// using the SigV4 pair the command printed.
func TestServeS3Tables(t *testing.T) {
	dir := t.TempDir()
	data := "--data=" + dir
	ctx, cancel := context.WithCancel(context.Background())
	// The Iceberg REST is on: a bucket made through S3 Tables is an Iceberg
	// bucket, refused while that catalog is off.
	srv := startServe(t, ctx, data, "--lance", "", "--metrics", "127.0.0.1:0",
		"--s3tables-region", "ap-south-1", "--s3tables-account", "111122223333")
	t.Cleanup(func() {
		cancel()
		if err := srv.wait(t); err != nil {
			t.Errorf("serve: %v", err)
		}
	})
	addr := srv.addrs["s3tables"]

	printed, code := run(t, "token", "create", "--role", "readwrite", data)
	m := regexp.MustCompile(`access key id (FLOE[A-Z2-7]{16}), secret access key ([0-9A-Za-z]{40})`).FindStringSubmatch(printed)
	if code != 0 || m == nil {
		t.Fatalf("token create printed no SigV4 pair (code %d):\n%s", code, printed)
	}
	c := sdk.New(sdk.Options{Region: "ap-south-1", BaseEndpoint: aws.String("http://" + addr),
		Credentials: aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
			return aws.Credentials{AccessKeyID: m[1], SecretAccessKey: m[2]}, nil
		})})
	rctx, rcancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer rcancel()
	cb, err := c.CreateTableBucket(rctx, &sdk.CreateTableBucketInput{Name: aws.String("via-serve")})
	if err != nil {
		t.Fatalf("CreateTableBucket: %v", err)
	}
	if got := aws.ToString(cb.Arn); got != "arn:aws:s3tables:ap-south-1:111122223333:bucket/via-serve" {
		t.Fatalf("ARN = %q; want the region and account from the flags", got)
	}
	lb, err := c.ListTableBuckets(rctx, &sdk.ListTableBucketsInput{})
	if err != nil || len(lb.TableBuckets) != 1 {
		t.Fatalf("ListTableBuckets = %+v, %v", lb, err)
	}
	if listed, _ := run(t, "bucket", "list", data); !regexp.MustCompile(`via-serve`).MatchString(listed) {
		t.Fatalf("floe bucket list does not show the bucket made through S3 Tables:\n%s", listed)
	}
	// Signed for another region than --s3tables-region: refused (#23 item 6).
	other := sdk.New(c.Options(), func(o *sdk.Options) { o.Region = "eu-west-1"; o.RetryMaxAttempts = 1 })
	var fe *types.ForbiddenException
	if _, err := other.ListTableBuckets(rctx, &sdk.ListTableBucketsInput{}); !errors.As(err, &fe) {
		t.Fatalf("a request signed for eu-west-1: err = %v, want ForbiddenException", err)
	}
	// The surface's requests are on the one /metrics.
	resp, err := http.Get("http://" + srv.addrs["metrics"] + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	for _, want := range []string{
		`floe_http_requests_total{route="PUT /buckets",status="200",surface="s3tables"} 1`,
		`floe_http_requests_total{route="GET /buckets",status="403",surface="s3tables"} 1`,
		"go_goroutines", // the console's collectors: one registry for both
	} {
		if !strings.Contains(string(body), want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
}
