package catalog

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/floe/floe/fault"
)

func TestMigrationsIdempotentOnReopen(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s1 := openAt(t, dir)
	mustBucket(t, s1, "keep", FormatLance)
	first, err := s1.db.Applied(ctx, MigrationOwner)
	if err != nil {
		t.Fatal(err)
	}
	files, _ := fs.Glob(Migrations().Files, "*.sql")
	if len(first) != len(files) || !strings.HasPrefix(first[0], "0001") {
		t.Fatalf("applied %v, embedded %v", first, files)
	}
	s1.Close()
	s2 := openAt(t, dir)
	again, err := s2.db.Applied(ctx, MigrationOwner)
	if err != nil || strings.Join(again, ",") != strings.Join(first, ",") {
		t.Fatalf("versions after reopen %v, %v", again, err)
	}
	if _, err := s2.GetBucket(ctx, "keep"); err != nil {
		t.Fatalf("data lost on reopen: %v", err)
	}
}

func TestOpenConcurrently(t *testing.T) {
	// Two processes starting at once (floe serve and a CLI command) race to
	// migrate a fresh file; both must open and apply each migration once.
	dir := t.TempDir()
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, err := Open(context.Background(), Options{Path: filepath.Join(dir, "catalog.db"), Warehouse: filepath.Join(dir, "wh")})
			if err == nil {
				s.Close()
			}
			errs[i] = err
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	s := openAt(t, dir)
	var n, distinct int
	if err := s.db.QueryRowContext(context.Background(), `SELECT COUNT(*), COUNT(DISTINCT version) FROM persist_migrations WHERE owner = 'catalog'`).Scan(&n, &distinct); err != nil {
		t.Fatal(err)
	}
	if n != distinct {
		t.Errorf("%d migration rows for %d versions", n, distinct)
	}
}

func TestTwoStoresWriteConcurrently(t *testing.T) {
	// Two Stores on one file stand in for the server and the CLI: each has
	// its own connection pool, so SQLite's file locks are what keep them
	// apart.
	ctx := context.Background()
	dir := t.TempDir()
	server, cli := openAt(t, dir), openAt(t, dir)
	mustBucket(t, server, "shared", FormatUnset)
	mustNamespace(t, server, "shared", "ns")
	const perStore = 20
	var wg sync.WaitGroup
	errc := make(chan error, 4*perStore)
	for si, s := range []*Store{server, cli} {
		wg.Add(2)
		go func() {
			defer wg.Done()
			for i := range perStore {
				r := TableRef{Bucket: "shared", Namespace: []string{"ns"}, Name: fmt.Sprintf("s%d-t%d", si, i)}
				if _, _, err := s.CreateTable(ctx, CreateTableInput{TableRef: r, Format: FormatIceberg}); err != nil {
					errc <- err
				}
			}
		}()
		go func() {
			defer wg.Done()
			for i := range perStore {
				if _, err := s.CreateNamespace(ctx, "shared", []string{fmt.Sprintf("s%d-n%d", si, i)}, nil); err != nil {
					errc <- err
				}
				if _, _, err := s.ListTables(ctx, "shared", []string{"ns"}, ListTablesOptions{}); err != nil {
					errc <- err
				}
			}
		}()
	}
	wg.Wait()
	close(errc)
	for err := range errc {
		t.Errorf("concurrent write failed: %v", err)
	}
	for _, s := range []*Store{server, cli} {
		n, err := s.CountTables(ctx, "shared", []string{"ns"}, ListTablesOptions{})
		if err != nil || n != 2*perStore {
			t.Errorf("CountTables = %d, %v, want %d", n, err, 2*perStore)
		}
	}
}

func TestOpenOddPaths(t *testing.T) {
	for _, name := range []string{"with space", "per%cent", "what?", "hash#tag"} {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), name)
			s := openAt(t, dir)
			mustBucket(t, s, "lake", FormatUnset)
			if !exists(t, filepath.Join(dir, "catalog.db")) {
				t.Fatal("catalog.db not at the literal path")
			}
		})
	}
}

func TestOpenOptions(t *testing.T) {
	cases := []struct {
		name string
		opts Options
	}{
		{"no path", Options{Warehouse: t.TempDir()}},
		{"no warehouse", Options{Path: filepath.Join(t.TempDir(), "c.db")}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Open(context.Background(), tc.opts)
			wantKind(t, err, fault.Invalid)
		})
	}
	t.Run("region and account in ARNs", func(t *testing.T) {
		dir := t.TempDir()
		s, err := Open(context.Background(), Options{Path: filepath.Join(dir, "c.db"), Warehouse: dir + "/wh", Region: "eu-1", Account: "123456789012"})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		b := mustBucket(t, s, "lake", FormatUnset)
		if b.ARN != "arn:floe:s3tables:eu-1:123456789012:bucket/lake" {
			t.Errorf("ARN %q", b.ARN)
		}
	})
}

// crossProcessEnv carries the directory to a child test process.
const crossProcessEnv = "FLOE_CATALOG_CHILD_DIR"

func TestCrossProcessWrites(t *testing.T) {
	if os.Getenv(crossProcessEnv) != "" {
		t.Skip("running as a child")
	}
	ctx := context.Background()
	dir := t.TempDir()
	s := openAt(t, dir)
	mustBucket(t, s, "shared", FormatUnset)
	mustNamespace(t, s, "shared", "ns")
	// Two child processes (the CLI, twice) write while this one (the
	// server) writes too; SQLite's file locks are all that keeps them apart.
	var children []*exec.Cmd
	var outs []*bytes.Buffer
	for i := range 2 {
		cmd := exec.Command(os.Args[0], "-test.run=^TestCrossProcessChild$", "-test.count=1")
		cmd.Env = append(os.Environ(), crossProcessEnv+"="+dir, "FLOE_CATALOG_CHILD_PREFIX="+fmt.Sprintf("c%d", i))
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		children = append(children, cmd)
		outs = append(outs, &out)
	}
	for i := range crossProcessTables {
		r := TableRef{Bucket: "shared", Namespace: []string{"ns"}, Name: fmt.Sprintf("parent-%d", i)}
		if _, _, err := s.CreateTable(ctx, CreateTableInput{TableRef: r, Format: FormatLance}); err != nil {
			t.Errorf("parent write: %v", err)
		}
	}
	for i, c := range children {
		if err := c.Wait(); err != nil {
			t.Errorf("child %d failed: %v\n%s", i, err, outs[i])
		}
	}
	n, err := s.CountTables(ctx, "shared", []string{"ns"}, ListTablesOptions{IncludeDeclared: true})
	if err != nil || n != 3*crossProcessTables {
		t.Errorf("CountTables = %d, %v, want %d", n, err, 3*crossProcessTables)
	}
	if b, _ := s.GetBucket(ctx, "shared"); b.TableCount != 3*crossProcessTables {
		t.Errorf("TableCount = %d", b.TableCount)
	}
}

const crossProcessTables = 15

// TestCrossProcessChild is the child half of TestCrossProcessWrites.
func TestCrossProcessChild(t *testing.T) {
	dir := os.Getenv(crossProcessEnv)
	if dir == "" {
		t.Skip("only runs as a child of TestCrossProcessWrites")
	}
	s := openAt(t, dir)
	prefix := os.Getenv("FLOE_CATALOG_CHILD_PREFIX")
	for i := range crossProcessTables {
		r := TableRef{Bucket: "shared", Namespace: []string{"ns"}, Name: fmt.Sprintf("%s-%d", prefix, i)}
		if _, _, err := s.CreateTable(context.Background(), CreateTableInput{TableRef: r, Format: FormatLance}); err != nil {
			t.Fatalf("child write: %v", err)
		}
	}
}
