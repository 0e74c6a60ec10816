package s3tables_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	s3types "github.com/aws/aws-sdk-go-v2/service/s3/types"
	sdk "github.com/aws/aws-sdk-go-v2/service/s3tables"
	"github.com/aws/aws-sdk-go-v2/service/s3tables/types"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/internal/s3test"
	"github.com/floe/floe/warehouse"
)

func TestMain(m *testing.M) { s3test.Main(m) }

// TestEncryptionIsTheStores (#26): GetTableBucketEncryption and
// GetTableEncryption answer what the warehouse store does at rest, read
// from the store: nothing on the local disk (NotFoundException, never a
// false AES256), AES256 on a real S3 store whose bucket encrypts by
// default. AES256 is accepted on create and put only when it is true;
// aws:kms is refused with a sentence.
func TestEncryptionIsTheStores(t *testing.T) {
	aes := &types.EncryptionConfiguration{SseAlgorithm: types.SSEAlgorithmAes256}
	kms := &types.EncryptionConfiguration{SseAlgorithm: types.SSEAlgorithmAwsKms, KmsKeyArn: aws.String("arn:aws:kms:eu-west-3:123456789012:key/k")}
	check := func(t *testing.T, e *testEnv, encrypted bool) {
		t.Helper()
		c := e.client(e.rw)
		ctx := ctxT(t)
		e.seed()
		shared := aws.String(arnPrefix + "bucket/shared")
		ge, err := c.GetTableBucketEncryption(ctx, &sdk.GetTableBucketEncryptionInput{TableBucketARN: shared})
		te, terr := c.GetTableEncryption(ctx, &sdk.GetTableEncryptionInput{TableBucketARN: shared, Namespace: aws.String("ns"), Name: aws.String("t")})
		_, perr := c.PutTableBucketEncryption(ctx, &sdk.PutTableBucketEncryptionInput{TableBucketARN: shared, EncryptionConfiguration: aes})
		_, cerr := c.CreateTableBucket(ctx, &sdk.CreateTableBucketInput{Name: aws.String("with-aes"), EncryptionConfiguration: aes})
		_, tcerr := c.CreateTable(ctx, &sdk.CreateTableInput{TableBucketARN: shared, Namespace: aws.String("ns"), Name: aws.String("enc"),
			Format: types.OpenTableFormatIceberg, EncryptionConfiguration: aes})
		if encrypted {
			if err != nil || ge.EncryptionConfiguration.SseAlgorithm != types.SSEAlgorithmAes256 {
				t.Fatalf("GetTableBucketEncryption = %+v, %v; want AES256", ge, err)
			}
			if terr != nil || te.EncryptionConfiguration.SseAlgorithm != types.SSEAlgorithmAes256 {
				t.Fatalf("GetTableEncryption = %+v, %v; want AES256", te, terr)
			}
			if perr != nil || cerr != nil || tcerr != nil {
				t.Fatalf("AES256 on a store that encrypts with it: put %v, create bucket %v, create table %v", perr, cerr, tcerr)
			}
		} else {
			var nf *types.NotFoundException
			if !errors.As(err, &nf) || !strings.Contains(aws.ToString(nf.Message), "not encrypted at rest") {
				t.Fatalf("GetTableBucketEncryption on a store that does not encrypt: %v", err)
			}
			if !errors.As(terr, &nf) {
				t.Fatalf("GetTableEncryption on a store that does not encrypt: %v", terr)
			}
			for name, err := range map[string]error{"put": perr, "create bucket": cerr, "create table": tcerr} {
				var br *types.BadRequestException
				if !errors.As(err, &br) || !strings.Contains(aws.ToString(br.Message), "does not encrypt at rest") {
					t.Fatalf("%s with AES256 on a store that does not encrypt: %v", name, err)
				}
			}
			if _, err := e.store.GetBucket(context.Background(), "with-aes"); err == nil {
				t.Fatal("the refused bucket was made")
			}
		}
		_, err = c.CreateTableBucket(ctx, &sdk.CreateTableBucketInput{Name: aws.String("with-kms"), EncryptionConfiguration: kms})
		var br *types.BadRequestException
		if !errors.As(err, &br) || !strings.Contains(aws.ToString(br.Message), "KMS") {
			t.Fatalf("aws:kms: %v", err)
		}
		if _, err := c.DeleteTableBucketEncryption(ctx, &sdk.DeleteTableBucketEncryptionInput{TableBucketARN: shared}); !errors.As(err, &br) {
			t.Fatalf("DeleteTableBucketEncryption: %v", err)
		}
	}
	t.Run("local disk", func(t *testing.T) { check(t, newTestEnv(t), false) })
	t.Run("S3 store encrypting by default", func(t *testing.T) {
		st := s3test.Require(t)
		bucket := st.Bucket(t)
		if _, err := st.Client().PutBucketEncryption(t.Context(), &s3.PutBucketEncryptionInput{Bucket: aws.String(bucket),
			ServerSideEncryptionConfiguration: &s3types.ServerSideEncryptionConfiguration{Rules: []s3types.ServerSideEncryptionRule{{
				ApplyServerSideEncryptionByDefault: &s3types.ServerSideEncryptionByDefault{SSEAlgorithm: s3types.ServerSideEncryptionAes256}}}}}); err != nil {
			t.Fatal(err)
		}
		root, err := warehouse.Parse("s3://" + bucket + "/wh")
		if err != nil {
			t.Fatal(err)
		}
		b, err := warehouse.OpenS3(t.Context(), root, warehouse.S3Config{Endpoint: st.Endpoint, Region: s3test.Region, PathStyle: true,
			AccessKey: st.AccessKey, SecretKey: st.SecretKey})
		if err != nil {
			t.Fatal(err)
		}
		check(t, newTestEnvOn(t, catalog.Options{Path: filepath.Join(t.TempDir(), "catalog.db"), Warehouse: root.String(), Backend: b}), true)
	})
}
