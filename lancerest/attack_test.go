package lancerest

// Regression tests for the Lance side of issue 10's location attacks, each
// named after the attack: 4xx with a sentence, nothing written into another
// table or through a link, nothing created outside the warehouse.

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// dirTree lists every file below dir with its size.
func dirTree(t *testing.T, dir string) string {
	t.Helper()
	out := map[string]int64{}
	filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			out[p] = fi.Size()
		}
		return nil
	})
	return fmt.Sprint(out)
}

// refused checks a 4xx answer in the spec's error model with a sentence.
func refused(t *testing.T, what string, r response) {
	t.Helper()
	var body struct {
		Error string `json:"error"`
	}
	json.Unmarshal(r.body, &body)
	if r.status < 400 || r.status >= 500 || len(body.Error) < 20 {
		t.Errorf("%s = %d %s, want a 4xx with a sentence", what, r.status, r.body)
	}
}

func register(e *testEnv, name, loc string) response {
	return e.do("POST", "/v1/table/lnc$ns$"+name+"/register", e.rw, []byte(`{"location":`+jsonString(loc)+`}`))
}

// TestAttackNestedLocation: registering a table inside another table's
// directory is refused, and nothing (no .lance-reserved) is written there.
func TestAttackNestedLocation(t *testing.T) {
	e := newTestEnv(t, false)
	e.seed()
	docs := filepath.Join(e.warehouse, "lnc", "ns", "docs.lance")
	e.must("POST", "/v1/table/lnc$ns$docs/declare", "")
	writeVersions(t, docs, "1.manifest")
	inner := mkdir(t, docs, "data")
	writeVersions(t, inner, "1.manifest") // looks like a dataset of its own
	before := dirTree(t, docs)
	for _, loc := range []string{inner, "file://" + inner, "file://localhost" + inner + "/", docs, "FILE://" + docs} {
		refused(t, "register at "+loc, register(e, "copy", loc))
	}
	if got := dirTree(t, docs); got != before {
		t.Errorf("docs.lance changed:\nbefore %s\nafter  %s", before, got)
	}
	if _, err := os.Stat(filepath.Join(inner, ".lance-reserved")); err == nil {
		t.Error("register wrote .lance-reserved into another table")
	}
	// Around: a table directory that holds another table is refused too.
	refused(t, "register around docs", register(e, "around", filepath.Join(e.warehouse, "lnc", "ns")))
}

// TestAttackDotDotEscape: "file:/../…" never resolves against the working
// directory or climbs out of the warehouse.
func TestAttackDotDotEscape(t *testing.T) {
	e := newTestEnv(t, false)
	e.seed()
	target := mkdir(t, e.warehouse, "lnc", "ns", "esc.lance")
	writeVersions(t, target, "1.manifest")
	cwd, _ := os.Getwd()
	for _, loc := range []string{"file:/.." + target, "file:/../../.." + target, target + "/../esc.lance"} {
		refused(t, "register at "+loc, register(e, "esc", loc))
	}
	if _, err := os.Stat(filepath.Join(cwd, "file:")); err == nil {
		t.Errorf("something was created under %s", filepath.Join(cwd, "file:"))
	}
}

// TestAttackSymlinks: a symbolic link inside the warehouse is never
// followed: registering through a linked directory is refused and nothing
// is written into the link's target.
func TestAttackSymlinks(t *testing.T) {
	e := newTestEnv(t, false)
	e.seed()
	outside := filepath.Join(t.TempDir(), "outside.lance")
	writeVersions(t, outside, "1.manifest")
	inside := filepath.Join(e.warehouse, "lnc", "ns", "inside.lance")
	writeVersions(t, inside, "1.manifest")
	before, beforeInside := dirTree(t, outside), dirTree(t, inside)
	links := map[string]string{"out.lance": outside, "in.lance": inside}
	for name, target := range links {
		link := filepath.Join(e.warehouse, "lnc", "ns", name)
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
		refused(t, "register through link "+name, register(e, "linked", link))
	}
	linkedDir := filepath.Join(e.warehouse, "lnc", "ns", "sub.lance")
	if err := os.Symlink(filepath.Dir(outside), linkedDir); err != nil {
		t.Fatal(err)
	}
	refused(t, "register below a linked directory", register(e, "below", filepath.Join(linkedDir, "outside.lance")))
	if got := dirTree(t, outside); got != before {
		t.Errorf("the link target outside the warehouse changed:\nbefore %s\nafter  %s", before, got)
	}
	if got := dirTree(t, inside); got != beforeInside {
		t.Errorf("the link target inside the warehouse changed:\nbefore %s\nafter  %s", beforeInside, got)
	}
}
