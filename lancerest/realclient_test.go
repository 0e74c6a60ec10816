package lancerest

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/floe/floe/catalog"
)

// realClientTimeout bounds one node run; LanceDB's native module loads in
// seconds and the suites write a few small datasets.
const realClientTimeout = 5 * time.Minute

// realClients are the LanceDB releases the REST journey runs: the one floe
// ships (package.json's @lancedb/lancedb) and the one before it, kept as the
// npm alias lancedb031 so clients a release behind keep working.
var realClients = []struct{ name, module string }{
	{"lancedb-0.39", "@lancedb/lancedb"},
	{"lancedb-0.31", "lancedb031"},
}

// TestRealLanceDBClient runs test/lancedb/*.test.mjs (node:test) with each
// real client against this handler over loopback on a real catalog, then
// stops the server and runs the offline phase, where plain connect(dir)
// must open the same tables.
func TestRealLanceDBClient(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	node, err := exec.LookPath("node")
	for _, c := range realClients {
		if err == nil {
			_, err = os.Stat(filepath.Join(root, "node_modules", c.module, "package.json"))
		}
	}
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("the real LanceDB client test needs node and both LanceDB clients in node_modules (run npm ci): %v", err)
		}
		t.Skipf("skipping: node or a LanceDB client in node_modules missing (%v); run npm ci", err)
	}
	for _, client := range realClients {
		t.Run(client.name, func(t *testing.T) { runRealClient(t, root, node, client.module) })
	}
}

func runRealClient(t *testing.T, root, node, module string) {
	dir := t.TempDir()
	ctx := context.Background()
	st, err := catalog.Open(ctx, catalog.Options{Path: filepath.Join(dir, "catalog.db"), Warehouse: filepath.Join(dir, "warehouse")})
	if err != nil {
		t.Fatalf("catalog.Open: %v", err)
	}
	t.Cleanup(func() { st.Close() })
	_, key, err := st.CreateAPIKey(ctx, "lancedb-js", catalog.RoleReadWrite, "", 0)
	if err != nil {
		t.Fatalf("CreateAPIKey: %v", err)
	}
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	srv := httptest.NewServer(New(Config{Store: st, Logger: logger}).Handler())
	defer srv.Close()

	run := func(phase string) {
		t.Helper()
		cctx, cancel := context.WithTimeout(ctx, realClientTimeout)
		defer cancel()
		cmd := exec.CommandContext(cctx, node, "--test", "--test-reporter=spec", "test/lancedb/")
		cmd.Dir = root
		cmd.Env = append(os.Environ(),
			"FLOE_LANCE_URL="+srv.URL,
			"FLOE_API_KEY="+key,
			"FLOE_WAREHOUSE="+st.Warehouse(),
			"FLOE_PHASE="+phase,
			"FLOE_LANCEDB_MODULE="+module,
		)
		out, err := cmd.CombinedOutput()
		var exit *exec.ExitError
		if err != nil || testing.Verbose() {
			t.Logf("node --test test/lancedb/ (%s, %s phase):\n%s", module, phase, out)
		}
		if errors.As(err, &exit) || err != nil {
			t.Fatalf("%s phase failed: %v", phase, err)
		}
	}
	run("online")
	srv.Close()
	run("offline")
}
