package warehouse

import (
	"bytes"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/floe/floe/internal/s3test"
)

// Hardening item 5, on the real SeaweedFS STS: the keys vended for table
// "ia" list "ia/" and below, but never with the bare prefix "…/ia", which
// would also list the data and metadata file names and sizes of a sibling
// table "iab" whose name starts the same way.
func TestHardening5STSKeysCannotListSiblingTable(t *testing.T) {
	st := s3test.NewWithSTS(t)
	bucket := st.Bucket(t)
	ctx := t.Context()
	root := mustParse(t, "s3://"+bucket+"/wh")
	b, err := OpenS3(ctx, root, S3Config{Endpoint: st.Endpoint, Region: s3test.Region, PathStyle: true,
		AccessKey: st.AccessKey, SecretKey: st.SecretKey, STSRoleARN: st.RoleARN})
	if err != nil {
		t.Fatal(err)
	}
	ia := root.MustJoin("b", "ns", "ia")
	iab := root.MustJoin("b", "ns", "iab")
	admin := st.Client()
	for _, k := range []string{ia.Path() + "/metadata/00000-a.metadata.json", iab.Path() + "/metadata/00000-secret-name.metadata.json",
		iab.Path() + "/data/private.parquet"} {
		if _, err := admin.PutObject(ctx, &s3.PutObjectInput{Bucket: &bucket, Key: aws.String(k), Body: bytes.NewReader([]byte("x"))}); err != nil {
			t.Fatal(err)
		}
	}
	c, err := b.Vend(ctx, VendSTS, ia, AccessWrite)
	if err != nil {
		t.Fatalf("Vend: %v", err)
	}
	cl := s3.New(s3.Options{BaseEndpoint: aws.String(st.Endpoint), Region: s3test.Region, UsePathStyle: true, RetryMaxAttempts: 1,
		Credentials: credentials.NewStaticCredentialsProvider(c.AccessKeyID, c.SecretAccessKey, c.SessionToken)})
	list := func(prefix string) ([]string, error) {
		out, err := cl.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: &bucket, Prefix: aws.String(prefix)})
		if err != nil {
			return nil, err
		}
		var keys []string
		for _, o := range out.Contents {
			keys = append(keys, *o.Key)
		}
		return keys, nil
	}

	// Its own table lists, with the trailing slash and below it.
	for _, p := range []string{ia.Path() + "/", ia.Path() + "/metadata/"} {
		keys, err := list(p)
		if err != nil || len(keys) != 1 || !strings.HasPrefix(keys[0], ia.Path()+"/") {
			t.Errorf("list %q = %v, %v; want its one object", p, keys, err)
		}
	}
	// The bare location and anything that reaches the sibling are refused.
	for _, p := range []string{ia.Path(), ia.Path() + "b", ia.Path() + "b/", iab.Path() + "/data/"} {
		keys, err := list(p)
		if !isAccessDenied(err) {
			t.Errorf("list %q = %v, %v; want AccessDenied (the sibling table iab must stay unlisted)", p, keys, err)
		}
	}
}
