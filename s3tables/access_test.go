package s3tables_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	sdk "github.com/aws/aws-sdk-go-v2/service/s3tables"
	"github.com/aws/aws-sdk-go-v2/service/s3tables/types"
	"github.com/aws/smithy-go"

	"github.com/floe/floe/catalog"
)

// seed makes buckets "shared" and "scoped", each with namespace "ns" and
// Iceberg table "t".
func (e *testEnv) seed() {
	e.t.Helper()
	ctx := context.Background()
	for _, b := range []string{"shared", "scoped"} {
		if _, err := e.store.CreateBucket(ctx, catalog.CreateBucketInput{Name: b}); err != nil {
			e.t.Fatal(err)
		}
		if _, err := e.store.CreateNamespace(ctx, b, []string{"ns"}, nil); err != nil {
			e.t.Fatal(err)
		}
		if _, _, err := e.store.CreateTable(ctx, catalog.CreateTableInput{TableRef: catalog.TableRef{Bucket: b, Namespace: []string{"ns"}, Name: "t"},
			Format: catalog.FormatIceberg}); err != nil {
			e.t.Fatal(err)
		}
	}
}

// TestErrors checks each refusal arrives as the SDK's typed exception and
// says what was wrong. A refusal of access is AccessDeniedException where
// the operation's model lists it and ForbiddenException (which every
// operation lists) elsewhere.
func TestErrors(t *testing.T) {
	e := newTestEnv(t)
	e.seed()
	shared, scoped := arnPrefix+"bucket/shared", arnPrefix+"bucket/scoped"
	cases := []struct {
		name     string
		call     func(ctx context.Context) error
		code     string // x-amzn-errortype the SDK saw
		typed    any    // pointer to the SDK exception type, when the op models it
		contains string
	}{
		{"missing bucket", func(ctx context.Context) error {
			_, err := e.client(e.rw).GetTableBucket(ctx, &sdk.GetTableBucketInput{TableBucketARN: aws.String(arnPrefix + "bucket/nope")})
			return err
		}, "NotFoundException", new(*types.NotFoundException), "nope"},
		{"bucket exists", func(ctx context.Context) error {
			_, err := e.client(e.rw).CreateTableBucket(ctx, &sdk.CreateTableBucketInput{Name: aws.String("shared")})
			return err
		}, "ConflictException", new(*types.ConflictException), "already exists"},
		{"bad bucket name", func(ctx context.Context) error {
			_, err := e.client(e.rw).CreateTableBucket(ctx, &sdk.CreateTableBucketInput{Name: aws.String("Bad_Name")})
			return err
		}, "BadRequestException", new(*types.BadRequestException), "lower-case letters, digits and hyphens"},
		{"bad namespace name", func(ctx context.Context) error {
			_, err := e.client(e.rw).CreateNamespace(ctx, &sdk.CreateNamespaceInput{TableBucketARN: &shared, Namespace: []string{"-x"}})
			return err
		}, "BadRequestException", new(*types.BadRequestException), "namespace"},
		{"bad table format", func(ctx context.Context) error {
			_, err := e.client(e.rw).CreateTable(ctx, &sdk.CreateTableInput{TableBucketARN: &shared, Namespace: aws.String("ns"), Name: aws.String("x"), Format: "DELTA"})
			return err
		}, "BadRequestException", new(*types.BadRequestException), "ICEBERG"},
		{"table exists", func(ctx context.Context) error {
			_, err := e.client(e.rw).CreateTable(ctx, &sdk.CreateTableInput{TableBucketARN: &shared, Namespace: aws.String("ns"), Name: aws.String("t"), Format: "ICEBERG"})
			return err
		}, "ConflictException", new(*types.ConflictException), "already exists"},
		{"namespace not empty", func(ctx context.Context) error {
			_, err := e.client(e.rw).DeleteNamespace(ctx, &sdk.DeleteNamespaceInput{TableBucketARN: &shared, Namespace: aws.String("ns")})
			return err
		}, "ConflictException", new(*types.ConflictException), ""},
		{"foreign ARN", func(ctx context.Context) error {
			_, err := e.client(e.rw).GetTableBucket(ctx, &sdk.GetTableBucketInput{TableBucketARN: aws.String("arn:aws:s3tables:us-west-2:999999999999:bucket/shared")})
			return err
		}, "BadRequestException", new(*types.BadRequestException), "--s3tables-region"},
		{"compaction target out of range", func(ctx context.Context) error {
			_, err := e.client(e.rw).PutTableMaintenanceConfiguration(ctx, &sdk.PutTableMaintenanceConfigurationInput{TableBucketARN: &shared,
				Namespace: aws.String("ns"), Name: aws.String("t"), Type: types.TableMaintenanceTypeIcebergCompaction,
				Value: &types.TableMaintenanceConfigurationValue{Status: types.MaintenanceStatusEnabled,
					Settings: &types.TableMaintenanceSettingsMemberIcebergCompaction{Value: types.IcebergCompactionSettings{TargetFileSizeMB: aws.Int32(5)}}}})
			return err
		}, "BadRequestException", new(*types.BadRequestException), "between 64 and 512"},
		{"read-only key writes", func(ctx context.Context) error {
			_, err := e.client(e.ro).CreateNamespace(ctx, &sdk.CreateNamespaceInput{TableBucketARN: &shared, Namespace: []string{"other"}})
			return err
		}, "ForbiddenException", new(*types.ForbiddenException), "read-only"},
		{"read-only key deletes a table", func(ctx context.Context) error {
			_, err := e.client(e.ro).DeleteTable(ctx, &sdk.DeleteTableInput{TableBucketARN: &shared, Namespace: aws.String("ns"), Name: aws.String("t")})
			return err
		}, "ForbiddenException", new(*types.ForbiddenException), "read-only"},
		{"scoped key reads another bucket", func(ctx context.Context) error {
			_, err := e.client(e.scoped).GetTableBucket(ctx, &sdk.GetTableBucketInput{TableBucketARN: &shared})
			return err
		}, "AccessDeniedException", new(*types.AccessDeniedException), `limited to bucket "scoped"`},
		{"scoped key lists another bucket's tables", func(ctx context.Context) error {
			_, err := e.client(e.scoped).GetTable(ctx, &sdk.GetTableInput{TableBucketARN: &shared, Namespace: aws.String("ns"), Name: aws.String("t")})
			return err
		}, "AccessDeniedException", new(*types.AccessDeniedException), "limited"},
		{"scoped key creates another bucket", func(ctx context.Context) error {
			_, err := e.client(e.scoped).CreateTableBucket(ctx, &sdk.CreateTableBucketInput{Name: aws.String("elsewhere")})
			return err
		}, "ForbiddenException", new(*types.ForbiddenException), "limited"},
		{"a policy with no statement", func(ctx context.Context) error {
			_, err := e.client(e.rw).PutTableBucketPolicy(ctx, &sdk.PutTableBucketPolicyInput{TableBucketARN: &shared, ResourcePolicy: aws.String("{}")})
			return err
		}, "BadRequestException", new(*types.BadRequestException), "no statements"},
		{"no policy to read", func(ctx context.Context) error {
			_, err := e.client(e.rw).GetTableBucketPolicy(ctx, &sdk.GetTableBucketPolicyInput{TableBucketARN: &shared})
			return err
		}, "NotFoundException", new(*types.NotFoundException), "has no resource policy"},
		{"encryption is not managed", func(ctx context.Context) error {
			_, err := e.client(e.rw).PutTableBucketEncryption(ctx, &sdk.PutTableBucketEncryptionInput{TableBucketARN: &shared,
				EncryptionConfiguration: &types.EncryptionConfiguration{SseAlgorithm: types.SSEAlgorithmAes256}})
			return err
		}, "BadRequestException", new(*types.BadRequestException), "does not encrypt at rest"},
		{"replication is not managed", func(ctx context.Context) error {
			_, err := e.client(e.rw).PutTableBucketReplication(ctx, &sdk.PutTableBucketReplicationInput{TableBucketARN: &shared,
				Configuration: &types.TableBucketReplicationConfiguration{Role: aws.String("r"), Rules: []types.TableBucketReplicationRule{{
					Destinations: []types.ReplicationDestination{{DestinationTableBucketARN: &scoped}}}}}})
			return err
		}, "BadRequestException", new(*types.BadRequestException), "does not manage replication"},
		{"a table tag key too long", func(ctx context.Context) error {
			tb, err := e.store.GetTable(ctx, catalog.TableRef{Bucket: "shared", Namespace: []string{"ns"}, Name: "t"})
			if err != nil {
				return err
			}
			_, err = e.client(e.rw).TagResource(ctx, &sdk.TagResourceInput{ResourceArn: aws.String(shared + "/table/" + tb.ID),
				Tags: map[string]string{strings.Repeat("k", 129): "b"}})
			return err
		}, "BadRequestException", new(*types.BadRequestException), "a tag key is 1–128 characters"},
		{"tags on a table that is not there", func(ctx context.Context) error {
			_, err := e.client(e.rw).ListTagsForResource(ctx, &sdk.ListTagsForResourceInput{ResourceArn: aws.String(shared + "/table/7d1c0c4e-4b7e-4b8e-9f39-3a5f1f9c2b11")})
			return err
		}, "NotFoundException", new(*types.NotFoundException), "no table has the ARN"},
		{"read-only key tags", func(ctx context.Context) error {
			_, err := e.client(e.ro).TagResource(ctx, &sdk.TagResourceInput{ResourceArn: &shared, Tags: map[string]string{"a": "b"}})
			return err
		}, "ForbiddenException", new(*types.ForbiddenException), "read-only"},
		{"tampered signature", func(ctx context.Context) error {
			_, err := e.client(e.rw, func(o *sdk.Options) { o.HTTPSignerV4 = tamperSigner{} }).ListTableBuckets(ctx, &sdk.ListTableBucketsInput{})
			return err
		}, "ForbiddenException", new(*types.ForbiddenException), "signature does not match"},
		{"client clock 20 minutes slow", func(ctx context.Context) error {
			_, err := e.client(e.rw, func(o *sdk.Options) { o.HTTPSignerV4 = shiftedSigner{-20 * time.Minute} }).ListTableBuckets(ctx, &sdk.ListTableBucketsInput{})
			return err
		}, "ForbiddenException", new(*types.ForbiddenException), "correct the client's clock"},
		{"client clock 20 minutes fast", func(ctx context.Context) error {
			_, err := e.client(e.rw, func(o *sdk.Options) { o.HTTPSignerV4 = shiftedSigner{20 * time.Minute} }).ListTableBuckets(ctx, &sdk.ListTableBucketsInput{})
			return err
		}, "ForbiddenException", new(*types.ForbiddenException), "correct the client's clock"},
		{"wrong secret", func(ctx context.Context) error {
			k := e.rw
			k.SecretAccessKey = strings.Repeat("x", 40)
			_, err := e.client(k).ListTableBuckets(ctx, &sdk.ListTableBucketsInput{})
			return err
		}, "ForbiddenException", new(*types.ForbiddenException), "signature does not match"},
		{"unknown access key", func(ctx context.Context) error {
			k := e.rw
			k.AccessKeyID = "FLOEAAAAAAAAAAAAAAAA"
			_, err := e.client(k).ListTableBuckets(ctx, &sdk.ListTableBucketsInput{})
			return err
		}, "ForbiddenException", new(*types.ForbiddenException), "unknown"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.call(ctxT(t))
			var api smithy.APIError
			if !errors.As(err, &api) {
				t.Fatalf("err = %v, want an API error %s", err, tc.code)
			}
			if api.ErrorCode() != tc.code {
				t.Fatalf("error code = %s (%v), want %s", api.ErrorCode(), err, tc.code)
			}
			if !strings.Contains(api.ErrorMessage(), tc.contains) {
				t.Fatalf("message %q does not say %q", api.ErrorMessage(), tc.contains)
			}
			if tc.typed != nil && !errors.As(err, tc.typed) {
				t.Fatalf("err = %T %v, not the SDK's typed %T", err, err, tc.typed)
			}
		})
	}
	// Nothing refused was stored.
	for _, b := range []string{"Bad_Name", "elsewhere"} {
		if _, err := e.store.GetBucket(context.Background(), b); err == nil {
			t.Errorf("refused bucket %q exists", b)
		}
	}
}

// TestScopedKeyReachesItsBucket: the same scoped key that is refused
// elsewhere works on its own bucket, and lists only it.
func TestScopedKeyReachesItsBucket(t *testing.T) {
	e := newTestEnv(t)
	e.seed()
	c := e.client(e.scoped)
	ctx := ctxT(t)
	lb, err := c.ListTableBuckets(ctx, &sdk.ListTableBucketsInput{})
	if err != nil || len(lb.TableBuckets) != 1 || aws.ToString(lb.TableBuckets[0].Name) != "scoped" {
		t.Fatalf("ListTableBuckets with a scoped key = %+v, %v", lb, err)
	}
	if _, err := c.CreateNamespace(ctx, &sdk.CreateNamespaceInput{TableBucketARN: aws.String(arnPrefix + "bucket/scoped"), Namespace: []string{"mine"}}); err != nil {
		t.Fatalf("CreateNamespace in its own bucket: %v", err)
	}
	ro := e.client(e.ro)
	if _, err := ro.GetTable(ctx, &sdk.GetTableInput{TableBucketARN: aws.String(arnPrefix + "bucket/shared"), Namespace: aws.String("ns"), Name: aws.String("t")}); err != nil {
		t.Fatalf("read-only key reads: %v", err)
	}
}
