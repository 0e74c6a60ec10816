package s3tables_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/floe/floe/catalog"
)

// TestAWSCLI runs the AWS CLI itself against the surface. Debian's awscli
// (2.9.19, bookworm) predates S3 Tables and has no s3tables command; the
// pip-installed CLI (aws-cli 1.36+ / botocore with the s3tables model) has.
func TestAWSCLI(t *testing.T) {
	aws, err := exec.LookPath("aws")
	if err != nil {
		t.Skip("the AWS CLI is not installed; install one that knows s3tables (pip install awscli) to run this test")
	}
	if out, err := exec.Command(aws, "s3tables", "help").CombinedOutput(); err != nil {
		t.Skipf("this AWS CLI has no s3tables command (Debian's awscli 2.9.19 predates S3 Tables): %v: %.200s", err, out)
	}
	e := newTestEnv(t)
	if _, err := e.store.CreateBucket(context.Background(), catalog.CreateBucketInput{Name: "from-cli"}); err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(ctxT(t), aws, "s3tables", "list-table-buckets", "--endpoint-url", e.srv.URL, "--output", "json")
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "AWS_") { // the caller's own profile or keys must not leak in
			env = append(env, kv)
		}
	}
	cmd.Env = append(env, "AWS_ACCESS_KEY_ID="+e.ro.AccessKeyID, "AWS_SECRET_ACCESS_KEY="+e.ro.SecretAccessKey,
		"AWS_DEFAULT_REGION="+testRegion, "AWS_REGION="+testRegion, "AWS_CONFIG_FILE=/dev/null", "AWS_SHARED_CREDENTIALS_FILE=/dev/null",
		"HOME="+t.TempDir())
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("aws s3tables list-table-buckets: %v\n%s", err, out)
	}
	var got struct {
		TableBuckets []struct{ Name, Arn string }
	}
	if err := json.Unmarshal(out, &got); err != nil || len(got.TableBuckets) != 1 || got.TableBuckets[0].Name != "from-cli" ||
		got.TableBuckets[0].Arn != arnPrefix+"bucket/from-cli" {
		t.Fatalf("aws s3tables list-table-buckets printed %s (%v)", out, err)
	}
}
