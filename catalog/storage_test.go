package catalog

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

func TestLocalDisk(t *testing.T) {
	dir := t.TempDir()
	var d LocalDisk
	cases := []struct {
		name string
		run  func(t *testing.T)
	}{
		{"mkdir, write, exists, remove", func(t *testing.T) {
			p := filepath.Join(dir, "a", "b")
			if err := d.MkdirAll(p); err != nil {
				t.Fatal(err)
			}
			f := filepath.Join(p, "f")
			if err := d.WriteFile(f, []byte("x")); err != nil {
				t.Fatal(err)
			}
			if ok, err := d.Exists(f); !ok || err != nil {
				t.Fatalf("Exists = %v, %v", ok, err)
			}
			if err := d.Remove(f); err != nil {
				t.Fatal(err)
			}
			if err := d.Remove(f); err != nil {
				t.Fatalf("removing a missing file: %v", err)
			}
			if err := d.RemoveAll(filepath.Join(dir, "a")); err != nil || exists(t, p) {
				t.Fatalf("RemoveAll: %v", err)
			}
		}},
		{"file URIs are local", func(t *testing.T) {
			f := "file://" + filepath.Join(dir, "u", "f")
			if err := d.WriteFile(f, []byte("x")); err != nil {
				t.Fatal(err)
			}
			if !exists(t, filepath.Join(dir, "u", "f")) {
				t.Fatal("file:// write did not land locally")
			}
		}},
		{"remote URIs are refused, not faked", func(t *testing.T) {
			if err := d.WriteFile("s3://b/k", []byte("x")); err == nil {
				t.Error("WriteFile to s3 pretended to work")
			}
			if err := d.RemoveAll("s3://b/k"); err == nil {
				t.Error("RemoveAll on s3 pretended to work")
			}
			if ok, err := d.Exists("s3://b/k"); ok || err != nil {
				t.Errorf("Exists = %v, %v", ok, err)
			}
			if _, err := os.Stat("s3:"); err == nil {
				t.Error("a local s3: directory appeared")
			}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, tc.run)
	}
}

func TestRemoteLocationTables(t *testing.T) {
	ctx := context.Background()
	s := lakeFixture(t)
	r := ref("ice-b", "remote")
	tb, created, err := s.CreateTable(ctx, CreateTableInput{TableRef: r, Format: FormatIceberg, Location: "s3://bucket/wh/remote"})
	if err != nil || !created || tb.Location != "s3://bucket/wh/remote" {
		t.Fatalf("CreateTable = %+v, %v", tb, err)
	}
	// Dropping cannot delete remote data with local storage: it must fail
	// and keep the entry, not report a deletion that did not happen.
	if _, err := s.DropTable(ctx, r); err == nil {
		t.Fatal("DropTable claimed to delete s3 data through local storage")
	}
	if _, err := s.GetTable(ctx, r); err != nil {
		t.Fatalf("entry lost after failed drop: %v", err)
	}
}
