package s3tables_test

import (
	"errors"
	"io"
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	sdk "github.com/aws/aws-sdk-go-v2/service/s3tables"
	"github.com/aws/aws-sdk-go-v2/service/s3tables/types"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/iceberg"
)

// TestProtectionAndSoftDeleteThroughSDK: S3 Tables has no protection in
// its model and no force, so a protected table, namespace or bucket
// (protected through the console or CLI) refuses DeleteTable,
// DeleteNamespace and DeleteTableBucket with a ConflictException naming
// it. An unprotected table's DeleteTable holds it as recently deleted: it
// leaves GetTable and ListTables, its files stay, and undrop brings it back
// (issue 24).
func TestProtectionAndSoftDeleteThroughSDK(t *testing.T) {
	e := newTestEnv(t)
	c := e.client(e.rw)
	ctx := ctxT(t)
	mk := func(bucket string, nss ...string) string {
		cb, err := c.CreateTableBucket(ctx, &sdk.CreateTableBucketInput{Name: aws.String(bucket)})
		if err != nil {
			t.Fatal(err)
		}
		for _, ns := range nss {
			if _, err := c.CreateNamespace(ctx, &sdk.CreateNamespaceInput{TableBucketARN: cb.Arn, Namespace: []string{ns}}); err != nil {
				t.Fatal(err)
			}
		}
		return aws.ToString(cb.Arn)
	}
	conflictNaming := func(what string, err error, named string) {
		t.Helper()
		var ce *types.ConflictException
		if !errors.As(err, &ce) || !strings.Contains(aws.ToString(ce.Message), "protected") || !strings.Contains(aws.ToString(ce.Message), named) {
			t.Errorf("%s: %v; want a ConflictException naming %s", what, err, named)
		}
	}

	arn := mk("lake", "ns", "keep")
	if _, err := e.store.SetBucketHold(ctx, "lake", 24*time.Hour); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"t", "u"} {
		if _, err := c.CreateTable(ctx, &sdk.CreateTableInput{TableBucketARN: &arn, Namespace: aws.String("ns"), Name: aws.String(name),
			Format: types.OpenTableFormatIceberg, Metadata: &types.TableMetadataMemberIceberg{Value: types.IcebergMetadata{Schema: &types.IcebergSchema{
				Fields: []types.SchemaField{{Name: aws.String("id"), Type: aws.String("long"), Required: true}}}}}}); err != nil {
			t.Fatal(err)
		}
	}
	ref := catalog.TableRef{Bucket: "lake", Namespace: []string{"ns"}, Name: "t"}
	// An Iceberg table is protected by a commit of the property: what the
	// console and floe table protect do, through the store's own path.
	b, err := e.store.GetBucket(ctx, "lake")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := iceberg.New(iceberg.Config{Store: e.store, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}).SetProtected(ctx, b, ref, true); err != nil {
		t.Fatal(err)
	}
	if _, err := e.store.SetNamespaceProtected(ctx, "lake", []string{"keep"}, true); err != nil {
		t.Fatal(err)
	}
	_, err = c.DeleteTable(ctx, &sdk.DeleteTableInput{TableBucketARN: &arn, Namespace: aws.String("ns"), Name: aws.String("t")})
	conflictNaming("DeleteTable of a protected table", err, `table "t"`)
	_, err = c.DeleteNamespace(ctx, &sdk.DeleteNamespaceInput{TableBucketARN: &arn, Namespace: aws.String("keep")})
	conflictNaming("DeleteNamespace of a protected namespace", err, `namespace "keep"`)
	if _, err := e.store.GetTable(ctx, ref); err != nil {
		t.Fatalf("the protected table is gone: %v", err)
	}

	empty := mk("vault")
	if _, err := e.store.SetBucketProtected(ctx, "vault", true); err != nil {
		t.Fatal(err)
	}
	_, err = c.DeleteTableBucket(ctx, &sdk.DeleteTableBucketInput{TableBucketARN: &empty})
	conflictNaming("DeleteTableBucket of a protected bucket", err, `bucket "vault"`)

	// The unprotected neighbour is held, not deleted.
	u, err := e.store.GetTable(ctx, catalog.TableRef{Bucket: "lake", Namespace: []string{"ns"}, Name: "u"})
	if err != nil {
		t.Fatal(err)
	}
	meta := strings.TrimPrefix(u.MetadataLocation, "file://")
	if _, err := os.Stat(meta); err != nil {
		t.Fatalf("the table's metadata file %s: %v", meta, err)
	}
	if _, err := c.DeleteTable(ctx, &sdk.DeleteTableInput{TableBucketARN: &arn, Namespace: aws.String("ns"), Name: aws.String("u")}); err != nil {
		t.Fatal(err)
	}
	var nf *types.NotFoundException
	if _, err := c.GetTable(ctx, &sdk.GetTableInput{TableBucketARN: &arn, Namespace: aws.String("ns"), Name: aws.String("u")}); !errors.As(err, &nf) {
		t.Fatalf("GetTable after DeleteTable: %v, want NotFoundException", err)
	}
	list, err := c.ListTables(ctx, &sdk.ListTablesInput{TableBucketARN: &arn})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range list.Tables {
		if aws.ToString(s.Name) == "u" {
			t.Fatal("ListTables still lists the deleted table")
		}
	}
	if _, err := os.Stat(meta); err != nil {
		t.Fatalf("DeleteTable deleted the held table's metadata: %v", err)
	}
	if _, err := e.store.UndropTable(ctx, u.ID, catalog.TableRef{}); err != nil {
		t.Fatal(err)
	}
	if got, err := c.GetTable(ctx, &sdk.GetTableInput{TableBucketARN: &arn, Namespace: aws.String("ns"), Name: aws.String("u")}); err != nil || aws.ToString(got.MetadataLocation) != u.MetadataLocation {
		t.Fatalf("after undrop GetTable = %+v, %v", got, err)
	}
}
