package s3tables_test

import (
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	sdk "github.com/aws/aws-sdk-go-v2/service/s3tables"
	"github.com/aws/aws-sdk-go-v2/service/s3tables/types"
)

// TestDeleteTableVersionTokenIsAtomic: DeleteTable checked the versionToken
// and then dropped in a second step, so an UpdateTableMetadataLocation that
// landed between the two was dropped with the table unseen (issue 16). Racing
// the two on one token through the SDK, exactly one wins, and a winning
// update is still there.
func TestDeleteTableVersionTokenIsAtomic(t *testing.T) {
	e := newTestEnv(t)
	c := e.client(e.rw)
	ctx := ctxT(t)
	cb, err := c.CreateTableBucket(ctx, &sdk.CreateTableBucketInput{Name: aws.String("race")})
	if err != nil {
		t.Fatal(err)
	}
	barn := aws.ToString(cb.Arn)
	if _, err := c.CreateNamespace(ctx, &sdk.CreateNamespaceInput{TableBucketARN: &barn, Namespace: []string{"ns"}}); err != nil {
		t.Fatal(err)
	}
	for i := range 10 {
		name := aws.String(fmt.Sprintf("t%d", i))
		if _, err := c.CreateTable(ctx, &sdk.CreateTableInput{TableBucketARN: &barn, Namespace: aws.String("ns"), Name: name,
			Format: types.OpenTableFormatIceberg}); err != nil {
			t.Fatal(err)
		}
		ml, err := c.GetTableMetadataLocation(ctx, &sdk.GetTableMetadataLocationInput{TableBucketARN: &barn, Namespace: aws.String("ns"), Name: name})
		if err != nil {
			t.Fatal(err)
		}
		newLoc := aws.ToString(ml.WarehouseLocation) + "/metadata/00001-a.metadata.json"
		var wg sync.WaitGroup
		var upErr, delErr error
		wg.Go(func() {
			_, upErr = c.UpdateTableMetadataLocation(ctx, &sdk.UpdateTableMetadataLocationInput{TableBucketARN: &barn,
				Namespace: aws.String("ns"), Name: name, VersionToken: ml.VersionToken, MetadataLocation: &newLoc})
		})
		wg.Go(func() {
			_, delErr = c.DeleteTable(ctx, &sdk.DeleteTableInput{TableBucketARN: &barn, Namespace: aws.String("ns"), Name: name,
				VersionToken: ml.VersionToken})
		})
		wg.Wait()
		var conflict *types.ConflictException
		var notFound *types.NotFoundException
		switch {
		case upErr == nil && delErr == nil:
			t.Fatalf("round %d: the update and the delete both succeeded on one token: the update was lost", i)
		case upErr == nil:
			if !errors.As(delErr, &conflict) {
				t.Fatalf("round %d: losing delete: %v, want ConflictException", i, delErr)
			}
			got, err := c.GetTableMetadataLocation(ctx, &sdk.GetTableMetadataLocationInput{TableBucketARN: &barn, Namespace: aws.String("ns"), Name: name})
			if err != nil || aws.ToString(got.MetadataLocation) != newLoc {
				t.Fatalf("round %d: the winning update is gone: %+v %v", i, got, err)
			}
		case delErr == nil:
			if !errors.As(upErr, &notFound) && !errors.As(upErr, &conflict) {
				t.Fatalf("round %d: losing update: %v, want NotFoundException or ConflictException", i, upErr)
			}
		default:
			t.Fatalf("round %d: neither won: update %v, delete %v", i, upErr, delErr)
		}
	}
}
