// Package pgtest runs a real PostgreSQL for tests: Debian's initdb and
// pg_ctl in a temporary directory, reached through a Unix socket in that
// directory (no TCP port at all, so parallel test binaries never meet), as
// an unprivileged user (PostgreSQL refuses to run as root). One server serves a
// test binary; each test gets a fresh database that is dropped when it ends.
//
// A package using it calls Main from its TestMain so the server is stopped
// and its directory removed when the tests finish:
//
//	func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }
//
// The server starts on the first DSN call, so a package whose selected
// tests never ask for PostgreSQL never starts one. Without the binaries a
// test asking for one skips with a sentence saying what to install, unless
// the environment variable CI is set: there it fails, because CI installs
// them.
package pgtest

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // database/sql driver "pgx"
)

// libRoot is where Debian installs one directory per server major version.
const libRoot = "/usr/lib/postgresql"

// runAs is the unprivileged account the server runs under when the tests
// run as root; Debian's postgresql package creates it.
const runAs = "postgres"

// superuser is the role initdb creates; trust authentication on loopback
// only, in a throw-away cluster, so it needs no password.
const superuser = "floe"

// startTimeout bounds pg_ctl's wait for the server to accept connections;
// a cold start on a loaded two-core machine takes a few seconds.
const startTimeout = 60 * time.Second

// socketPort only names the socket file (.s.PGSQL.5432) inside the
// cluster's own directory; with listen_addresses empty no TCP port is
// bound, so any number of clusters use the same number.
const socketPort = 5432

// maxConnections leaves room for every parallel test's pool plus the admin
// connection; PostgreSQL's default of 100 runs out under t.Parallel.
const maxConnections = 300

var (
	once    sync.Once
	server  *Server
	errBoot error
	seq     atomic.Int64
)

// Server is one running PostgreSQL cluster.
type Server struct {
	dir     string // temporary directory: data, socket and log
	bin     string // directory holding initdb, pg_ctl
	started bool
	admin   *sql.DB
}

// Main runs the tests and stops the server (if one was started) before
// returning the exit code for os.Exit.
func Main(m *testing.M) int {
	code := m.Run()
	if server != nil {
		server.stop()
	}
	return code
}

// Available reports whether PostgreSQL's server binaries are installed.
func Available() bool {
	_, err := binDir()
	return err == nil
}

// DSN returns the URL of a fresh, empty database on the shared server,
// dropped when t ends. It skips t (fails under CI) when PostgreSQL is not
// installed, and fails t when the server cannot start.
func DSN(t testing.TB) string {
	t.Helper()
	if _, err := binDir(); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("PostgreSQL is required in CI: %v", err)
		}
		t.Skipf("PostgreSQL tests skipped: %v (apt-get install postgresql to run them)", err)
	}
	once.Do(func() { server, errBoot = start() })
	if errBoot != nil {
		t.Fatalf("start PostgreSQL: %v", errBoot)
	}
	name := fmt.Sprintf("t%d_%d", os.Getpid(), seq.Add(1))
	ctx := context.Background()
	if _, err := server.admin.ExecContext(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatalf("create database %s: %v", name, err)
	}
	t.Cleanup(func() {
		// WITH (FORCE) ends connections a test left open, so the drop
		// never waits on a leaked pool.
		if _, err := server.admin.ExecContext(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
			t.Errorf("drop database %s: %v", name, err)
		}
	})
	return server.url(name)
}

func (s *Server) url(db string) string {
	q := url.Values{"host": {s.dir}, "port": {strconv.Itoa(socketPort)}, "sslmode": {"disable"}}
	return fmt.Sprintf("postgres://%s@/%s?%s", superuser, db, q.Encode())
}

// options are the server settings of every start: the socket in the
// cluster's directory and no TCP listener; durability off (a throw-away
// cluster).
func (s *Server) options() string {
	return fmt.Sprintf("-k %s -p %d -c listen_addresses='' -c max_connections=%d"+
		" -c fsync=off -c synchronous_commit=off -c full_page_writes=off", s.dir, socketPort, maxConnections)
}

// binDir finds the newest installed major version's bin directory.
func binDir() (string, error) {
	entries, err := os.ReadDir(libRoot)
	if err != nil {
		return "", fmt.Errorf("no PostgreSQL server under %s", libRoot)
	}
	var majors []int
	for _, e := range entries {
		if n, err := strconv.Atoi(e.Name()); err == nil {
			majors = append(majors, n)
		}
	}
	sort.Sort(sort.Reverse(sort.IntSlice(majors)))
	for _, m := range majors {
		bin := filepath.Join(libRoot, strconv.Itoa(m), "bin")
		if _, err := os.Stat(filepath.Join(bin, "pg_ctl")); err == nil {
			return bin, nil
		}
	}
	return "", fmt.Errorf("no pg_ctl under %s/<major>/bin", libRoot)
}

func start() (*Server, error) {
	bin, err := binDir()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "floe-pg-")
	if err != nil {
		return nil, err
	}
	s := &Server{dir: dir, bin: bin}
	if err := s.boot(); err != nil {
		s.stop()
		return nil, err
	}
	return s, nil
}

func (s *Server) boot() error {
	if os.Geteuid() == 0 {
		u, err := user.Lookup(runAs)
		if err != nil {
			return fmt.Errorf("running as root needs the %s user to run the server: %w", runAs, err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := os.Chown(s.dir, uid, gid); err != nil {
			return err
		}
	}
	data := filepath.Join(s.dir, "data")
	if out, err := s.run("initdb", "-D", data, "-U", superuser, "-A", "trust",
		"-E", "UTF8", "--locale=C", "--no-sync"); err != nil {
		return fmt.Errorf("initdb: %v: %s", err, out)
	}
	out, err := s.run("pg_ctl", "-D", data, "-o", s.options(), "-l", filepath.Join(s.dir, "log"),
		"-w", "-t", strconv.Itoa(int(startTimeout/time.Second)), "start")
	if err != nil {
		log, _ := os.ReadFile(filepath.Join(s.dir, "log"))
		return fmt.Errorf("pg_ctl start: %v: %s %s", err, out, tail(string(log)))
	}
	s.started = true
	admin, err := sql.Open("pgx", s.url("postgres"))
	if err != nil {
		return err
	}
	admin.SetMaxOpenConns(2)
	s.admin = admin
	return admin.Ping()
}

// stop shuts the server down at once and removes its directory.
func (s *Server) stop() {
	if s.admin != nil {
		s.admin.Close()
	}
	if s.started {
		s.run("pg_ctl", "-D", filepath.Join(s.dir, "data"), "-m", "immediate", "-w", "stop")
	}
	os.RemoveAll(s.dir)
}

// Restart stops the server and starts it again on the same socket, for tests
// of what floe does while its database is away. It fails t on error.
func Restart(t testing.TB, down func()) {
	t.Helper()
	if server == nil {
		t.Fatal("pgtest.Restart before any DSN call")
	}
	data := filepath.Join(server.dir, "data")
	if out, err := server.run("pg_ctl", "-D", data, "-m", "fast", "-w", "stop"); err != nil {
		t.Fatalf("pg_ctl stop: %v: %s", err, out)
	}
	if down != nil {
		down()
	}
	if out, err := server.run("pg_ctl", "-D", data, "-o", server.options(), "-l", filepath.Join(server.dir, "log"),
		"-w", "start"); err != nil {
		t.Fatalf("pg_ctl start: %v: %s", err, out)
	}
	// The admin pool's connections died with the old server; a fresh pool
	// keeps later creates and drops from meeting them.
	admin, err := sql.Open("pgx", server.url("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	admin.SetMaxOpenConns(2)
	server.admin.Close()
	server.admin = admin
}

// run runs one of the server's programs, as the unprivileged user when the
// tests run as root.
func (s *Server) run(prog string, args ...string) ([]byte, error) {
	path := filepath.Join(s.bin, prog)
	var cmd *exec.Cmd
	if os.Geteuid() == 0 {
		cmd = exec.Command("runuser", append([]string{"-u", runAs, "--", path}, args...)...)
	} else {
		cmd = exec.Command(path, args...)
	}
	cmd.Dir = s.dir
	return cmd.CombinedOutput()
}

// tail keeps the end of the server log for an error message.
func tail(s string) string {
	const keep = 2000 // the last few log lines say why a start failed
	s = strings.TrimSpace(s)
	if len(s) > keep {
		s = s[len(s)-keep:]
	}
	return s
}
