package catalog

import (
	"context"
	"errors"
	"golang.org/x/crypto/bcrypt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// newTestStore opens a Store on a fresh directory: catalog.db plus a
// warehouse beside it, as floe serve lays them out.
func newTestStore(t *testing.T) *Store {
	t.Helper()
	dir := t.TempDir()
	return openAt(t, dir)
}

func openAt(t *testing.T, dir string) *Store {
	t.Helper()
	s, err := Open(context.Background(), Options{Path: filepath.Join(dir, "catalog.db"), Warehouse: filepath.Join(dir, "warehouse"), BcryptCost: bcrypt.MinCost})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func mustBucket(t *testing.T, s *Store, name string, f Format) Bucket {
	t.Helper()
	b, err := s.CreateBucket(context.Background(), CreateBucketInput{Name: name, Format: f, Owner: "tester"})
	if err != nil {
		t.Fatalf("CreateBucket(%s): %v", name, err)
	}
	return b
}

func mustNamespace(t *testing.T, s *Store, bucket string, levels ...string) Namespace {
	t.Helper()
	ns, err := s.CreateNamespace(context.Background(), bucket, levels, nil)
	if err != nil {
		t.Fatalf("CreateNamespace(%s, %v): %v", bucket, levels, err)
	}
	return ns
}

func mustTable(t *testing.T, s *Store, ref TableRef, f Format) Table {
	t.Helper()
	tb, created, err := s.CreateTable(context.Background(), CreateTableInput{TableRef: ref, Format: f})
	if err != nil || !created {
		t.Fatalf("CreateTable(%v, %s) = created %v, %v", ref, f, created, err)
	}
	return tb
}

// wantKind fails unless err is a *Error of the kind.
func wantKind(t *testing.T, err error, kind error) *Error {
	t.Helper()
	if !errors.Is(err, kind) {
		t.Fatalf("error = %v, want kind %v", err, kind)
	}
	var ce *Error
	if !errors.As(err, &ce) {
		t.Fatalf("error %v is not a *catalog.Error", err)
	}
	return ce
}

func exists(t *testing.T, path string) bool {
	t.Helper()
	_, err := os.Stat(diskPath(path))
	if err == nil {
		return true
	}
	if !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("stat %s: %v", path, err)
	}
	return false
}

// writeData puts a fake dataset file in a table location so tests can see
// whether data survives.
func writeData(t *testing.T, loc string) string {
	t.Helper()
	p := filepath.Join(diskPath(loc), "data", "part-0.bin")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("rows"), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// diskPath is the local path of a canonical file:// location (or a path).
func diskPath(loc string) string { return strings.TrimPrefix(loc, "file://") }
