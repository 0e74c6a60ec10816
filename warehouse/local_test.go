package warehouse

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// newLocal returns a warehouse in a temp dir and a sibling "outside"
// directory holding secret.txt, the file no operation may reach.
func newLocal(t *testing.T) (*Warehouse, string, string) {
	t.Helper()
	base := t.TempDir()
	dir := filepath.Join(base, "wh")
	outside := filepath.Join(base, "outside")
	if err := os.MkdirAll(outside, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(outside, "secret.txt"), []byte("secret"), 0o644); err != nil {
		t.Fatal(err)
	}
	w, l, err := NewLocal(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return w, dir, outside
}

func TestLocalRoundTrip(t *testing.T) {
	ctx := context.Background()
	w, _, _ := newLocal(t)
	tbl := w.Root().MustJoin("b", "ns", "t")
	meta := tbl.MustJoin("metadata", "00000.json")
	if err := w.CreateExclusive(ctx, meta, []byte("{}")); err != nil {
		t.Fatal(err)
	}
	if err := w.CreateExclusive(ctx, meta, []byte("{}")); !errors.Is(err, ErrExist) {
		t.Fatalf("second CreateExclusive = %v, want ErrExist", err)
	}
	if err := w.WriteFile(ctx, tbl.MustJoin("marker"), []byte("m1")); err != nil {
		t.Fatal(err)
	}
	if err := w.WriteFile(ctx, tbl.MustJoin("marker"), []byte("m2")); err != nil {
		t.Fatal(err)
	}
	if b, err := w.ReadFile(ctx, tbl.MustJoin("marker")); err != nil || string(b) != "m2" {
		t.Fatalf("ReadFile = %q, %v", b, err)
	}
	f, err := w.Open(ctx, meta)
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 1)
	if _, err := f.ReadAt(buf, 1); err != nil || buf[0] != '}' || f.Size() != 2 {
		t.Fatalf("ReadAt = %q, %v, size %d", buf, err, f.Size())
	}
	f.Close()
	var listed []string
	if err := w.List(ctx, tbl, func(e Entry) error { listed = append(listed, e.Loc.String()); return nil }); err != nil {
		t.Fatal(err)
	}
	slices.Sort(listed)
	if want := []string{tbl.MustJoin("marker").String(), meta.String()}; !slices.Equal(listed, want) {
		t.Fatalf("List = %v, want %v", listed, want)
	}
	if err := w.List(ctx, tbl.MustJoin("missing"), func(Entry) error { return nil }); err != nil {
		t.Fatalf("List of a missing prefix = %v, want nil", err)
	}
	if _, err := w.ReadFile(ctx, tbl.MustJoin("missing")); !errors.Is(err, ErrNotExist) {
		t.Fatalf("ReadFile missing = %v, want ErrNotExist", err)
	}
	if err := w.DeletePrefix(ctx, tbl); err != nil {
		t.Fatal(err)
	}
	if ok, err := w.Exists(ctx, tbl); ok || err != nil {
		t.Fatalf("Exists after DeletePrefix = %v, %v", ok, err)
	}
	if err := w.Delete(ctx, meta); err != nil {
		t.Fatalf("Delete of a missing file = %v, want nil", err)
	}
}

func TestLocalRefusesOutsideAndRoot(t *testing.T) {
	ctx := context.Background()
	w, dir, outside := newLocal(t)
	secret := mustParse(t, filepath.Join(outside, "secret.txt"))
	sibling := mustParse(t, dir+"2/x") // shares the root's name as a string prefix
	for _, loc := range []Location{secret, sibling} {
		if _, err := w.ReadFile(ctx, loc); !errors.Is(err, ErrOutside) {
			t.Errorf("ReadFile(%s) = %v, want ErrOutside", loc, err)
		}
		if err := w.WriteFile(ctx, loc, nil); !errors.Is(err, ErrOutside) {
			t.Errorf("WriteFile(%s) = %v, want ErrOutside", loc, err)
		}
		if err := w.DeletePrefix(ctx, loc); !errors.Is(err, ErrOutside) {
			t.Errorf("DeletePrefix(%s) = %v, want ErrOutside", loc, err)
		}
	}
	if err := w.DeletePrefix(ctx, w.Root()); !errors.Is(err, ErrOutside) {
		t.Errorf("DeletePrefix(root) = %v, want ErrOutside", err)
	}
	if _, err := os.Stat(filepath.Join(outside, "secret.txt")); err != nil {
		t.Fatalf("the outside file is gone: %v", err)
	}
}

// TestLocalRefusesSymlinks: a link anywhere below the root is refused,
// whether it points outside the warehouse or inside it.
func TestLocalRefusesSymlinks(t *testing.T) {
	ctx := context.Background()
	w, dir, outside := newLocal(t)
	if err := os.MkdirAll(filepath.Join(dir, "b", "real"), 0o755); err != nil {
		t.Fatal(err)
	}
	links := map[string]string{
		"b/outdir":   outside,
		"b/outfile":  filepath.Join(outside, "secret.txt"),
		"b/indir":    filepath.Join(dir, "b", "real"),
		"b/relative": "real",
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	through := []string{"b/outdir/secret.txt", "b/outfile", "b/indir/x", "b/relative/x", "b/outdir"}
	for _, rel := range through {
		loc := mustParse(t, filepath.Join(dir, rel))
		ops := map[string]error{}
		_, ops["ReadFile"] = w.ReadFile(ctx, loc)
		_, ops["Open"] = w.Open(ctx, loc)
		if ok, err := w.Exists(ctx, loc); ok || (err == nil) != strings.Contains(rel, "/x") {
			// Nothing at the target (…/x) may answer "not there"; what is
			// there is never reported as existing through a link.
			t.Errorf("Exists(%s) = %v, %v", rel, ok, err)
		}
		ops["List"] = w.List(ctx, loc, func(Entry) error { return nil })
		ops["WriteFile"] = w.WriteFile(ctx, loc.MustJoin("new"), []byte("x"))
		ops["CreateExclusive"] = w.CreateExclusive(ctx, loc.MustJoin("new2"), []byte("x"))
		ops["MkdirAll"] = w.MkdirAll(ctx, loc.MustJoin("d"))
		ops["DeletePrefix"] = w.DeletePrefix(ctx, loc)
		ops["Delete"] = w.Delete(ctx, loc)
		for op, err := range ops {
			if !errors.Is(err, ErrSymlink) {
				t.Errorf("%s(%s) = %v, want ErrSymlink", op, rel, err)
			}
		}
	}
	entries, _ := os.ReadDir(outside)
	if len(entries) != 1 {
		t.Fatalf("outside directory changed: %v", entries)
	}
	if entries, _ := os.ReadDir(filepath.Join(dir, "b", "real")); len(entries) != 0 {
		t.Fatalf("link target inside the warehouse changed: %v", entries)
	}
	// Listing the bucket neither follows nor reports the links.
	var listed []string
	if err := w.List(ctx, mustParse(t, filepath.Join(dir, "b")), func(e Entry) error { listed = append(listed, e.Loc.String()); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(listed) != 0 {
		t.Fatalf("List followed links: %v", listed)
	}
}
