package s3tables_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	sdk "github.com/aws/aws-sdk-go-v2/service/s3tables"
	"github.com/aws/aws-sdk-go-v2/service/s3tables/types"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/icebergrest"
	"github.com/floe/floe/lancerest"
)

// TestSharedCatalog: a bucket, namespace and tables made through S3 Tables
// are what the Lance Namespace REST and Iceberg REST catalogs serve.
func TestSharedCatalog(t *testing.T) {
	e := newTestEnv(t)
	ctx := ctxT(t)
	c := e.client(e.rw)
	// A bucket of no declared format (made before formats existed) holds
	// both; one made through this API would be an Iceberg bucket.
	if _, err := e.store.CreateBucket(ctx, catalog.CreateBucketInput{Name: "shared-cat"}); err != nil {
		t.Fatal(err)
	}
	cb := struct{ Arn *string }{aws.String(arnPrefix + "bucket/shared-cat")}
	if _, err := c.CreateNamespace(ctx, &sdk.CreateNamespaceInput{TableBucketARN: cb.Arn, Namespace: []string{"docs"}}); err != nil {
		t.Fatal(err)
	}
	for name, f := range map[string]types.OpenTableFormat{"vectors": "LANCE", "events": types.OpenTableFormatIceberg} {
		if _, err := c.CreateTable(ctx, &sdk.CreateTableInput{TableBucketARN: cb.Arn, Namespace: aws.String("docs"), Name: aws.String(name), Format: f}); err != nil {
			t.Fatal(err)
		}
	}
	// An Iceberg table created with a schema gets its first metadata file.
	withSchema, err := c.CreateTable(ctx, &sdk.CreateTableInput{TableBucketARN: cb.Arn, Namespace: aws.String("docs"), Name: aws.String("typed"),
		Format: types.OpenTableFormatIceberg, Metadata: &types.TableMetadataMemberIceberg{Value: types.IcebergMetadata{Schema: &types.IcebergSchema{
			Fields: []types.SchemaField{{Name: aws.String("order_id"), Type: aws.String("long"), Required: true}, {Name: aws.String("note"), Type: aws.String("string")}}}}}})
	if err != nil {
		t.Fatalf("CreateTable with a schema: %v", err)
	}
	ml, err := c.GetTableMetadataLocation(ctx, &sdk.GetTableMetadataLocationInput{TableBucketARN: cb.Arn, Namespace: aws.String("docs"), Name: aws.String("typed")})
	if err != nil || !strings.HasSuffix(aws.ToString(ml.MetadataLocation), ".metadata.json") || aws.ToString(ml.VersionToken) != aws.ToString(withSchema.VersionToken) {
		t.Fatalf("metadata location of the table created with a schema = %+v, %v", ml, err)
	}
	_, err = c.CreateTable(ctx, &sdk.CreateTableInput{TableBucketARN: cb.Arn, Namespace: aws.String("docs"), Name: aws.String("badtype"),
		Format: types.OpenTableFormatIceberg, Metadata: &types.TableMetadataMemberIceberg{Value: types.IcebergMetadata{Schema: &types.IcebergSchema{
			Fields: []types.SchemaField{{Name: aws.String("x"), Type: aws.String("nonsense")}}}}}})
	var bre *types.BadRequestException
	if !errors.As(err, &bre) {
		t.Fatalf("a schema with an unknown type: err = %v, want BadRequestException", err)
	}
	_, secret, err := e.store.CreateAPIKey(context.Background(), "rest", catalog.RoleReadonly, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	lance := httptest.NewServer(lancerest.New(lancerest.Config{Store: e.store, Logger: quiet}).Handler())
	t.Cleanup(lance.Close)
	ice := httptest.NewServer(icebergrest.New(icebergrest.Config{Store: e.store, Logger: quiet}).Handler())
	t.Cleanup(ice.Close)
	get := func(url string) string {
		t.Helper()
		req, _ := http.NewRequest("GET", url, nil)
		req.Header.Set("x-api-key", secret)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 200 || !json.Valid(b) {
			t.Fatalf("GET %s: %d %s", url, resp.StatusCode, b)
		}
		return string(b)
	}
	cases := []struct{ name, url, want string }{
		{"Lance REST lists the bucket", lance.URL + "/v1/namespace/%24/list", `"shared-cat"`},
		{"Lance REST lists the Lance table", lance.URL + "/v1/namespace/shared-cat%24docs/table/list", `"vectors"`},
		{"Iceberg REST lists the namespace", ice.URL + "/v1/shared-cat/namespaces", `"docs"`},
		{"Iceberg REST lists the Iceberg table", ice.URL + "/v1/shared-cat/namespaces/docs/tables", `"events"`},
		{"Iceberg REST loads the schema S3 Tables gave", ice.URL + "/v1/shared-cat/namespaces/docs/tables/typed", `"order_id"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if body := get(tc.url); !strings.Contains(body, tc.want) {
				t.Fatalf("GET %s = %s; want it to hold %s", tc.url, body, tc.want)
			}
		})
	}
}

// TestMaintenanceConfigGovernsDetection: compaction DISABLED through the
// API makes the catalog refuse compaction proposals for that table only;
// the bucket's unreferenced-file setting governs orphan removal. Snapshot
// expiry and orphan removal delete data, so they are off until turned on
// (issue 24): the S3 Tables configuration is one of the switches.
func TestMaintenanceConfigGovernsDetection(t *testing.T) {
	e := newTestEnv(t)
	e.seed()
	ctx := ctxT(t)
	c := e.client(e.rw)
	shared := aws.String(arnPrefix + "bucket/shared")
	off := &types.TableMaintenanceConfigurationValue{Status: types.MaintenanceStatusDisabled}
	if _, err := c.PutTableMaintenanceConfiguration(ctx, &sdk.PutTableMaintenanceConfigurationInput{TableBucketARN: shared,
		Namespace: aws.String("ns"), Name: aws.String("t"), Type: types.TableMaintenanceTypeIcebergCompaction, Value: off}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.PutTableBucketMaintenanceConfiguration(ctx, &sdk.PutTableBucketMaintenanceConfigurationInput{TableBucketARN: shared,
		Type: types.TableBucketMaintenanceTypeIcebergUnreferencedFileRemoval, Value: &types.TableBucketMaintenanceConfigurationValue{Status: types.MaintenanceStatusDisabled}}); err != nil {
		t.Fatal(err)
	}
	scoped := aws.String(arnPrefix + "bucket/scoped")
	if _, err := c.PutTableBucketMaintenanceConfiguration(ctx, &sdk.PutTableBucketMaintenanceConfigurationInput{TableBucketARN: scoped,
		Type: types.TableBucketMaintenanceTypeIcebergUnreferencedFileRemoval, Value: &types.TableBucketMaintenanceConfigurationValue{Status: types.MaintenanceStatusEnabled}}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.PutTableMaintenanceConfiguration(ctx, &sdk.PutTableMaintenanceConfigurationInput{TableBucketARN: shared,
		Namespace: aws.String("ns"), Name: aws.String("t"), Type: types.TableMaintenanceTypeIcebergSnapshotManagement,
		Value: &types.TableMaintenanceConfigurationValue{Status: types.MaintenanceStatusEnabled}}); err != nil {
		t.Fatal(err)
	}
	id := func(bucket string) string {
		tb, err := e.store.GetTable(ctx, catalog.TableRef{Bucket: bucket, Namespace: []string{"ns"}, Name: "t"})
		if err != nil {
			t.Fatal(err)
		}
		return tb.ID
	}
	cases := []struct {
		jobType, bucket string
		want            bool
	}{
		{"lance_compact", "shared", false},
		{"iceberg_compact", "shared", false},
		{"lance_compact", "scoped", true},
		{"iceberg_remove_orphans", "shared", false},
		{"iceberg_remove_orphans", "scoped", true},    // turned on for the bucket
		{"iceberg_expire_snapshots", "shared", true},  // turned on for the table
		{"iceberg_expire_snapshots", "scoped", false}, // off until turned on
		{"lance_cleanup", "scoped", false},            // off until turned on
		{"lance_scalar_index", "shared", true},
	}
	for _, tc := range cases {
		t.Run(tc.jobType+" on "+tc.bucket, func(t *testing.T) {
			_, ok, err := e.store.ReviewProposal(ctx, tc.jobType, id(tc.bucket), map[string]string{})
			if err != nil || ok != tc.want {
				t.Fatalf("ReviewProposal = %v, %v; want %v", ok, err, tc.want)
			}
		})
	}
	// Switched back on with a target size, the proposal carries it.
	if _, err := c.PutTableMaintenanceConfiguration(ctx, &sdk.PutTableMaintenanceConfigurationInput{TableBucketARN: shared,
		Namespace: aws.String("ns"), Name: aws.String("t"), Type: types.TableMaintenanceTypeIcebergCompaction,
		Value: &types.TableMaintenanceConfigurationValue{Status: types.MaintenanceStatusEnabled,
			Settings: &types.TableMaintenanceSettingsMemberIcebergCompaction{Value: types.IcebergCompactionSettings{TargetFileSizeMB: aws.Int32(128)}}}}); err != nil {
		t.Fatal(err)
	}
	params, ok, err := e.store.ReviewProposal(ctx, "iceberg_compact", id("shared"), map[string]string{"target_file_size_bytes": "1", "other": "x"})
	if err != nil || !ok || params["target_file_size_bytes"] != "134217728" || params["other"] != "x" {
		t.Fatalf("ReviewProposal after enabling = %v, %v, %v", params, ok, err)
	}
}
