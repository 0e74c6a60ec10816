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

	"github.com/floe/floe/internal/s3test"
)

// floe serve on a store that ignores If-None-Match (weed behind s3test's
// stripping proxy): refused by default with a sentence naming the flag,
// started with --s3-conditional-put absent, which the record keeps so the
// CLI's buckets follow the same rule (Lance buckets managed, never off).
func TestServeWithoutConditionalPut(t *testing.T) {
	st := s3test.New(t)
	proxy := st.NoConditionProxy(t)
	bucket := st.Bucket(t)
	t.Setenv("AWS_ACCESS_KEY_ID", st.AccessKey)
	t.Setenv("AWS_SECRET_ACCESS_KEY", st.SecretKey)
	data := t.TempDir()
	args := []string{"serve", "--data", data, "--http", "127.0.0.1:0", "--grpc", "127.0.0.1:0", "--lance", "", "--iceberg", "", "--s3tables", "",
		"--warehouse", "s3://" + bucket + "/wh", "--s3-endpoint", proxy.Endpoint, "--s3-region", s3test.Region, "--s3-path-style"}

	got, code := run(t, args...)
	if code == 0 || !strings.Contains(got, "If-None-Match") || !strings.Contains(got, "--s3-conditional-put absent") {
		t.Fatalf("serve on a store without conditional PUT: %d %s; want a refusal naming --s3-conditional-put absent", code, got)
	}
	if got, code := run(t, append(args, "--s3-conditional-put", "sometimes")...); code != 2 || !strings.Contains(got, "required or absent") {
		t.Fatalf("serve --s3-conditional-put sometimes: %d %s", code, got)
	}

	ctx, cancel := context.WithCancel(context.Background())
	serve := newRootCmd()
	var out bytes.Buffer
	serve.SetOut(&out)
	serve.SetErr(&out)
	serve.SetArgs(append(args, "--s3-conditional-put", "absent"))
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
			t.Fatalf("serve --s3-conditional-put absent ended before recording its warehouse: %v\n%s", err, out.String())
		case <-time.After(50 * time.Millisecond): // polling interval, not an assertion
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("serve: %v\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), "can lose concurrent commits") {
		t.Errorf("serve's log does not say what the mode risks:\n%s", out.String())
	}
	var rec warehouseRecord
	raw, _ := os.ReadFile(record)
	if err := json.Unmarshal(raw, &rec); err != nil || !rec.S3NoConditionalPut {
		t.Fatalf("record %s = %+v, %v; want s3_no_conditional_put", raw, rec, err)
	}

	if got, code := run(t, "bucket", "create", "vec", "--format", "lance", "--data", data); code != 0 || !strings.Contains(got, "managed versioning is on") {
		t.Fatalf("bucket create on the store: %d %s; want a managed bucket", code, got)
	}
	if got, code := run(t, "bucket", "managed-versioning", "vec", "off", "--data", data); code != 2 || !strings.Contains(got, "stays managed") {
		t.Fatalf("bucket managed-versioning off: %d %s; want the refusal", code, got)
	}
}
