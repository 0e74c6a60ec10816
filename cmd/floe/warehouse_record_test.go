package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/floe/floe/catalog"
	"github.com/floe/floe/internal/s3test"
)

// The CLI on a data directory whose floe serve runs on an S3 warehouse: it
// reads the warehouse serve recorded, lists the tables with their s3://
// locations, and `bucket delete --cascade` deletes the tables' objects in
// the store, not on local disk.
func TestCLIOnS3Warehouse(t *testing.T) {
	st := s3test.New(t)
	bucket := st.Bucket(t)
	t.Setenv("AWS_ACCESS_KEY_ID", st.AccessKey)
	t.Setenv("AWS_SECRET_ACCESS_KEY", st.SecretKey)
	data := t.TempDir()
	wh := "s3://" + bucket + "/wh"

	// floe serve on the store records its warehouse, then stops.
	ctx, cancel := context.WithCancel(context.Background())
	serve := newRootCmd()
	var out bytes.Buffer
	serve.SetOut(&out)
	serve.SetErr(&out)
	serve.SetArgs([]string{"serve", "--data", data, "--http", "127.0.0.1:0", "--grpc", "127.0.0.1:0", "--lance", "", "--iceberg", "", "--s3tables", "",
		"--warehouse", wh, "--s3-endpoint", st.Endpoint, "--s3-region", s3test.Region, "--s3-path-style"})
	done := make(chan error, 1)
	go func() { done <- serve.ExecuteContext(ctx) }()
	record := filepath.Join(data, warehouseRecordFile)
	for {
		if _, err := os.Stat(record); err == nil {
			break
		}
		select {
		case err := <-done:
			cancel()
			t.Fatalf("serve ended before recording its warehouse: %v\n%s", err, out.String())
		case <-time.After(50 * time.Millisecond): // polling interval, not an assertion
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("serve: %v\n%s", err, out.String())
	}
	var rec warehouseRecord
	raw, _ := os.ReadFile(record)
	if err := json.Unmarshal(raw, &rec); err != nil || rec.Warehouse != wh || rec.S3Endpoint != st.Endpoint || !rec.S3PathStyle {
		t.Fatalf("record %s = %+v, %v", raw, rec, err)
	}

	// The CLI makes a bucket and namespace; a table with objects is written
	// the way a client would through the catalogs.
	for _, args := range [][]string{{"bucket", "create", "lake", "--format", "lance"}, {"namespace", "create", "lake", "docs"}} {
		if got, code := run(t, append(args, "--data", data)...); code != 0 {
			t.Fatalf("floe %s: %d %s", strings.Join(args, " "), code, got)
		}
	}
	paths := dataPaths{Data: data, Catalog: filepath.Join(data, "catalog.db"), Warehouse: wh,
		S3: s3Flags{Endpoint: st.Endpoint, Region: s3test.Region, PathStyle: true}}
	b, err := openRecordedS3(t.Context(), paths)
	if err != nil {
		t.Fatal(err)
	}
	db, cat, err := openStoreAt(t.Context(), paths, b)
	if err != nil {
		t.Fatal(err)
	}
	tbl, _, err := cat.CreateTable(t.Context(), catalog.CreateTableInput{TableRef: catalog.TableRef{Bucket: "lake", Namespace: []string{"docs"}, Name: "t"}, Format: catalog.FormatLance})
	if err != nil {
		t.Fatal(err)
	}
	cat.Close()
	db.Close()
	if !strings.HasPrefix(tbl.Location, wh+"/") {
		t.Fatalf("table location %s is not on the store", tbl.Location)
	}
	prefix := strings.TrimPrefix(tbl.Location, "s3://"+bucket+"/") + "/"
	admin := st.Client()
	for i := range 3 {
		k := prefix + "data/f" + string(rune('0'+i))
		if _, err := admin.PutObject(t.Context(), &s3.PutObjectInput{Bucket: &bucket, Key: &k, Body: strings.NewReader("x")}); err != nil {
			t.Fatal(err)
		}
	}
	count := func() int {
		o, err := admin.ListObjectsV2(t.Context(), &s3.ListObjectsV2Input{Bucket: &bucket, Prefix: aws.String(prefix)})
		if err != nil {
			t.Fatal(err)
		}
		return len(o.Contents)
	}

	got, code := run(t, "table", "list", "lake", "--json", "--data", data)
	if code != 0 || !strings.Contains(got, tbl.Location) {
		t.Fatalf("table list: %d %s", code, got)
	}
	if got, code := run(t, "bucket", "delete", "lake", "--cascade", "--data", data); code != 0 {
		t.Fatalf("bucket delete --cascade: %d %s", code, got)
	}
	// The cascade holds the table as recently deleted (issue 24): its
	// objects stay until the hold ends or a purge.
	if n := count(); n != 4 {
		t.Fatalf("after the CLI's cascade %d objects are left, want all 4 held", n)
	}
	if got, code := run(t, "bucket", "purge", "lake", "--data", data); code != 0 {
		t.Fatalf("bucket purge: %d %s", code, got)
	}
	if n := count(); n != 0 {
		t.Fatalf("after the CLI purged the table %d of its objects are still in the store", n)
	}
	if _, err := os.Stat(filepath.Join(data, "warehouse")); err == nil {
		t.Error("the CLI made a local warehouse directory for an S3 warehouse")
	}
}

// A record floe did not write is refused with a sentence naming it.
func TestCLIRefusesBrokenWarehouseRecord(t *testing.T) {
	data := t.TempDir()
	if err := os.WriteFile(filepath.Join(data, warehouseRecordFile), []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	got, code := run(t, "bucket", "list", "--data", data)
	if code != 2 || !strings.Contains(got, warehouseRecordFile) {
		t.Fatalf("bucket list with a broken record: %d %s", code, got)
	}
}
