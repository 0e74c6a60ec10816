package s3test

import (
	"io"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
)

// The proxy makes weed a store without conditional writes: an exclusive
// PUT of an existing key, refused by weed itself, succeeds through it and
// replaces the object, and so does an exclusive copy; plain requests
// (reads, listings) go through as the client signed them.
func TestNoConditionProxyStrips(t *testing.T) {
	s := Require(t)
	ctx := t.Context()
	bucket := s.Bucket(t)
	p := s.NoConditionProxy(t)
	direct := s.Client()
	proxied := s3.New(s3.Options{
		BaseEndpoint: aws.String(p.Endpoint), Region: Region, UsePathStyle: true, RetryMaxAttempts: 1,
		Credentials: credentials.NewStaticCredentialsProvider(s.AccessKey, s.SecretKey, ""),
	})
	put := func(c *s3.Client, key, body string) error {
		_, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String(key),
			Body: strings.NewReader(body), IfNoneMatch: aws.String("*")})
		return err
	}
	read := func(key string) string {
		out, err := proxied.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String(key)})
		if err != nil {
			t.Fatalf("get %s through the proxy: %v", key, err)
		}
		defer out.Body.Close()
		b, _ := io.ReadAll(out.Body)
		return string(b)
	}

	if err := put(direct, "k/one", "first"); err != nil {
		t.Fatalf("first exclusive put: %v", err)
	}
	if err := put(direct, "k/one", "second"); err == nil {
		t.Fatal("weed itself took an exclusive put of an existing key; the test store must honour If-None-Match")
	}
	if err := put(proxied, "k/one", "second"); err != nil {
		t.Fatalf("an exclusive put of an existing key through the proxy: %v; the proxy must strip If-None-Match and sign again", err)
	}
	if got := read("k/one"); got != "second" {
		t.Fatalf("after the proxied put the object holds %q, want second", got)
	}
	if p.Stripped() != 1 {
		t.Fatalf("the proxy says it stripped %d requests, want 1", p.Stripped())
	}

	// A key with characters the signer escapes, copied over an existing
	// object with both conditions (If-None-Match, source e-tag) wrong.
	if err := put(direct, "k/a b+c", "old"); err != nil {
		t.Fatal(err)
	}
	if err := put(proxied, "k/a b+c", "src"); err != nil {
		t.Fatalf("an exclusive put of an existing escaped key through the proxy: %v", err)
	}
	_, err := proxied.CopyObject(ctx, &s3.CopyObjectInput{Bucket: aws.String(bucket), Key: aws.String("k/one"),
		CopySource: aws.String(bucket + "/k/a%20b%2Bc"), IfNoneMatch: aws.String("*"),
		CopySourceIfMatch: aws.String(`"00000000000000000000000000000000"`)})
	if err != nil {
		t.Fatalf("an exclusive copy through the proxy: %v", err)
	}
	if got := read("k/one"); got != "src" {
		t.Fatalf("after the proxied copy the object holds %q, want src", got)
	}
	if p.Stripped() != 3 {
		t.Fatalf("the proxy says it stripped %d requests, want 3", p.Stripped())
	}
	list, err := proxied.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: aws.String(bucket), Prefix: aws.String("k/")})
	if err != nil || len(list.Contents) != 2 {
		t.Fatalf("listing through the proxy: %v, %d keys", err, len(list.Contents))
	}
}
