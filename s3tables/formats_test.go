package s3tables_test

import (
	"context"
	"errors"
	"net/url"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	sdk "github.com/aws/aws-sdk-go-v2/service/s3tables"
	"github.com/aws/aws-sdk-go-v2/service/s3tables/types"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/s3tables"
)

// TestFormatDefaultsToIceberg: a bucket made through this API without a
// format is an Iceberg bucket (#26), as AWS's are.
func TestFormatDefaultsToIceberg(t *testing.T) {
	e := newTestEnv(t)
	if _, err := e.client(e.rw).CreateTableBucket(ctxT(t), &sdk.CreateTableBucketInput{Name: aws.String("plain")}); err != nil {
		t.Fatal(err)
	}
	b, err := e.store.GetBucket(context.Background(), "plain")
	if err != nil || b.Format != catalog.FormatIceberg {
		t.Fatalf("bucket = %+v, %v; want format ICEBERG", b, err)
	}
	r := e.signedDo(t, e.ro, "GET", "/buckets/"+url.PathEscape(arnPrefix+"bucket/plain"), nil, nil)
	if r.status != 200 || r.body["format"] != "ICEBERG" {
		t.Fatalf("GetTableBucket: %d %v", r.status, r.body)
	}
}

// TestFormatWhoseCatalogIsOff: with a format's catalog switched off, this
// API makes neither buckets nor tables of it, as the console refuses them.
func TestFormatWhoseCatalogIsOff(t *testing.T) {
	cases := []struct {
		off     catalog.Format
		refused []string // raw CreateTableBucket bodies refused
		allowed string   // one accepted
		table   types.OpenTableFormat
		flag    string
	}{
		{catalog.FormatIceberg, []string{`{"name":"b-default"}`, `{"name":"b-iceberg","format":"ICEBERG"}`}, `{"name":"b-lance","format":"LANCE"}`,
			types.OpenTableFormatIceberg, "--iceberg"},
		{catalog.FormatLance, []string{`{"name":"b-lance","format":"LANCE"}`}, `{"name":"b-default"}`, "LANCE", "--lance"},
	}
	for _, tc := range cases {
		t.Run(string(tc.off)+" off", func(t *testing.T) {
			e := newTestEnv(t, func(c *s3tables.Config) { c.FormatsOff = []catalog.Format{tc.off} })
			for _, body := range tc.refused {
				r := e.signedDo(t, e.rw, "PUT", "/buckets", []byte(body), []byte(body))
				if msg, _ := r.body["message"].(string); r.status != 400 || r.errType != "BadRequestException" || !strings.Contains(msg, tc.flag) {
					t.Fatalf("%s: %d %s %q", body, r.status, r.errType, msg)
				}
			}
			if r := e.signedDo(t, e.rw, "PUT", "/buckets", []byte(tc.allowed), []byte(tc.allowed)); r.status != 200 {
				t.Fatalf("%s: %d %v", tc.allowed, r.status, r.body)
			}
			// A table of the switched-off format, even in a bucket that
			// takes both.
			ctx := context.Background()
			if _, err := e.store.CreateBucket(ctx, catalog.CreateBucketInput{Name: "both"}); err != nil {
				t.Fatal(err)
			}
			if _, err := e.store.CreateNamespace(ctx, "both", []string{"ns"}, nil); err != nil {
				t.Fatal(err)
			}
			_, err := e.client(e.rw).CreateTable(ctxT(t), &sdk.CreateTableInput{TableBucketARN: aws.String(arnPrefix + "bucket/both"),
				Namespace: aws.String("ns"), Name: aws.String("t"), Format: tc.table})
			var br *types.BadRequestException
			if !errors.As(err, &br) || !strings.Contains(aws.ToString(br.Message), tc.flag) {
				t.Fatalf("CreateTable %s: err = %v, want BadRequestException naming %s", tc.table, err, tc.flag)
			}
		})
	}
}
