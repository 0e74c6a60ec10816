package icebergrest

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/floe/floe/catalog"
)

// icebergJSTimeout bounds the node run: a few dozen small requests.
const icebergJSTimeout = 2 * time.Minute

// TestIcebergJS runs test/icebergjs/*.test.mjs (node:test with iceberg-js
// 1.0.0) against this handler: namespaces, tables, commits, ETags, the
// token endpoint and v3 types, through a client floe's Go tests do not use.
func TestIcebergJS(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	node, err := exec.LookPath("node")
	if err == nil {
		_, err = os.Stat(filepath.Join(root, "node_modules", "iceberg-js", "package.json"))
	}
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("the iceberg-js test needs node and node_modules/iceberg-js (run npm ci): %v", err)
		}
		t.Skipf("skipping: node or node_modules/iceberg-js missing (%v); run npm ci", err)
	}
	e := newEnv(t, false)
	e.bucket(t, "jslake", catalog.FormatIceberg)
	k, _, err := e.store.CreateAPIKey(context.Background(), "iceberg-js", catalog.RoleReadWrite, "jslake", 0)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), icebergJSTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "--test", "--test-reporter=spec", "test/icebergjs/")
	cmd.Dir = root
	cmd.Env = append(os.Environ(),
		"FLOE_ICEBERG_URL="+e.http.URL,
		"FLOE_WAREHOUSE=jslake",
		"FLOE_CLIENT_ID="+k.AccessKeyID,
		"FLOE_CLIENT_SECRET="+k.SecretAccessKey,
	)
	out, err := cmd.CombinedOutput()
	if err != nil || testing.Verbose() {
		t.Logf("node --test test/icebergjs/:\n%s", out)
	}
	if err != nil {
		t.Fatalf("iceberg-js suite failed: %v", err)
	}
}
