package icebergrest

// Regression tests for the location attacks of issue 10, each named after
// the attack. Every one answers 4xx with a sentence and leaves nothing
// deleted or written outside the table it names.

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/iceberg"
)

var emptySchema = map[string]any{"type": "struct", "fields": []any{}}

// attackEnv is a bucket "ice" with namespace "ns1" on a fresh catalog.
func attackEnv(t *testing.T) (*testEnv, string) {
	t.Helper()
	e := newEnv(t, true)
	e.bucket(t, "ice", catalog.FormatIceberg)
	if code, body := e.call(t, "POST", "/v1/ice/namespaces", "", map[string]any{"namespace": []string{"ns1"}}); code != 200 {
		t.Fatalf("create namespace: %d %v", code, body)
	}
	return e, filepath.Join(e.store.Warehouse(), "ice", "ns1")
}

// createVictim creates table name at its default location and puts a data
// file beside its metadata; it returns the table's directory.
func createVictim(t *testing.T, e *testEnv, nsDir, name string) string {
	t.Helper()
	if code, body := e.call(t, "POST", "/v1/ice/namespaces/ns1/tables", "", map[string]any{"name": name, "schema": emptySchema}); code != 200 {
		t.Fatalf("create %s: %d %v", name, code, body)
	}
	dir := filepath.Join(nsDir, name)
	if err := os.MkdirAll(filepath.Join(dir, "data"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "data", "keep.parquet"), []byte("victim data"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// tree lists every file below dir with its size.
func tree(t *testing.T, dir string) map[string]int64 {
	t.Helper()
	out := map[string]int64{}
	filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			out[p] = fi.Size()
		}
		return nil
	})
	return out
}

func sameTree(t *testing.T, what string, before, after map[string]int64) {
	t.Helper()
	if fmt.Sprint(before) != fmt.Sprint(after) {
		t.Errorf("%s changed:\nbefore %v\nafter  %v", what, before, after)
	}
}

// wantRefused checks a 4xx answer whose message is a sentence.
func wantRefused(t *testing.T, what string, code int, body map[string]any) {
	t.Helper()
	e, _ := body["error"].(map[string]any)
	msg, _ := e["message"].(string)
	if code < 400 || code >= 500 || len(msg) < 20 {
		t.Errorf("%s = %d %q, want a 4xx with a sentence", what, code, msg)
	}
}

// TestAttackFileAliasPurge: another spelling of a table's location (file://,
// file:/, FILE://, file://localhost/, doubled or trailing slashes) is the
// same location, so it is refused as taken, and a purge can never reach the
// victim's data through an alias.
func TestAttackFileAliasPurge(t *testing.T) {
	e, nsDir := attackEnv(t)
	victim := createVictim(t, e, nsDir, "victim1")
	before := tree(t, victim)
	aliases := []string{
		victim,
		"file://" + victim,
		"file:" + victim,
		"FILE://" + victim,
		"file://localhost" + victim,
		"file://" + strings.ReplaceAll(victim, "/", "//"),
		victim + "/",
		"file://" + victim + "/./",
	}
	for i, alias := range aliases {
		name := fmt.Sprintf("alias%d", i)
		code, body := e.call(t, "POST", "/v1/ice/namespaces/ns1/tables", "", map[string]any{"name": name, "location": alias, "schema": emptySchema})
		wantRefused(t, "create at "+alias, code, body)
		if code, _ := e.call(t, "DELETE", "/v1/ice/namespaces/ns1/tables/"+name+"?purgeRequested=true", "", nil); code != 404 {
			t.Errorf("purge of the refused alias %s = %d, want 404", alias, code)
		}
	}
	sameTree(t, "victim1's files", before, tree(t, victim))
	if code, body := e.call(t, "GET", "/v1/ice/namespaces/ns1/tables/victim1", "", nil); code != 200 {
		t.Fatalf("victim1 after the attack: %d %v", code, body)
	}
}

// TestAttackNestedLocation: a table inside another table's directory (or
// registered from its metadata) is refused, so dropping it cannot delete the
// other table's files.
func TestAttackNestedLocation(t *testing.T) {
	e, nsDir := attackEnv(t)
	victim := createVictim(t, e, nsDir, "victim2")
	before := tree(t, victim)
	for _, loc := range []string{victim + "/metadata", "file://" + victim + "/data/inner", nsDir, filepath.Dir(nsDir)} {
		code, body := e.call(t, "POST", "/v1/ice/namespaces/ns1/tables", "", map[string]any{"name": "inner", "location": loc, "schema": emptySchema})
		wantRefused(t, "create at "+loc, code, body)
		if code, _ := e.call(t, "DELETE", "/v1/ice/namespaces/ns1/tables/inner?purgeRequested=true", "", nil); code != 404 {
			t.Errorf("purge of the refused table at %s = %d, want 404", loc, code)
		}
	}
	entry, err := e.store.GetTable(context.Background(), catalog.TableRef{Bucket: "ice", Namespace: []string{"ns1"}, Name: "victim2"})
	if err != nil {
		t.Fatal(err)
	}
	code, body := e.call(t, "POST", "/v1/ice/namespaces/ns1/register", "", map[string]any{"name": "copy", "metadata-location": entry.MetadataLocation})
	wantRefused(t, "register of victim2's metadata as another table", code, body)
	sameTree(t, "victim2's files", before, tree(t, victim))
}

// TestAttackDotDotEscape: "file:/../…" is refused by the one parser, so
// nothing is created at the path the working directory would resolve it
// to, nor anywhere else outside the warehouse.
func TestAttackDotDotEscape(t *testing.T) {
	e, nsDir := attackEnv(t)
	cwd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(nsDir, "esc")
	for _, loc := range []string{"file:/.." + target, "file:/../../.." + target, target + "/../../../../esc", "file:///" + nsDir + "/../ns1/esc"} {
		code, body := e.call(t, "POST", "/v1/ice/namespaces/ns1/tables", "", map[string]any{"name": "esc", "location": loc, "schema": emptySchema})
		wantRefused(t, "create at "+loc, code, body)
	}
	// Where the old code's catalog resolved "file:/.." + target: relative to
	// the working directory, outside the warehouse.
	leaked := filepath.Join(cwd, "file:", "..", target)
	if _, err := os.Stat(leaked); err == nil {
		os.RemoveAll(filepath.Join(cwd, strings.Split(strings.TrimPrefix(target, "/"), "/")[0]))
		t.Fatalf("a table directory was created outside the warehouse at %s", leaked)
	}
	if _, err := os.Stat(target); err == nil {
		t.Errorf("a refused create made %s", target)
	}
}

// TestAttackSymlinkBrowseData: Browse Data never reads through a symbolic
// link, even one a data file path of the table's own metadata names; the
// page says why in a note instead of showing the link target's rows.
func TestAttackSymlinkBrowseData(t *testing.T) {
	ctx := context.Background()
	e, tbl := appendedTable(t)
	files, err := tbl.Scan().PlanFiles(ctx)
	if err != nil || len(files) < 2 {
		t.Fatalf("plan files: %d, %v", len(files), err)
	}
	victim := strings.TrimPrefix(files[0].File.FilePath(), "file://")
	linked := files[0].File.Count()
	outside := filepath.Join(t.TempDir(), "outside.parquet")
	copyFile(t, victim, outside)
	if err := os.Remove(victim); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, victim); err != nil {
		t.Fatal(err)
	}
	rows, err := iceberg.ReadRows(ctx, e.store.Storage(), mustTable(t, e, "t"), 0, 200)
	if err != nil {
		t.Fatalf("ReadRows: %v", err)
	}
	if int64(len(rows.Rows)) != 50-linked {
		t.Errorf("read %d rows, want %d: the %d rows behind the link must not be shown", len(rows.Rows), 50-linked, linked)
	}
	if len(rows.Notes) != 1 || !strings.Contains(rows.Notes[0], "symbolic link") {
		t.Errorf("notes %v, want one saying the file is a symbolic link", rows.Notes)
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	src, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	dst, err := os.Create(to)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		t.Fatal(err)
	}
	if err := dst.Close(); err != nil {
		t.Fatal(err)
	}
}
