package preview

import (
	"context"
	"io"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/internal/dbschema"
	"github.com/floe/floe/internal/runtest"
	"github.com/floe/floe/observe"
	"github.com/floe/floe/persist/persisttest"
	"github.com/floe/floe/plugin"
)

// TestNodeWorkerInterop runs a Node worker built on @grpc/grpc-js,
// @grpc/proto-loader and apache-arrow (the Lance worker's stack) against the
// real server over TCP on 127.0.0.1: the .proto loads at run time, the
// descriptor is stored, the observation lands, and a preview made by Node's
// Arrow decodes here (dictionary strings, utf8, vectors, nulls).
func TestNodeWorkerInterop(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed")
	}
	root, _ := filepath.Abs("..")
	if _, err := os.Stat(filepath.Join(root, "node_modules", "@grpc", "proto-loader")); err != nil {
		t.Skip("node_modules not installed (npm ci)")
	}
	dir := t.TempDir()
	pdb := persisttest.OpenAt(t, filepath.Join(dir, "c.db"), dbschema.All()...)
	store, err := catalog.New(pdb, catalog.Options{Warehouse: filepath.Join(dir, "wh")})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	obs, err := observe.New(pdb, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer obs.Close()
	p, err := plugin.New(plugin.Config{DB: pdb, Store: store, Observe: obs, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Options: plugin.Options{DisableScheduler: true}})
	if err != nil {
		t.Fatal(err)
	}
	runtest.Start(t, obs, p)
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- p.Serve(ctx, lis) }()
	defer func() { cancel(); <-served }()
	_, token, err := store.CreateWorkerToken(context.Background(), "node")
	if err != nil {
		t.Fatal(err)
	}

	cmd := exec.Command(node, "preview/testdata/node_worker.cjs", lis.Addr().String(), token, "proto/floe/plugin/v1/plugin.proto")
	cmd.Dir = root
	stdin, _ := cmd.StdinPipe()
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { stdin.Close(); cmd.Wait() }()

	deadline := time.Now().Add(testWait)
	for {
		d, ok := p.Descriptor("lance_compact")
		_, observed := obs.WorkerFor("node-table", catalog.FormatLance)
		if ok && observed && len(d.Sections) == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("node worker never described its job type and observed its table (descriptor %v, observed %v)", ok, observed)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if set, err := p.Settings("lance_compact"); err != nil || set.Values["target_rows"] != "1048576" {
		t.Fatalf("settings from the Node descriptor: %+v %v", set, err)
	}

	res, err := New(p, obs).Fetch(context.Background(), Request{ObjectID: "node-table", Format: catalog.FormatLance})
	if err != nil {
		t.Fatal(err)
	}
	if res.WorkerID != "node-worker" || res.RowsRead != 3 || len(res.Columns) != 4 {
		t.Fatalf("result: worker %s rows %d columns %+v", res.WorkerID, res.RowsRead, res.Columns)
	}
	want := [][]Cell{
		{{Text: "1"}, {Text: "a"}, {Text: "x"}, {Text: "[1, 2, 3, 4, 5, …] (6)", Truncated: true}},
		{{Text: "2"}, {Text: "b"}, {Text: ""}, {Text: "[0.5, 0, 0, 0, 0, …] (6)", Truncated: true}},
		{{Text: "3"}, {Null: true}, {Null: true}, {Null: true}},
	}
	for r := range want {
		for c := range want[r] {
			if res.Rows[r][c] != want[r][c] {
				t.Errorf("row %d column %s = %+v, want %+v", r, res.Columns[c].Name, res.Rows[r][c], want[r][c])
			}
		}
	}
}
