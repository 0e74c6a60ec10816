package s3tables_test

import (
	"context"
	"errors"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	sdk "github.com/aws/aws-sdk-go-v2/service/s3tables"
	"github.com/aws/aws-sdk-go-v2/service/s3tables/types"
	"github.com/aws/smithy-go"

	"github.com/floe/floe/catalog"
)

// sdkOp is one operation of the S3 Tables model called through the SDK
// against bucket "shared" (namespace "ns", table "t").
type sdkOp struct {
	name  string
	write bool
	call  func(ctx context.Context, c *sdk.Client) error
}

// allOperations calls every operation of the model once, with valid input.
func allOperations(bucketARN, tableARN string) []sdkOp {
	b, ns, tn, tarn := aws.String(bucketARN), aws.String("ns"), aws.String("t"), aws.String(tableARN)
	repl := &types.TableBucketReplicationConfiguration{Role: aws.String("r"), Rules: []types.TableBucketReplicationRule{{
		Destinations: []types.ReplicationDestination{{DestinationTableBucketARN: b}}}}}
	tableRepl := &types.TableReplicationConfiguration{Role: aws.String("r"), Rules: []types.TableReplicationRule{{
		Destinations: []types.ReplicationDestination{{DestinationTableBucketARN: b}}}}}
	enc := &types.EncryptionConfiguration{SseAlgorithm: types.SSEAlgorithmAes256}
	on := &types.TableMaintenanceConfigurationValue{Status: types.MaintenanceStatusEnabled}
	bucketOn := &types.TableBucketMaintenanceConfigurationValue{Status: types.MaintenanceStatusEnabled}
	return []sdkOp{
		{"CreateNamespace", true, func(ctx context.Context, c *sdk.Client) error {
			_, err := c.CreateNamespace(ctx, &sdk.CreateNamespaceInput{TableBucketARN: b, Namespace: []string{"other"}})
			return err
		}},
		{"CreateTable", true, func(ctx context.Context, c *sdk.Client) error {
			_, err := c.CreateTable(ctx, &sdk.CreateTableInput{TableBucketARN: b, Namespace: ns, Name: aws.String("t2"), Format: types.OpenTableFormatIceberg})
			return err
		}},
		{"CreateTableBucket", true, func(ctx context.Context, c *sdk.Client) error {
			_, err := c.CreateTableBucket(ctx, &sdk.CreateTableBucketInput{Name: aws.String("shared-two")})
			return err
		}},
		{"DeleteNamespace", true, func(ctx context.Context, c *sdk.Client) error {
			_, err := c.DeleteNamespace(ctx, &sdk.DeleteNamespaceInput{TableBucketARN: b, Namespace: ns})
			return err
		}},
		{"DeleteTable", true, func(ctx context.Context, c *sdk.Client) error {
			_, err := c.DeleteTable(ctx, &sdk.DeleteTableInput{TableBucketARN: b, Namespace: ns, Name: tn})
			return err
		}},
		{"DeleteTableBucket", true, func(ctx context.Context, c *sdk.Client) error {
			_, err := c.DeleteTableBucket(ctx, &sdk.DeleteTableBucketInput{TableBucketARN: b})
			return err
		}},
		{"DeleteTableBucketEncryption", true, func(ctx context.Context, c *sdk.Client) error {
			_, err := c.DeleteTableBucketEncryption(ctx, &sdk.DeleteTableBucketEncryptionInput{TableBucketARN: b})
			return err
		}},
		{"DeleteTableBucketMetricsConfiguration", true, func(ctx context.Context, c *sdk.Client) error {
			_, err := c.DeleteTableBucketMetricsConfiguration(ctx, &sdk.DeleteTableBucketMetricsConfigurationInput{TableBucketARN: b})
			return err
		}},
		{"DeleteTableBucketPolicy", true, func(ctx context.Context, c *sdk.Client) error {
			_, err := c.DeleteTableBucketPolicy(ctx, &sdk.DeleteTableBucketPolicyInput{TableBucketARN: b})
			return err
		}},
		{"DeleteTableBucketReplication", true, func(ctx context.Context, c *sdk.Client) error {
			_, err := c.DeleteTableBucketReplication(ctx, &sdk.DeleteTableBucketReplicationInput{TableBucketARN: b})
			return err
		}},
		{"DeleteTablePolicy", true, func(ctx context.Context, c *sdk.Client) error {
			_, err := c.DeleteTablePolicy(ctx, &sdk.DeleteTablePolicyInput{TableBucketARN: b, Namespace: ns, Name: tn})
			return err
		}},
		{"DeleteTableReplication", true, func(ctx context.Context, c *sdk.Client) error {
			_, err := c.DeleteTableReplication(ctx, &sdk.DeleteTableReplicationInput{TableArn: tarn, VersionToken: aws.String("v")})
			return err
		}},
		{"GetNamespace", false, func(ctx context.Context, c *sdk.Client) error {
			_, err := c.GetNamespace(ctx, &sdk.GetNamespaceInput{TableBucketARN: b, Namespace: ns})
			return err
		}},
		{"GetTable", false, func(ctx context.Context, c *sdk.Client) error {
			_, err := c.GetTable(ctx, &sdk.GetTableInput{TableBucketARN: b, Namespace: ns, Name: tn})
			return err
		}},
		{"GetTableBucket", false, func(ctx context.Context, c *sdk.Client) error {
			_, err := c.GetTableBucket(ctx, &sdk.GetTableBucketInput{TableBucketARN: b})
			return err
		}},
		{"GetTableBucketEncryption", false, func(ctx context.Context, c *sdk.Client) error {
			_, err := c.GetTableBucketEncryption(ctx, &sdk.GetTableBucketEncryptionInput{TableBucketARN: b})
			return err
		}},
		{"GetTableBucketMaintenanceConfiguration", false, func(ctx context.Context, c *sdk.Client) error {
			_, err := c.GetTableBucketMaintenanceConfiguration(ctx, &sdk.GetTableBucketMaintenanceConfigurationInput{TableBucketARN: b})
			return err
		}},
		{"GetTableBucketMetricsConfiguration", false, func(ctx context.Context, c *sdk.Client) error {
			_, err := c.GetTableBucketMetricsConfiguration(ctx, &sdk.GetTableBucketMetricsConfigurationInput{TableBucketARN: b})
			return err
		}},
		{"GetTableBucketPolicy", false, func(ctx context.Context, c *sdk.Client) error {
			_, err := c.GetTableBucketPolicy(ctx, &sdk.GetTableBucketPolicyInput{TableBucketARN: b})
			return err
		}},
		{"GetTableBucketReplication", false, func(ctx context.Context, c *sdk.Client) error {
			_, err := c.GetTableBucketReplication(ctx, &sdk.GetTableBucketReplicationInput{TableBucketARN: b})
			return err
		}},
		{"GetTableBucketStorageClass", false, func(ctx context.Context, c *sdk.Client) error {
			_, err := c.GetTableBucketStorageClass(ctx, &sdk.GetTableBucketStorageClassInput{TableBucketARN: b})
			return err
		}},
		{"GetTableEncryption", false, func(ctx context.Context, c *sdk.Client) error {
			_, err := c.GetTableEncryption(ctx, &sdk.GetTableEncryptionInput{TableBucketARN: b, Namespace: ns, Name: tn})
			return err
		}},
		{"GetTableMaintenanceConfiguration", false, func(ctx context.Context, c *sdk.Client) error {
			_, err := c.GetTableMaintenanceConfiguration(ctx, &sdk.GetTableMaintenanceConfigurationInput{TableBucketARN: b, Namespace: ns, Name: tn})
			return err
		}},
		{"GetTableMaintenanceJobStatus", false, func(ctx context.Context, c *sdk.Client) error {
			_, err := c.GetTableMaintenanceJobStatus(ctx, &sdk.GetTableMaintenanceJobStatusInput{TableBucketARN: b, Namespace: ns, Name: tn})
			return err
		}},
		{"GetTableMetadataLocation", false, func(ctx context.Context, c *sdk.Client) error {
			_, err := c.GetTableMetadataLocation(ctx, &sdk.GetTableMetadataLocationInput{TableBucketARN: b, Namespace: ns, Name: tn})
			return err
		}},
		{"GetTablePolicy", false, func(ctx context.Context, c *sdk.Client) error {
			_, err := c.GetTablePolicy(ctx, &sdk.GetTablePolicyInput{TableBucketARN: b, Namespace: ns, Name: tn})
			return err
		}},
		{"GetTableRecordExpirationConfiguration", false, func(ctx context.Context, c *sdk.Client) error {
			_, err := c.GetTableRecordExpirationConfiguration(ctx, &sdk.GetTableRecordExpirationConfigurationInput{TableArn: tarn})
			return err
		}},
		{"GetTableRecordExpirationJobStatus", false, func(ctx context.Context, c *sdk.Client) error {
			_, err := c.GetTableRecordExpirationJobStatus(ctx, &sdk.GetTableRecordExpirationJobStatusInput{TableArn: tarn})
			return err
		}},
		{"GetTableReplication", false, func(ctx context.Context, c *sdk.Client) error {
			_, err := c.GetTableReplication(ctx, &sdk.GetTableReplicationInput{TableArn: tarn})
			return err
		}},
		{"GetTableReplicationStatus", false, func(ctx context.Context, c *sdk.Client) error {
			_, err := c.GetTableReplicationStatus(ctx, &sdk.GetTableReplicationStatusInput{TableArn: tarn})
			return err
		}},
		{"GetTableStorageClass", false, func(ctx context.Context, c *sdk.Client) error {
			_, err := c.GetTableStorageClass(ctx, &sdk.GetTableStorageClassInput{TableBucketARN: b, Namespace: ns, Name: tn})
			return err
		}},
		{"ListNamespaces", false, func(ctx context.Context, c *sdk.Client) error {
			_, err := c.ListNamespaces(ctx, &sdk.ListNamespacesInput{TableBucketARN: b})
			return err
		}},
		{"ListTableBuckets", false, func(ctx context.Context, c *sdk.Client) error {
			_, err := c.ListTableBuckets(ctx, &sdk.ListTableBucketsInput{})
			return err
		}},
		{"ListTables", false, func(ctx context.Context, c *sdk.Client) error {
			_, err := c.ListTables(ctx, &sdk.ListTablesInput{TableBucketARN: b})
			return err
		}},
		{"ListTagsForResource", false, func(ctx context.Context, c *sdk.Client) error {
			_, err := c.ListTagsForResource(ctx, &sdk.ListTagsForResourceInput{ResourceArn: b})
			return err
		}},
		{"PutTableBucketEncryption", true, func(ctx context.Context, c *sdk.Client) error {
			_, err := c.PutTableBucketEncryption(ctx, &sdk.PutTableBucketEncryptionInput{TableBucketARN: b, EncryptionConfiguration: enc})
			return err
		}},
		{"PutTableBucketMaintenanceConfiguration", true, func(ctx context.Context, c *sdk.Client) error {
			_, err := c.PutTableBucketMaintenanceConfiguration(ctx, &sdk.PutTableBucketMaintenanceConfigurationInput{TableBucketARN: b,
				Type: types.TableBucketMaintenanceTypeIcebergUnreferencedFileRemoval, Value: bucketOn})
			return err
		}},
		{"PutTableBucketMetricsConfiguration", true, func(ctx context.Context, c *sdk.Client) error {
			_, err := c.PutTableBucketMetricsConfiguration(ctx, &sdk.PutTableBucketMetricsConfigurationInput{TableBucketARN: b})
			return err
		}},
		{"PutTableBucketPolicy", true, func(ctx context.Context, c *sdk.Client) error {
			_, err := c.PutTableBucketPolicy(ctx, &sdk.PutTableBucketPolicyInput{TableBucketARN: b, ResourcePolicy: aws.String("{}")})
			return err
		}},
		{"PutTableBucketReplication", true, func(ctx context.Context, c *sdk.Client) error {
			_, err := c.PutTableBucketReplication(ctx, &sdk.PutTableBucketReplicationInput{TableBucketARN: b, Configuration: repl})
			return err
		}},
		{"PutTableBucketStorageClass", true, func(ctx context.Context, c *sdk.Client) error {
			_, err := c.PutTableBucketStorageClass(ctx, &sdk.PutTableBucketStorageClassInput{TableBucketARN: b,
				StorageClassConfiguration: &types.StorageClassConfiguration{StorageClass: types.StorageClassStandard}})
			return err
		}},
		{"PutTableMaintenanceConfiguration", true, func(ctx context.Context, c *sdk.Client) error {
			_, err := c.PutTableMaintenanceConfiguration(ctx, &sdk.PutTableMaintenanceConfigurationInput{TableBucketARN: b, Namespace: ns, Name: tn,
				Type: types.TableMaintenanceTypeIcebergCompaction, Value: on})
			return err
		}},
		{"PutTablePolicy", true, func(ctx context.Context, c *sdk.Client) error {
			_, err := c.PutTablePolicy(ctx, &sdk.PutTablePolicyInput{TableBucketARN: b, Namespace: ns, Name: tn, ResourcePolicy: aws.String("{}")})
			return err
		}},
		{"PutTableRecordExpirationConfiguration", true, func(ctx context.Context, c *sdk.Client) error {
			_, err := c.PutTableRecordExpirationConfiguration(ctx, &sdk.PutTableRecordExpirationConfigurationInput{TableArn: tarn,
				Value: &types.TableRecordExpirationConfigurationValue{Status: types.TableRecordExpirationStatusEnabled}})
			return err
		}},
		{"PutTableReplication", true, func(ctx context.Context, c *sdk.Client) error {
			_, err := c.PutTableReplication(ctx, &sdk.PutTableReplicationInput{TableArn: tarn, Configuration: tableRepl})
			return err
		}},
		{"RenameTable", true, func(ctx context.Context, c *sdk.Client) error {
			_, err := c.RenameTable(ctx, &sdk.RenameTableInput{TableBucketARN: b, Namespace: ns, Name: tn, NewName: aws.String("t3")})
			return err
		}},
		{"TagResource", true, func(ctx context.Context, c *sdk.Client) error {
			_, err := c.TagResource(ctx, &sdk.TagResourceInput{ResourceArn: b, Tags: map[string]string{"a": "b"}})
			return err
		}},
		{"UntagResource", true, func(ctx context.Context, c *sdk.Client) error {
			_, err := c.UntagResource(ctx, &sdk.UntagResourceInput{ResourceArn: b, TagKeys: []string{"a"}})
			return err
		}},
		{"UpdateTableMetadataLocation", true, func(ctx context.Context, c *sdk.Client) error {
			_, err := c.UpdateTableMetadataLocation(ctx, &sdk.UpdateTableMetadataLocationInput{TableBucketARN: b, Namespace: ns, Name: tn,
				VersionToken: aws.String("v"), MetadataLocation: aws.String("s3://x/metadata/1.json")})
			return err
		}},
	}
}

// TestEveryRefusalTyped drives every operation of the model through the
// AWS SDK for Go v2 with three callers that must be refused — a wrong
// secret, a key scoped to another bucket, a read-only key on a write — and
// checks the SDK typed each refusal: an exception the operation's model
// does not list would reach the caller as a *smithy.GenericAPIError, which
// errors.As on the SDK's exception types cannot match (#26).
func TestEveryRefusalTyped(t *testing.T) {
	e := newTestEnv(t)
	e.seed()
	tb, err := e.store.GetTable(context.Background(), catalog.TableRef{Bucket: "shared", Namespace: []string{"ns"}, Name: "t"})
	if err != nil {
		t.Fatal(err)
	}
	ops := allOperations(arnPrefix+"bucket/shared", arnPrefix+"bucket/shared/table/"+tb.ID)
	if len(ops) != 49 {
		t.Fatalf("%d operations listed, the model has 49", len(ops))
	}
	wrong := e.rw
	wrong.SecretAccessKey = "wrong-secret-wrong-secret-wrong-secret-00"
	callers := []struct {
		name   string
		key    catalog.APIKey
		refuse func(op sdkOp) bool // whether this caller must be refused
		want   func(err error) bool
	}{
		{"wrong secret", wrong, func(sdkOp) bool { return true }, func(err error) bool {
			var fe *types.ForbiddenException
			return errors.As(err, &fe)
		}},
		{"key scoped to another bucket", e.scoped, func(op sdkOp) bool { return op.name != "ListTableBuckets" }, typedException},
		{"read-only key", e.ro, func(op sdkOp) bool { return op.write }, typedException},
	}
	for _, caller := range callers {
		c := e.client(caller.key)
		for _, op := range ops {
			if !caller.refuse(op) {
				continue
			}
			t.Run(caller.name+"/"+op.name, func(t *testing.T) {
				err := op.call(ctxT(t), c)
				if err == nil {
					t.Fatal("the operation succeeded; it must be refused")
				}
				var generic *smithy.GenericAPIError
				if errors.As(err, &generic) {
					t.Fatalf("the SDK could not type %q for %s: the operation's model does not list it (%v)", generic.Code, op.name, err)
				}
				if !caller.want(err) {
					t.Fatalf("err = %T %v", err, err)
				}
			})
		}
	}
}

// typedException: one of the SDK's modeled exceptions.
func typedException(err error) bool {
	var (
		ad *types.AccessDeniedException
		fb *types.ForbiddenException
		br *types.BadRequestException
		nf *types.NotFoundException
	)
	return errors.As(err, &ad) || errors.As(err, &fb) || errors.As(err, &br) || errors.As(err, &nf)
}
