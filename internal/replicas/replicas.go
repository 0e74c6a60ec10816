// Package replicas starts several real `floe serve` processes on one
// PostgreSQL database (persist/pgtest) and one shared warehouse directory,
// for tests of what replicas share: the catalog, sessions, jobs and their
// leases, the task quota, detection schedules.
//
// The floe binary is built once per test binary with `go build`; each
// replica gets its own data directory and its own loopback ports for every
// surface. A package using it calls pgtest.Main from its TestMain:
//
//	func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }
//
// Without PostgreSQL the tests skip with a sentence (fail under CI=true),
// as pgtest.DSN does.
package replicas

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/floe/floe/persist/pgtest"
)

// AdminPassword is the console password of the admin user every cluster
// starts with (FLOE_ADMIN_PASSWORD of the first replica).
const AdminPassword = "replicas-admin-password"

// readyTimeout bounds a replica's start: migrations under the advisory lock,
// a cold node start of the bundled worker, all on a loaded two-core machine.
const readyTimeout = 90 * time.Second

// stopTimeout is how long Stop waits after SIGTERM before it kills.
const stopTimeout = 15 * time.Second

// logKeep bounds the log lines a replica keeps for a failure message.
const logKeep = 400

// Options shape a cluster.
type Options struct {
	// N is the number of replicas (default 2).
	N int
	// WithWorker lists the replicas (by index) started with --with-worker.
	WithWorker []int
	// Args are extra `floe serve` flags for every replica.
	Args []string
	// Env is extra environment for every replica.
	Env []string
}

// Cluster is N replicas sharing one database and one warehouse.
type Cluster struct {
	t         testing.TB
	bin       string
	root      string // repository root: the replicas' working directory
	DSN       string // the shared PostgreSQL database
	Warehouse string // the shared warehouse directory
	// APIKey is a readwrite key for every bucket, created before the
	// replicas started.
	APIKey string
	// AccessKeyID and SecretAccessKey are APIKey's SigV4 pair, for the S3
	// Tables surface.
	AccessKeyID, SecretAccessKey string
	Replicas                     []*Replica
}

// Replica is one `floe serve` process.
type Replica struct {
	Index int
	Data  string // its own data directory
	// URLs of its surfaces (http://127.0.0.1:port); GRPC is host:port.
	Console, Lance, Iceberg, S3Tables, GRPC string

	args []string
	env  []string
	c    *Cluster

	mu        sync.Mutex
	cmd       *exec.Cmd
	done      chan struct{} // closed when the process has exited
	logs      []string
	startLine string // this run's "floe started" log line, once logged
}

var (
	buildOnce sync.Once
	buildBin  string
	buildErr  error
)

// Start starts a cluster and stops every replica when t ends.
func Start(t testing.TB, o Options) *Cluster {
	t.Helper()
	dsn := pgtest.DSN(t) // skips (fails in CI) without PostgreSQL
	if o.N <= 0 {
		o.N = 2
	}
	root, err := repoRoot()
	if err != nil {
		t.Fatal(err)
	}
	buildOnce.Do(func() { buildBin, buildErr = build(root) })
	if buildErr != nil {
		t.Fatalf("build floe: %v", buildErr)
	}
	dir := t.TempDir()
	c := &Cluster{t: t, bin: buildBin, root: root, DSN: dsn, Warehouse: filepath.Join(dir, "warehouse")}
	if err := os.MkdirAll(c.Warehouse, 0o755); err != nil {
		t.Fatal(err)
	}
	// The first CLI run applies the migrations (under the advisory lock)
	// and creates the key the tests use.
	out, err := c.CLI("token", "create", "--role", "readwrite", "--name", "replicas-test")
	if err != nil {
		t.Fatalf("floe token create: %v\n%s", err, out)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	c.APIKey = strings.TrimSpace(lines[len(lines)-1])
	for _, l := range lines {
		if rest, ok := strings.CutPrefix(l, "S3 Tables (SigV4): access key id "); ok {
			id, secret, _ := strings.Cut(rest, ", secret access key ")
			c.AccessKeyID, c.SecretAccessKey = strings.TrimSpace(id), strings.TrimSpace(secret)
		}
	}
	withWorker := map[int]bool{}
	for _, i := range o.WithWorker {
		withWorker[i] = true
	}
	for i := range o.N {
		r := &Replica{Index: i, Data: filepath.Join(dir, fmt.Sprintf("replica%d", i)), c: c}
		if err := os.MkdirAll(r.Data, 0o755); err != nil {
			t.Fatal(err)
		}
		r.args = append([]string{"--data", r.Data, "--catalog", dsn, "--warehouse", c.Warehouse}, o.Args...)
		if withWorker[i] {
			r.args = append(r.args, "--with-worker")
		}
		r.env = append([]string{"FLOE_ADMIN_PASSWORD=" + AdminPassword}, o.Env...)
		c.Replicas = append(c.Replicas, r)
	}
	t.Cleanup(func() {
		for _, r := range c.Replicas {
			r.Stop()
		}
		if t.Failed() {
			for _, r := range c.Replicas {
				t.Logf("replica %d log (last %d lines):\n%s", r.Index, logKeep, r.Log())
			}
		}
	})
	// Replicas start one after the other: each binds its ports itself
	// before the next picks free ones.
	for _, r := range c.Replicas {
		if err := r.Start(); err != nil {
			t.Fatalf("replica %d: %v\n%s", r.Index, err, r.Log())
		}
	}
	return c
}

// CLI runs a floe command against the cluster's database and warehouse and
// returns its combined output.
func (c *Cluster) CLI(args ...string) (string, error) {
	full := append([]string{"--catalog", c.DSN, "--data", filepath.Join(filepath.Dir(c.Warehouse), "cli")}, args...)
	cmd := exec.Command(c.bin, full...)
	cmd.Dir = c.root
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// Start (re)starts the replica on loopback ports it binds itself
// (127.0.0.1:0: none is picked free beforehand and lost to another process),
// learns them from its "floe started" log line, and waits until its /readyz
// answers 200.
func (r *Replica) Start() error {
	args := append([]string{"serve", "--log-json", "--http", "127.0.0.1:0", "--lance", "127.0.0.1:0",
		"--iceberg", "127.0.0.1:0", "--s3tables", "127.0.0.1:0", "--grpc", "127.0.0.1:0"}, r.args...)
	return r.run(args)
}

// started reads the bound addresses from this run's "floe started" JSON log
// line; false until it has been logged.
func (r *Replica) started() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	var l map[string]any
	if r.startLine == "" || json.Unmarshal([]byte(r.startLine), &l) != nil {
		return false
	}
	str := func(k string) string { v, _ := l[k].(string); return v }
	r.Console, r.Lance, r.Iceberg, r.S3Tables = str("console"), "http://"+str("lance"), "http://"+str("iceberg"), "http://"+str("s3tables")
	r.GRPC = str("grpc")
	return true
}

func (r *Replica) run(args []string) error {
	cmd := exec.Command(r.c.bin, args...)
	cmd.Dir = r.c.root
	cmd.Env = append(os.Environ(), r.env...)
	// Its own process group, so Kill takes the bundled workers with it, as
	// a host failure would.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	pr, pw := io.Pipe()
	cmd.Stdout, cmd.Stderr = pw, pw
	if err := cmd.Start(); err != nil {
		return err
	}
	done := make(chan struct{})
	r.mu.Lock()
	r.cmd, r.done, r.startLine = cmd, done, ""
	r.mu.Unlock()
	go r.collect(pr)
	go func() {
		_ = cmd.Wait()
		pw.Close()
		close(done)
	}()
	ctx, cancel := context.WithTimeout(context.Background(), readyTimeout)
	defer cancel()
	for up := false; ; {
		select {
		case <-done:
			return fmt.Errorf("floe serve exited before it was ready")
		case <-ctx.Done():
			r.Kill()
			return fmt.Errorf("not ready within %s", readyTimeout)
		case <-time.After(100 * time.Millisecond):
		}
		if !up {
			up = r.started()
		}
		if up && r.Ready() {
			return nil
		}
	}
}

func (r *Replica) collect(rd io.Reader) {
	sc := bufio.NewScanner(rd)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		r.mu.Lock()
		if strings.Contains(sc.Text(), `"msg":"floe started"`) {
			r.startLine = sc.Text()
		}
		r.logs = append(r.logs, sc.Text())
		if len(r.logs) > logKeep {
			r.logs = r.logs[len(r.logs)-logKeep:]
		}
		r.mu.Unlock()
	}
	_, _ = io.Copy(io.Discard, rd)
}

// Log returns the replica's last log lines.
func (r *Replica) Log() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return strings.Join(r.logs, "\n")
}

// Ready reports whether the replica's /readyz answers 200 now.
func (r *Replica) Ready() bool {
	client := http.Client{Timeout: 2 * time.Second}
	resp, err := client.Get(r.Console + "/readyz")
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

// Kill ends the replica and its bundled workers with SIGKILL (kill -9: no
// shutdown, no lease released) and waits until it is gone.
func (r *Replica) Kill() {
	r.mu.Lock()
	cmd, done := r.cmd, r.done
	r.mu.Unlock()
	if cmd == nil || cmd.Process == nil {
		return
	}
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	<-done
}

// Stop asks the replica to shut down (SIGTERM), kills it after a while,
// and ends any bundled worker left in its process group.
func (r *Replica) Stop() {
	r.mu.Lock()
	cmd, done := r.cmd, r.done
	r.mu.Unlock()
	if cmd == nil || cmd.Process == nil {
		return
	}
	_ = cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-done:
	case <-time.After(stopTimeout):
	}
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	<-done
}

// Alive reports whether the process still runs.
func (r *Replica) Alive() bool {
	r.mu.Lock()
	done := r.done
	r.mu.Unlock()
	if done == nil {
		return false
	}
	select {
	case <-done:
		return false
	default:
		return true
	}
}

// build compiles ./cmd/floe into a temporary directory.
func build(root string) (string, error) {
	dir, err := os.MkdirTemp("", "floe-replicas-")
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "floe")
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/floe")
	cmd.Dir = root
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("%v: %s", err, out.String())
	}
	return bin, nil
}

// repoRoot is the module root: two levels above this file.
func repoRoot() (string, error) {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return "", fmt.Errorf("cannot find the repository root")
	}
	root := filepath.Dir(filepath.Dir(filepath.Dir(file)))
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		return "", fmt.Errorf("no go.mod at %s: %w", root, err)
	}
	return root, nil
}
