package s3test

import (
	"bytes"
	"errors"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go"
)

func TestMain(m *testing.M) { Main(m) }

// The binary the cache holds must be the one tools/weed pins.
func TestVersionMatchesToolsModule(t *testing.T) {
	b, err := os.ReadFile("../../tools/weed/go.mod")
	if err != nil {
		t.Fatal(err)
	}
	want := "github.com/seaweedfs/seaweedfs " + WeedVersion
	if !strings.Contains(string(b), want) {
		t.Fatalf("tools/weed/go.mod does not require %q; update WeedVersion with it", want)
	}
}

func TestWeedPathHonoursEnv(t *testing.T) {
	t.Setenv("FLOE_WEED", "/nonexistent/weed")
	if _, err := weedPath(); err == nil || !strings.Contains(err.Error(), "FLOE_WEED") {
		t.Fatalf("weedPath with a missing FLOE_WEED: %v, want an error naming FLOE_WEED", err)
	}
	t.Setenv("FLOE_WEED", "")
	t.Setenv("FLOE_CACHE", t.TempDir())
	if _, err := weedPath(); !errors.Is(err, errNoWeed) {
		t.Fatalf("weedPath with an empty cache: %v, want errNoWeed", err)
	}
}

// The store is real: a signed PUT lands, a wrong key is refused, a
// conditional create loses to an existing object, and a restart keeps data.
func TestStoreIsReal(t *testing.T) {
	s := New(t)
	ctx := t.Context()
	bucket := s.Bucket(t)
	c := s.Client()

	put := func(key, body string, exclusive bool) error {
		in := &s3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String(key), Body: strings.NewReader(body)}
		if exclusive {
			in.IfNoneMatch = aws.String("*")
		}
		_, err := c.PutObject(ctx, in)
		return err
	}
	if err := put("a/b.txt", "hello", true); err != nil {
		t.Fatalf("first exclusive put: %v", err)
	}
	err := put("a/b.txt", "again", true)
	var api smithy.APIError
	if !errors.As(err, &api) || api.ErrorCode() != "PreconditionFailed" {
		t.Fatalf("second exclusive put: %v, want PreconditionFailed", err)
	}

	bad := &Store{Endpoint: s.Endpoint, AccessKey: s.AccessKey, SecretKey: "wrong"}
	if _, err := bad.Client().ListBuckets(ctx, &s3.ListBucketsInput{}); err == nil {
		t.Fatal("a wrong secret key was accepted")
	}

	s.Stop()
	if _, err := c.ListBuckets(ctx, &s3.ListBucketsInput{}); err == nil {
		t.Fatal("a stopped store answered")
	}
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	out, err := c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String("a/b.txt")})
	if err != nil {
		t.Fatalf("get after restart: %v", err)
	}
	defer out.Body.Close()
	got, _ := io.ReadAll(out.Body)
	if !bytes.Equal(got, []byte("hello")) {
		t.Fatalf("after restart the object holds %q, want %q", got, "hello")
	}
}
