package s3tables_test

import (
	"maps"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	sdk "github.com/aws/aws-sdk-go-v2/service/s3tables"
	"github.com/aws/aws-sdk-go-v2/service/s3tables/types"
)

// TestTableTagsRoundTrip: tags given to CreateTable (with and without an
// Iceberg schema) come back from ListTagsForResource on the table's ARN,
// TagResource and UntagResource change them, and a table's tags and its
// bucket's never mix (#26: AWS keeps table tags).
func TestTableTagsRoundTrip(t *testing.T) {
	e := newTestEnv(t)
	c := e.client(e.rw)
	ctx := ctxT(t)
	cb, err := c.CreateTableBucket(ctx, &sdk.CreateTableBucketInput{Name: aws.String("tagged"), Tags: map[string]string{"owner": "bucket"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.CreateNamespace(ctx, &sdk.CreateNamespaceInput{TableBucketARN: cb.Arn, Namespace: []string{"ns"}}); err != nil {
		t.Fatal(err)
	}
	plain, err := c.CreateTable(ctx, &sdk.CreateTableInput{TableBucketARN: cb.Arn, Namespace: aws.String("ns"), Name: aws.String("plain"),
		Format: types.OpenTableFormatIceberg, Tags: map[string]string{"team": "data", "tier": "gold"}})
	if err != nil {
		t.Fatalf("CreateTable with tags: %v", err)
	}
	typed, err := c.CreateTable(ctx, &sdk.CreateTableInput{TableBucketARN: cb.Arn, Namespace: aws.String("ns"), Name: aws.String("typed"),
		Format: types.OpenTableFormatIceberg, Tags: map[string]string{"schema": "yes"},
		Metadata: &types.TableMetadataMemberIceberg{Value: types.IcebergMetadata{Schema: &types.IcebergSchema{
			Fields: []types.SchemaField{{Name: aws.String("id"), Type: aws.String("long"), Required: true}}}}}})
	if err != nil {
		t.Fatalf("CreateTable with a schema and tags: %v", err)
	}
	tagsOf := func(arn *string) map[string]string {
		t.Helper()
		out, err := c.ListTagsForResource(ctx, &sdk.ListTagsForResourceInput{ResourceArn: arn})
		if err != nil {
			t.Fatalf("ListTagsForResource %s: %v", aws.ToString(arn), err)
		}
		return out.Tags
	}
	if got := tagsOf(plain.TableARN); !maps.Equal(got, map[string]string{"team": "data", "tier": "gold"}) {
		t.Fatalf("table tags after create = %v", got)
	}
	if got := tagsOf(typed.TableARN); !maps.Equal(got, map[string]string{"schema": "yes"}) {
		t.Fatalf("tags of the table created with a schema = %v", got)
	}
	if _, err := c.TagResource(ctx, &sdk.TagResourceInput{ResourceArn: plain.TableARN, Tags: map[string]string{"env": "prod", "tier": "silver"}}); err != nil {
		t.Fatalf("TagResource on a table: %v", err)
	}
	if _, err := c.UntagResource(ctx, &sdk.UntagResourceInput{ResourceArn: plain.TableARN, TagKeys: []string{"team"}}); err != nil {
		t.Fatalf("UntagResource on a table: %v", err)
	}
	if got := tagsOf(plain.TableARN); !maps.Equal(got, map[string]string{"env": "prod", "tier": "silver"}) {
		t.Fatalf("table tags after tag and untag = %v", got)
	}
	if got := tagsOf(cb.Arn); !maps.Equal(got, map[string]string{"owner": "bucket"}) {
		t.Fatalf("bucket tags = %v; table tags leaked into them", got)
	}
	// Tagging leaves the table's version token alone, as AWS does.
	gt, err := c.GetTable(ctx, &sdk.GetTableInput{TableArn: plain.TableARN})
	if err != nil || aws.ToString(gt.VersionToken) != aws.ToString(plain.VersionToken) {
		t.Fatalf("GetTable after tagging = %v, %v; the version token moved", gt, err)
	}
}
