package s3tables_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	sdk "github.com/aws/aws-sdk-go-v2/service/s3tables"
	"github.com/aws/aws-sdk-go-v2/service/s3tables/types"

	"github.com/floe/floe/fault"
	"github.com/floe/floe/s3tables"
)

const arnPrefix = "arn:aws:s3tables:" + testRegion + ":" + testAccount + ":"

// TestSDKOperations drives every managed operation through the real SDK, in
// the order an operator would: bucket, namespace, tables, metadata, rename,
// maintenance, job status, then delete everything again.
func TestSDKOperations(t *testing.T) {
	e := newTestEnv(t)
	c := e.client(e.rw)
	ctx := ctxT(t)

	cb, err := c.CreateTableBucket(ctx, &sdk.CreateTableBucketInput{Name: aws.String("analytics"), Tags: map[string]string{"team": "data"}})
	if err != nil {
		t.Fatalf("CreateTableBucket: %v", err)
	}
	barn := aws.ToString(cb.Arn)
	if barn != arnPrefix+"bucket/analytics" {
		t.Fatalf("bucket ARN = %q", barn)
	}
	gb, err := c.GetTableBucket(ctx, &sdk.GetTableBucketInput{TableBucketARN: &barn})
	if err != nil {
		t.Fatalf("GetTableBucket: %v", err)
	}
	if aws.ToString(gb.Name) != "analytics" || aws.ToString(gb.OwnerAccountId) != testAccount || gb.CreatedAt == nil ||
		time.Since(*gb.CreatedAt) > time.Hour || aws.ToString(gb.TableBucketId) == "" || gb.Type != types.TableBucketTypeCustomer {
		t.Fatalf("GetTableBucket = %+v", gb)
	}
	lb, err := c.ListTableBuckets(ctx, &sdk.ListTableBucketsInput{})
	if err != nil || len(lb.TableBuckets) != 1 || aws.ToString(lb.TableBuckets[0].Arn) != barn {
		t.Fatalf("ListTableBuckets = %+v, %v", lb, err)
	}
	tags, err := c.ListTagsForResource(ctx, &sdk.ListTagsForResourceInput{ResourceArn: &barn})
	if err != nil || tags.Tags["team"] != "data" {
		t.Fatalf("ListTagsForResource = %+v, %v", tags, err)
	}
	if _, err := c.TagResource(ctx, &sdk.TagResourceInput{ResourceArn: &barn, Tags: map[string]string{"env": "prod", "cost": "42"}}); err != nil {
		t.Fatalf("TagResource: %v", err)
	}
	if _, err := c.UntagResource(ctx, &sdk.UntagResourceInput{ResourceArn: &barn, TagKeys: []string{"team", "cost"}}); err != nil {
		t.Fatalf("UntagResource: %v", err)
	}
	if tags, err = c.ListTagsForResource(ctx, &sdk.ListTagsForResourceInput{ResourceArn: &barn}); err != nil || len(tags.Tags) != 1 || tags.Tags["env"] != "prod" {
		t.Fatalf("tags after tag and untag = %+v, %v", tags, err)
	}

	cn, err := c.CreateNamespace(ctx, &sdk.CreateNamespaceInput{TableBucketARN: &barn, Namespace: []string{"sales"}})
	if err != nil || len(cn.Namespace) != 1 || cn.Namespace[0] != "sales" || aws.ToString(cn.TableBucketARN) != barn {
		t.Fatalf("CreateNamespace = %+v, %v", cn, err)
	}
	gn, err := c.GetNamespace(ctx, &sdk.GetNamespaceInput{TableBucketARN: &barn, Namespace: aws.String("sales")})
	if err != nil || gn.Namespace[0] != "sales" || aws.ToString(gn.TableBucketId) != aws.ToString(gb.TableBucketId) {
		t.Fatalf("GetNamespace = %+v, %v", gn, err)
	}
	ln, err := c.ListNamespaces(ctx, &sdk.ListNamespacesInput{TableBucketARN: &barn})
	if err != nil || len(ln.Namespaces) != 1 || ln.Namespaces[0].Namespace[0] != "sales" {
		t.Fatalf("ListNamespaces = %+v, %v", ln, err)
	}

	ice, err := c.CreateTable(ctx, &sdk.CreateTableInput{TableBucketARN: &barn, Namespace: aws.String("sales"),
		Name: aws.String("orders"), Format: types.OpenTableFormatIceberg})
	if err != nil {
		t.Fatalf("CreateTable ICEBERG: %v", err)
	}
	if !strings.HasPrefix(aws.ToString(ice.TableARN), barn+"/table/") || aws.ToString(ice.VersionToken) == "" {
		t.Fatalf("CreateTable = %+v", ice)
	}
	// A bucket made through this API without a format is an Iceberg
	// bucket, as AWS makes them: it refuses a Lance table.
	_, err = c.CreateTable(ctx, &sdk.CreateTableInput{TableBucketARN: &barn, Namespace: aws.String("sales"),
		Name: aws.String("vectors"), Format: types.OpenTableFormat("LANCE")})
	var conflictErr *types.ConflictException
	if !errors.As(err, &conflictErr) {
		t.Fatalf("CreateTable LANCE in a bucket made without a format: err = %v, want ConflictException", err)
	}
	lance, err := c.CreateTable(ctx, &sdk.CreateTableInput{TableBucketARN: &barn, Namespace: aws.String("sales"),
		Name: aws.String("embeddings"), Format: types.OpenTableFormatIceberg})
	if err != nil {
		t.Fatalf("CreateTable embeddings: %v", err)
	}

	gt, err := c.GetTable(ctx, &sdk.GetTableInput{TableBucketARN: &barn, Namespace: aws.String("sales"), Name: aws.String("orders")})
	if err != nil || gt.Format != types.OpenTableFormatIceberg || aws.ToString(gt.TableARN) != aws.ToString(ice.TableARN) ||
		!strings.HasPrefix(aws.ToString(gt.WarehouseLocation), "file://") {
		t.Fatalf("GetTable by name = %+v, %v", gt, err)
	}
	byARN, err := c.GetTable(ctx, &sdk.GetTableInput{TableArn: lance.TableARN})
	if err != nil || aws.ToString(byARN.Name) != "embeddings" || byARN.Format != types.OpenTableFormatIceberg {
		t.Fatalf("GetTable by ARN = %+v, %v", byARN, err)
	}
	lt, err := c.ListTables(ctx, &sdk.ListTablesInput{TableBucketARN: &barn, Namespace: aws.String("sales")})
	if err != nil || len(lt.Tables) != 2 || aws.ToString(lt.Tables[0].Name) != "embeddings" || aws.ToString(lt.Tables[1].Name) != "orders" {
		t.Fatalf("ListTables = %+v, %v", lt, err)
	}

	// Metadata location: read, swap with the right token, refuse a stale one.
	ml, err := c.GetTableMetadataLocation(ctx, &sdk.GetTableMetadataLocationInput{TableBucketARN: &barn, Namespace: aws.String("sales"), Name: aws.String("orders")})
	if err != nil || aws.ToString(ml.VersionToken) != aws.ToString(ice.VersionToken) {
		t.Fatalf("GetTableMetadataLocation = %+v, %v", ml, err)
	}
	newLoc := aws.ToString(ml.WarehouseLocation) + "/metadata/00001-a.metadata.json"
	up, err := c.UpdateTableMetadataLocation(ctx, &sdk.UpdateTableMetadataLocationInput{TableBucketARN: &barn, Namespace: aws.String("sales"),
		Name: aws.String("orders"), VersionToken: ml.VersionToken, MetadataLocation: &newLoc})
	if err != nil || aws.ToString(up.MetadataLocation) != newLoc || aws.ToString(up.VersionToken) == aws.ToString(ml.VersionToken) {
		t.Fatalf("UpdateTableMetadataLocation = %+v, %v", up, err)
	}
	_, err = c.UpdateTableMetadataLocation(ctx, &sdk.UpdateTableMetadataLocationInput{TableBucketARN: &barn, Namespace: aws.String("sales"),
		Name: aws.String("orders"), VersionToken: ml.VersionToken, MetadataLocation: aws.String(newLoc + "2")})
	var ce *types.ConflictException
	if !errors.As(err, &ce) {
		t.Fatalf("stale versionToken: err = %v, want ConflictException", err)
	}

	if _, err := c.RenameTable(ctx, &sdk.RenameTableInput{TableBucketARN: &barn, Namespace: aws.String("sales"), Name: aws.String("orders"),
		NewName: aws.String("orders_v2"), VersionToken: up.VersionToken}); err != nil {
		t.Fatalf("RenameTable: %v", err)
	}
	renamed, err := c.GetTable(ctx, &sdk.GetTableInput{TableArn: ice.TableARN})
	if err != nil || aws.ToString(renamed.Name) != "orders_v2" || aws.ToString(renamed.MetadataLocation) != newLoc {
		t.Fatalf("after rename GetTable = %+v, %v", renamed, err)
	}

	// Maintenance, bucket level then table level.
	if _, err := c.PutTableBucketMaintenanceConfiguration(ctx, &sdk.PutTableBucketMaintenanceConfigurationInput{TableBucketARN: &barn,
		Type: types.TableBucketMaintenanceTypeIcebergUnreferencedFileRemoval,
		Value: &types.TableBucketMaintenanceConfigurationValue{Status: types.MaintenanceStatusEnabled,
			Settings: &types.TableBucketMaintenanceSettingsMemberIcebergUnreferencedFileRemoval{Value: types.IcebergUnreferencedFileRemovalSettings{
				UnreferencedDays: aws.Int32(7), NonCurrentDays: aws.Int32(14)}}}}); err != nil {
		t.Fatalf("PutTableBucketMaintenanceConfiguration: %v", err)
	}
	bm, err := c.GetTableBucketMaintenanceConfiguration(ctx, &sdk.GetTableBucketMaintenanceConfigurationInput{TableBucketARN: &barn})
	if err != nil {
		t.Fatalf("GetTableBucketMaintenanceConfiguration: %v", err)
	}
	ur, ok := bm.Configuration["icebergUnreferencedFileRemoval"].Settings.(*types.TableBucketMaintenanceSettingsMemberIcebergUnreferencedFileRemoval)
	if !ok || aws.ToInt32(ur.Value.UnreferencedDays) != 7 || aws.ToInt32(ur.Value.NonCurrentDays) != 14 {
		t.Fatalf("bucket maintenance = %+v", bm.Configuration)
	}
	if _, err := c.PutTableMaintenanceConfiguration(ctx, &sdk.PutTableMaintenanceConfigurationInput{TableBucketARN: &barn,
		Namespace: aws.String("sales"), Name: aws.String("orders_v2"), Type: types.TableMaintenanceTypeIcebergCompaction,
		Value: &types.TableMaintenanceConfigurationValue{Status: types.MaintenanceStatusEnabled,
			Settings: &types.TableMaintenanceSettingsMemberIcebergCompaction{Value: types.IcebergCompactionSettings{TargetFileSizeMB: aws.Int32(256)}}}}); err != nil {
		t.Fatalf("PutTableMaintenanceConfiguration compaction: %v", err)
	}
	if _, err := c.PutTableMaintenanceConfiguration(ctx, &sdk.PutTableMaintenanceConfigurationInput{TableBucketARN: &barn,
		Namespace: aws.String("sales"), Name: aws.String("orders_v2"), Type: types.TableMaintenanceTypeIcebergSnapshotManagement,
		Value: &types.TableMaintenanceConfigurationValue{Status: types.MaintenanceStatusDisabled,
			Settings: &types.TableMaintenanceSettingsMemberIcebergSnapshotManagement{Value: types.IcebergSnapshotManagementSettings{
				MinSnapshotsToKeep: aws.Int32(3), MaxSnapshotAgeHours: aws.Int32(48)}}}}); err != nil {
		t.Fatalf("PutTableMaintenanceConfiguration snapshots: %v", err)
	}
	tm, err := c.GetTableMaintenanceConfiguration(ctx, &sdk.GetTableMaintenanceConfigurationInput{TableBucketARN: &barn,
		Namespace: aws.String("sales"), Name: aws.String("orders_v2")})
	if err != nil {
		t.Fatalf("GetTableMaintenanceConfiguration: %v", err)
	}
	comp, ok := tm.Configuration["icebergCompaction"].Settings.(*types.TableMaintenanceSettingsMemberIcebergCompaction)
	snap, ok2 := tm.Configuration["icebergSnapshotManagement"].Settings.(*types.TableMaintenanceSettingsMemberIcebergSnapshotManagement)
	if !ok || !ok2 || aws.ToInt32(comp.Value.TargetFileSizeMB) != 256 || tm.Configuration["icebergCompaction"].Status != types.MaintenanceStatusEnabled ||
		tm.Configuration["icebergSnapshotManagement"].Status != types.MaintenanceStatusDisabled || aws.ToInt32(snap.Value.MinSnapshotsToKeep) != 3 {
		t.Fatalf("table maintenance = %+v", tm.Configuration)
	}

	// Job status: compaction ran and failed, snapshots are disabled, orphans never ran.
	tableID := aws.ToString(ice.TableARN)[strings.LastIndex(aws.ToString(ice.TableARN), "/")+1:]
	finished := time.Now().Add(-time.Minute).UTC().Truncate(time.Second)
	e.jobs.add(tableID, s3tables.JobRun{Type: "iceberg_compact", State: "succeeded", Finished: finished.Add(-time.Hour)})
	e.jobs.add(tableID, s3tables.JobRun{Type: "iceberg_compact", State: "failed", Error: "disk full", Finished: finished})
	e.jobs.add(tableID, s3tables.JobRun{Type: "iceberg_compact", State: "running"})
	js, err := c.GetTableMaintenanceJobStatus(ctx, &sdk.GetTableMaintenanceJobStatusInput{TableBucketARN: &barn,
		Namespace: aws.String("sales"), Name: aws.String("orders_v2")})
	if err != nil {
		t.Fatalf("GetTableMaintenanceJobStatus: %v", err)
	}
	cs := js.Status["icebergCompaction"]
	if cs.Status != types.JobStatusFailed || aws.ToString(cs.FailureMessage) != "disk full" || cs.LastRunTimestamp == nil || !cs.LastRunTimestamp.Equal(finished) {
		t.Fatalf("compaction job status = %+v", cs)
	}
	if js.Status["icebergSnapshotManagement"].Status != types.JobStatusDisabled || js.Status["icebergUnreferencedFileRemoval"].Status != types.JobStatusNotYetRun {
		t.Fatalf("job status = %+v", js.Status)
	}

	// Deleting: a stale token is refused, then the right one drops the table.
	_, err = c.DeleteTable(ctx, &sdk.DeleteTableInput{TableBucketARN: &barn, Namespace: aws.String("sales"), Name: aws.String("orders_v2"), VersionToken: ml.VersionToken})
	if !errors.As(err, &ce) {
		t.Fatalf("DeleteTable with a stale token: err = %v, want ConflictException", err)
	}
	if _, err := c.DeleteTable(ctx, &sdk.DeleteTableInput{TableBucketARN: &barn, Namespace: aws.String("sales"), Name: aws.String("orders_v2"), VersionToken: renamed.VersionToken}); err != nil {
		t.Fatalf("DeleteTable: %v", err)
	}
	if _, err := c.DeleteTable(ctx, &sdk.DeleteTableInput{TableBucketARN: &barn, Namespace: aws.String("sales"), Name: aws.String("embeddings")}); err != nil {
		t.Fatalf("DeleteTable embeddings: %v", err)
	}
	if _, err := c.DeleteNamespace(ctx, &sdk.DeleteNamespaceInput{TableBucketARN: &barn, Namespace: aws.String("sales")}); err != nil {
		t.Fatalf("DeleteNamespace: %v", err)
	}
	if _, err := c.DeleteTableBucket(ctx, &sdk.DeleteTableBucketInput{TableBucketARN: &barn}); err != nil {
		t.Fatalf("DeleteTableBucket: %v", err)
	}
	_, err = c.GetTableBucket(ctx, &sdk.GetTableBucketInput{TableBucketARN: &barn})
	var nf *types.NotFoundException
	if !errors.As(err, &nf) {
		t.Fatalf("GetTableBucket after delete: err = %v, want NotFoundException", err)
	}
	if _, err := e.store.GetBucket(ctx, "analytics"); !errors.Is(err, fault.NotFound) {
		t.Fatalf("catalog still has the bucket: %v", err)
	}
}
