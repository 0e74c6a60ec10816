// Package s3worker runs the Lance worker's S3 journey
// (workers/lance/s3.test.mjs) against a real SeaweedFS store: floe serve
// --with-worker on an s3:// warehouse, compaction and an index build through
// the task API, Browse Data through the console.
package s3worker

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/floe/floe/internal/s3test"
)

// journeyTimeout bounds one node run: building floe, writing the table,
// two worker jobs and the console page, on a loaded machine.
const journeyTimeout = 10 * time.Minute

// repoRoot is the module root (two levels up) and node, or a skip (fail in
// CI) when node or the LanceDB package is missing.
func repoRoot(t testing.TB) (root, node string) {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	node, err = exec.LookPath("node")
	if err == nil {
		_, err = os.Stat(filepath.Join(root, "node_modules", "@lancedb", "lancedb", "package.json"))
	}
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("needs node and node_modules/@lancedb/lancedb (run npm ci): %v", err)
		}
		t.Skipf("skipping: node or node_modules/@lancedb/lancedb missing (%v); run npm ci", err)
	}
	return root, node
}

// storeEnv is what the node side needs to put floe on store: endpoint,
// bucket, vend mode and the store's keys (floe serve and the bundled
// worker inherit them; LanceDB in the test process gets vended ones).
func storeEnv(t testing.TB, st *s3test.Store, vend string) []string {
	return append(os.Environ(),
		"FLOE_TEST_S3_ENDPOINT="+st.Endpoint,
		"FLOE_TEST_S3_BUCKET="+st.Bucket(t),
		"FLOE_TEST_S3_VEND="+vend,
		"FLOE_TEST_S3_ROLE_ARN="+st.RoleARN,
		"AWS_ACCESS_KEY_ID="+st.AccessKey,
		"AWS_SECRET_ACCESS_KEY="+st.SecretKey,
		"AWS_REGION="+s3test.Region,
		"AWS_ENDPOINT_URL=",
	)
}

// TestLanceWorkerOnS3 runs the journey with STS keys vended (the bundled
// worker opens the table with keys limited to its prefix).
func TestLanceWorkerOnS3(t *testing.T) {
	root, node := repoRoot(t)
	st := s3test.NewWithSTS(t)
	ctx, cancel := context.WithTimeout(t.Context(), journeyTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "--test", "--test-reporter=spec", "workers/lance/s3.test.mjs")
	cmd.Dir = root
	cmd.Env = storeEnv(t, st, "sts")
	out, err := cmd.CombinedOutput()
	if err != nil || testing.Verbose() {
		t.Logf("node --test workers/lance/s3.test.mjs:\n%s", out)
	}
	if err != nil {
		t.Fatalf("the Lance worker journey on S3 failed: %v", err)
	}
}
