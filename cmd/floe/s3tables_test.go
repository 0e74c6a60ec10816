package main

import (
	"context"
	"regexp"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	sdk "github.com/aws/aws-sdk-go-v2/service/s3tables"
)

// TestServeS3Tables runs `floe serve --s3tables …`, makes a key with
// `floe token create`, and drives the running server with the AWS SDK
// using the SigV4 pair the command printed.
func TestServeS3Tables(t *testing.T) {
	dir := t.TempDir()
	data := "--data=" + dir
	ctx, cancel := context.WithCancel(context.Background())
	srv := startServe(t, ctx, data, "--lance", "", "--iceberg", "",
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
}
