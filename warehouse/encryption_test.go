package warehouse

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/floe/floe/internal/s3test"
)

// TestDefaultEncryption: the local disk reports none; an S3 bucket reports
// what the store says of it — none until default encryption is configured,
// then AES256 — read from the real store, not assumed.
func TestDefaultEncryption(t *testing.T) {
	local, _, err := NewLocal(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if e, err := local.DefaultEncryption(t.Context()); err != nil || e.Algorithm != "" {
		t.Fatalf("local disk: %+v, %v; want none", e, err)
	}

	st := s3test.Require(t)
	bucket := st.Bucket(t)
	w, _ := newS3On(t, st, bucket)
	if e, err := w.DefaultEncryption(t.Context()); err != nil || e.Algorithm != "" {
		t.Fatalf("a bucket without default encryption: %+v, %v; want none", e, err)
	}
	if _, err := st.Client().PutBucketEncryption(t.Context(), &s3.PutBucketEncryptionInput{Bucket: aws.String(bucket),
		ServerSideEncryptionConfiguration: &types.ServerSideEncryptionConfiguration{Rules: []types.ServerSideEncryptionRule{{
			ApplyServerSideEncryptionByDefault: &types.ServerSideEncryptionByDefault{SSEAlgorithm: types.ServerSideEncryptionAes256}}}}}); err != nil {
		t.Fatalf("PutBucketEncryption on the store: %v", err)
	}
	if e, err := w.DefaultEncryption(t.Context()); err != nil || e.Algorithm != SSEAES256 {
		t.Fatalf("after PutBucketEncryption AES256: %+v, %v", e, err)
	}
	// And it is true of what floe writes without any encryption header.
	loc := mustParse(t, "s3://"+bucket+"/wh/ns/t/metadata/v1.json")
	if err := w.WriteFile(t.Context(), loc, []byte(`{}`)); err != nil {
		t.Fatal(err)
	}
	head, err := st.Client().HeadObject(t.Context(), &s3.HeadObjectInput{Bucket: aws.String(bucket), Key: aws.String("wh/ns/t/metadata/v1.json")})
	if err != nil || head.ServerSideEncryption != types.ServerSideEncryptionAes256 {
		t.Fatalf("an object floe wrote: encryption %q, %v; want AES256", head.ServerSideEncryption, err)
	}
}
