package warehouse

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/floe/floe/internal/s3test"
)

// TestSTSKeysFollowTheAccess (#22), on SeaweedFS's real STS: keys vended
// for a reader get and list their table's objects and nothing else — no
// put, no delete, no multipart upload —, a writer's keys of the same table
// also put and delete, and neither reaches another table.
func TestSTSKeysFollowTheAccess(t *testing.T) {
	st := s3test.NewWithSTS(t)
	bucket := st.Bucket(t)
	ctx := t.Context()
	root := mustParse(t, "s3://"+bucket+"/wh")
	b, err := OpenS3(ctx, root, S3Config{Endpoint: st.Endpoint, Region: s3test.Region, PathStyle: true,
		AccessKey: st.AccessKey, SecretKey: st.SecretKey, STSRoleARN: st.RoleARN})
	if err != nil {
		t.Fatal(err)
	}
	mine, other := root.MustJoin("b", "ns", "mine.lance"), root.MustJoin("b", "ns", "other.lance")
	admin := st.Client()
	mineKey, otherKey := mine.Path()+"/data/f1", other.Path()+"/data/x"
	for _, k := range []string{mineKey, otherKey} {
		if _, err := admin.PutObject(ctx, &s3.PutObjectInput{Bucket: &bucket, Key: aws.String(k), Body: bytes.NewReader([]byte("data"))}); err != nil {
			t.Fatal(err)
		}
	}
	client := func(access Access) *s3.Client {
		t.Helper()
		c, err := b.Vend(ctx, VendSTS, mine, access)
		if err != nil {
			t.Fatalf("Vend %s: %v", access, err)
		}
		return s3.New(s3.Options{BaseEndpoint: aws.String(st.Endpoint), Region: s3test.Region, UsePathStyle: true, RetryMaxAttempts: 1,
			Credentials: credentials.NewStaticCredentialsProvider(c.AccessKeyID, c.SecretAccessKey, c.SessionToken)})
	}
	reader, writer := client(AccessRead), client(AccessWrite)
	get := func(cl *s3.Client, key string) error {
		out, err := cl.GetObject(ctx, &s3.GetObjectInput{Bucket: &bucket, Key: aws.String(key)})
		if err == nil {
			out.Body.Close()
		}
		return err
	}
	put := func(cl *s3.Client, key string) error {
		_, err := cl.PutObject(ctx, &s3.PutObjectInput{Bucket: &bucket, Key: aws.String(key), Body: bytes.NewReader([]byte("w"))})
		return err
	}
	del := func(cl *s3.Client, key string) error {
		_, err := cl.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: &bucket, Key: aws.String(key)})
		return err
	}
	list := func(cl *s3.Client, prefix string) error {
		_, err := cl.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: &bucket, Prefix: aws.String(prefix)})
		return err
	}
	multipart := func(cl *s3.Client, key string) error {
		_, err := cl.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: &bucket, Key: aws.String(key)})
		return err
	}
	for _, s := range []struct {
		name    string
		err     error
		allowed bool
	}{
		{"reader gets its table's object", get(reader, mineKey), true},
		{"reader lists its table", list(reader, mine.Path()+"/"), true},
		{"reader puts", put(reader, mine.Path()+"/data/new"), false},
		{"reader overwrites", put(reader, mineKey), false},
		{"reader starts a multipart upload", multipart(reader, mine.Path()+"/data/big"), false},
		{"reader deletes", del(reader, mineKey), false},
		{"reader gets another table's object", get(reader, otherKey), false},
		{"reader lists another table", list(reader, other.Path()+"/"), false},
		{"writer puts", put(writer, mine.Path()+"/data/new"), true},
		{"writer gets", get(writer, mine.Path()+"/data/new"), true},
		{"writer puts in another table", put(writer, other.Path()+"/data/y"), false},
		{"writer deletes in another table", del(writer, otherKey), false},
		{"writer deletes its own", del(writer, mine.Path()+"/data/new"), true},
	} {
		if s.allowed && s.err != nil {
			t.Errorf("%s: refused: %v", s.name, s.err)
		}
		if !s.allowed && !isAccessDenied(s.err) {
			t.Errorf("%s: %v, want AccessDenied", s.name, s.err)
		}
	}
	if err := get(admin, mineKey); err != nil {
		t.Errorf("the reader's refused delete removed the object: %v", err)
	}
	// Cached per access: a reader never gets a writer's keys.
	r2, _ := b.Vend(ctx, VendSTS, mine, AccessRead)
	w2, _ := b.Vend(ctx, VendSTS, mine, AccessWrite)
	if r2 == nil || w2 == nil || r2.AccessKeyID == w2.AccessKeyID {
		t.Errorf("reader and writer share keys: %+v %+v", r2, w2)
	}
}

// TestWildcardLocationsGetNoKeys: the finding — keys vended for
// …/a*.lance read, listed and deleted …/ab.lance — cannot happen: a
// location whose key holds *, ? or $ gets no session policy (and the
// catalog never records one, CheckTablePlacement).
func TestWildcardLocationsGetNoKeys(t *testing.T) {
	root := mustParse(t, "s3://bkt/wh")
	for _, name := range []string{"a*.lance", "a$b", "a${aws:username}"} {
		loc := root.MustJoin("b", "ns", name)
		for _, access := range []Access{AccessRead, AccessWrite} {
			if _, err := sessionPolicy(loc, access); !errors.Is(err, ErrBadLocation) {
				t.Errorf("sessionPolicy(%s, %s) = %v, want ErrBadLocation", loc, access, err)
			}
		}
		if err := CheckTablePlacement(root.MustJoin("b"), loc); !errors.Is(err, ErrBadLocation) || !strings.Contains(err.Error(), "wildcard") {
			t.Errorf("CheckTablePlacement(%s) = %v, want a refusal naming the wildcard", loc, err)
		}
	}
	// A local warehouse vends nothing: its paths are not policies.
	local := mustParse(t, "file:///wh")
	if err := CheckTablePlacement(local.MustJoin("b"), local.MustJoin("b", "ns", "a$b")); err != nil {
		t.Errorf("a local path with $ refused: %v", err)
	}
}

// TestSessionPolicyByAccess: a reader's policy holds GetObject and the
// prefix-limited ListBucket only; a writer's adds put, delete and
// multipart uploads.
func TestSessionPolicyByAccess(t *testing.T) {
	loc := mustParse(t, "s3://bkt/wh/b/ns/t.lance")
	actions := func(access Access) []string {
		p, err := sessionPolicy(loc, access)
		if err != nil {
			t.Fatal(err)
		}
		var doc policyDocument
		if err := json.Unmarshal([]byte(p), &doc); err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, s := range doc.Statement {
			out = append(out, s.Action...)
		}
		slices.Sort(out)
		return out
	}
	if got := actions(AccessRead); !slices.Equal(got, []string{"s3:GetObject", "s3:ListBucket"}) {
		t.Errorf("reader's actions %v", got)
	}
	if got := actions(AccessWrite); !slices.Contains(got, "s3:PutObject") || !slices.Contains(got, "s3:DeleteObject") {
		t.Errorf("writer's actions %v", got)
	}
	if _, err := sessionPolicy(loc, ""); err == nil {
		t.Error("a policy for no access")
	}
}

// TestStaticKeysWithheldFromReaders: floe's own keys cannot be scoped, so
// a reader gets none and the sentence why; a writer gets them.
func TestStaticKeysWithheldFromReaders(t *testing.T) {
	ctx := t.Context()
	root := mustParse(t, "s3://bkt/wh")
	b, err := OpenS3(ctx, root, S3Config{Endpoint: "http://127.0.0.1:8333", Region: "eu-1", PathStyle: true, AccessKey: "AK", SecretKey: "SK"})
	if err != nil {
		t.Fatal(err)
	}
	ca := ClientAccess{S3: b, Mode: VendStatic}
	loc := root.MustJoin("b", "ns", "t.lance").String()
	opts, why, err := ca.LanceStorageOptions(ctx, loc, AccessRead, nil)
	if err != nil || opts["aws_access_key_id"] != "" || why != WithheldStatic || opts["aws_endpoint"] == "" {
		t.Errorf("reader: %v %q %v; want the endpoint, no keys and the reason", opts, why, err)
	}
	cfg, why, err := ca.IcebergConfig(ctx, loc, AccessRead, true)
	if err != nil || cfg["s3.access-key-id"] != "" || why != WithheldStatic {
		t.Errorf("Iceberg reader: %v %q %v", cfg, why, err)
	}
	opts, why, err = ca.LanceStorageOptions(ctx, loc, AccessWrite, nil)
	if err != nil || opts["aws_access_key_id"] != "AK" || why != "" {
		t.Errorf("writer: %v %q %v; want floe's keys", opts, why, err)
	}
}
