package warehouse

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/floe/floe/internal/s3test"
)

// TestSTSVendScopedKeys runs --vend-credentials sts against the real
// SeaweedFS STS: keys vended for one table read, write, list and delete
// that table's prefix and are refused on another table's prefix and on the
// bucket as a whole.
func TestSTSVendScopedKeys(t *testing.T) {
	st := s3test.NewWithSTS(t)
	bucket := st.Bucket(t)
	ctx := t.Context()
	root := mustParse(t, "s3://"+bucket+"/wh")
	b, err := OpenS3(ctx, root, S3Config{Endpoint: st.Endpoint, Region: s3test.Region, PathStyle: true,
		AccessKey: st.AccessKey, SecretKey: st.SecretKey, STSRoleARN: st.RoleARN})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.CheckSTS(ctx); err != nil {
		t.Fatalf("CheckSTS: %v", err)
	}
	mine := root.MustJoin("b", "ns", "mine.lance")
	other := root.MustJoin("b", "ns", "other.lance")
	// The other table has data floe wrote, so a refusal is a refusal and
	// not a missing object.
	admin := st.Client()
	otherKey := other.Path() + "/data/x"
	if _, err := admin.PutObject(ctx, &s3.PutObjectInput{Bucket: &bucket, Key: &otherKey, Body: bytes.NewReader([]byte("theirs"))}); err != nil {
		t.Fatal(err)
	}

	before := time.Now()
	c, err := b.Vend(ctx, VendSTS, mine, AccessWrite)
	if err != nil {
		t.Fatalf("Vend: %v", err)
	}
	if c.SessionToken == "" || c.Expires.Before(before.Add(stsSessionDuration/2)) {
		t.Fatalf("vended keys %+v: want a session token and about an hour of life", c)
	}
	if c.AccessKeyID == st.AccessKey {
		t.Fatal("sts handed out floe's own access key")
	}
	cl := s3.New(s3.Options{BaseEndpoint: aws.String(st.Endpoint), Region: s3test.Region, UsePathStyle: true, RetryMaxAttempts: 1,
		Credentials: credentials.NewStaticCredentialsProvider(c.AccessKeyID, c.SecretAccessKey, c.SessionToken)})

	mineKey := mine.Path() + "/data/f1"
	steps := []struct {
		name    string
		do      func() error
		allowed bool
	}{
		{"put in own table", func() error {
			_, err := cl.PutObject(ctx, &s3.PutObjectInput{Bucket: &bucket, Key: &mineKey, Body: bytes.NewReader([]byte("mine"))})
			return err
		}, true},
		{"get in own table", func() error {
			_, err := cl.GetObject(ctx, &s3.GetObjectInput{Bucket: &bucket, Key: &mineKey})
			return err
		}, true},
		{"list own table", func() error {
			_, err := cl.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: &bucket, Prefix: aws.String(mine.Path() + "/")})
			return err
		}, true},
		{"get in another table", func() error {
			_, err := cl.GetObject(ctx, &s3.GetObjectInput{Bucket: &bucket, Key: &otherKey})
			return err
		}, false},
		{"put in another table", func() error {
			k := other.Path() + "/data/y"
			_, err := cl.PutObject(ctx, &s3.PutObjectInput{Bucket: &bucket, Key: &k, Body: bytes.NewReader([]byte("intruder"))})
			return err
		}, false},
		{"delete in another table", func() error {
			_, err := cl.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: &bucket, Key: &otherKey})
			return err
		}, false},
		{"list another table", func() error {
			_, err := cl.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: &bucket, Prefix: aws.String(other.Path() + "/")})
			return err
		}, false},
		{"list the whole bucket", func() error {
			_, err := cl.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: &bucket})
			return err
		}, false},
		{"put beside the table with the same name start", func() error {
			k := mine.Path() + "x/data/f"
			_, err := cl.PutObject(ctx, &s3.PutObjectInput{Bucket: &bucket, Key: &k, Body: bytes.NewReader([]byte("sibling"))})
			return err
		}, false},
		{"delete in own table", func() error {
			_, err := cl.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: &bucket, Key: &mineKey})
			return err
		}, true},
	}
	for _, s := range steps {
		err := s.do()
		t.Logf("%s: %v", s.name, err)
		if s.allowed && err != nil {
			t.Errorf("%s: refused: %v", s.name, err)
		}
		if !s.allowed && !isAccessDenied(err) {
			t.Errorf("%s: want AccessDenied, got %v", s.name, err)
		}
	}
	if got, err := admin.GetObject(ctx, &s3.GetObjectInput{Bucket: &bucket, Key: &otherKey}); err != nil {
		t.Fatalf("the other table's object is gone: %v", err)
	} else {
		got.Body.Close()
	}

	// Cached: the same prefix gets the same keys; another prefix its own.
	again, err := b.Vend(ctx, VendSTS, mine, AccessWrite)
	if err != nil || again.AccessKeyID != c.AccessKeyID {
		t.Errorf("second Vend for the same table = %v, %v; want the cached keys", again, err)
	}
	theirs, err := b.Vend(ctx, VendSTS, other, AccessWrite)
	if err != nil || theirs.AccessKeyID == c.AccessKeyID {
		t.Errorf("Vend for another table = %v, %v; want keys of its own", theirs, err)
	}
	// With less than a quarter of the lifetime left, floe asks again.
	life := c.Expires.Sub(before)
	b.sts.now = func() time.Time { return c.Expires.Add(-life/stsRefreshFraction + time.Minute) }
	renewed, err := b.Vend(ctx, VendSTS, mine, AccessWrite)
	b.sts.now = time.Now
	if err != nil || renewed.AccessKeyID == c.AccessKeyID {
		t.Errorf("Vend near expiry = %v, %v; want fresh keys", renewed, err)
	}

	// What the catalogs hand out carries the keys and their expiry.
	lance := b.LanceStorageOptions(c)
	if lance["aws_session_token"] != c.SessionToken || lance["expires_at_millis"] != strconv.FormatInt(c.Expires.UnixMilli(), 10) {
		t.Errorf("Lance storage_options = %v", lance)
	}
	if ice := b.IcebergConfig(c); ice["s3.session-token"] != c.SessionToken || ice["s3.access-key-id"] != c.AccessKeyID {
		t.Errorf("Iceberg config = %v", ice)
	}
}

func isAccessDenied(err error) bool {
	return err != nil && (strings.Contains(err.Error(), "AccessDenied") || strings.Contains(err.Error(), "StatusCode: 403"))
}

// A role floe may not assume fails the start-up check with a sentence
// naming the role.
func TestSTSCheckRefusesUnassumableRole(t *testing.T) {
	st := s3test.NewWithSTS(t)
	bucket := st.Bucket(t)
	ctx := t.Context()
	for _, c := range []struct {
		name, role, want string
	}{
		{"no role", "", "--s3-sts-role-arn"},
		{"untrusted role", "arn:aws:iam::000000000000:role/nobody", "role/nobody"},
	} {
		t.Run(c.name, func(t *testing.T) {
			b, err := OpenS3(ctx, mustParse(t, "s3://"+bucket+"/wh"), S3Config{Endpoint: st.Endpoint, Region: s3test.Region, PathStyle: true,
				AccessKey: st.AccessKey, SecretKey: st.SecretKey, STSRoleARN: c.role})
			if err != nil {
				t.Fatal(err)
			}
			err = b.CheckSTS(ctx)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("CheckSTS = %v; want a sentence naming %q", err, c.want)
			}
			if _, err := b.Vend(ctx, VendSTS, mustParse(t, "s3://"+bucket+"/wh/b/ns/t"), AccessWrite); !errors.Is(err, ErrPermission) {
				t.Errorf("Vend = %v; want ErrPermission", err)
			}
		})
	}
}

func TestSessionPolicy(t *testing.T) {
	cases := []struct {
		loc        string
		objects    string
		listPrefix []string
	}{
		{"s3://bkt/wh/b/ns/t.lance", "arn:aws:s3:::bkt/wh/b/ns/t.lance/*", []string{"wh/b/ns/t.lance/", "wh/b/ns/t.lance/*"}},
		{"s3://bkt/t", "arn:aws:s3:::bkt/t/*", []string{"t/", "t/*"}},
	}
	for _, c := range cases {
		t.Run(c.loc, func(t *testing.T) {
			p, err := sessionPolicy(mustParse(t, c.loc), AccessWrite)
			if err != nil {
				t.Fatal(err)
			}
			var doc policyDocument
			if err := json.Unmarshal([]byte(p), &doc); err != nil {
				t.Fatal(err)
			}
			if len(doc.Statement) != 2 || doc.Statement[0].Resource[0] != c.objects ||
				strings.Join(doc.Statement[1].Condition["StringLike"]["s3:prefix"], ",") != strings.Join(c.listPrefix, ",") {
				t.Errorf("policy %s", p)
			}
			for _, a := range doc.Statement[0].Action {
				if a == "s3:*" || strings.Contains(a, "Bucket") {
					t.Errorf("object statement grants %s", a)
				}
			}
		})
	}
	if _, err := sessionPolicy(mustParse(t, "s3://bkt"), AccessWrite); err == nil {
		t.Error("a bucket-wide location got a session policy")
	}
}

// The cache stays under its cap: stale keys go first, then those that
// expire soonest.
func TestSTSCacheBounded(t *testing.T) {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	v := newSTSVendor(nil, "r")
	v.now = func() time.Time { return now }
	done := make(chan struct{})
	close(done)
	entry := func(issued time.Time) *stsEntry {
		return &stsEntry{done: done, issued: issued, creds: &Credentials{Expires: issued.Add(stsSessionDuration)}}
	}
	for i := range stsCacheEntries {
		v.entries["fresh"+strconv.Itoa(i)] = entry(now.Add(-time.Duration(i) * time.Second))
	}
	v.entries["stale"] = entry(now.Add(-stsSessionDuration))
	v.makeRoomLocked()
	if len(v.entries) >= stsCacheEntries {
		t.Fatalf("%d entries after making room; cap %d", len(v.entries), stsCacheEntries)
	}
	if _, ok := v.entries["stale"]; ok {
		t.Error("a stale entry survived")
	}
	if _, ok := v.entries["fresh"+strconv.Itoa(stsCacheEntries-1)]; ok {
		t.Error("the entry expiring soonest survived")
	}
	if _, ok := v.entries["fresh0"]; !ok {
		t.Error("the newest entry was evicted")
	}
}
