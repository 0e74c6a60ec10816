package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestGrantCommands: floe grant add, list (also --json) and remove, on the
// same catalog the server uses; bad input is a usage error (exit 2) that
// says what to write.
func TestGrantCommands(t *testing.T) {
	data := "--data=" + t.TempDir()
	must := func(want string, args ...string) string {
		t.Helper()
		out, code := run(t, append([]string{data}, args...)...)
		if code != 0 || !strings.Contains(out, want) {
			t.Fatalf("floe %s = %d:\n%s\nwant %q", strings.Join(args, " "), code, out, want)
		}
		return out
	}
	must("made a new floe catalog", "init")
	must("created", "bucket", "create", "demo", "--format", "lance")
	must("created", "namespace", "create", "demo", "sales")
	out := must("created none key", "token", "create", "--role", "none", "--name", "spark")
	keyID := ""
	for _, f := range strings.Fields(out) {
		if strings.HasPrefix(f, "(k_") {
			keyID = strings.Trim(f, "()")
		}
	}
	if keyID == "" {
		t.Fatalf("no key id in %q", out)
	}
	must("granted read on demo/sales to group:analysts", "grant", "add", "group:analysts", "read", "demo/sales")
	must("already holds", "grant", "add", "group:analysts", "read", "demo/sales")
	must("granted write on demo to apikey:"+keyID, "grant", "add", "apikey:"+keyID, "write", "demo")

	var listed []grantJSON
	if err := json.Unmarshal([]byte(must("", "grant", "list", "--place", "demo/sales", "--json")), &listed); err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, g := range listed {
		got[g.Grantee+" "+g.Privilege+" "+g.Place] = true
	}
	if !got["group:analysts read demo/sales"] || !got["apikey:"+keyID+" write demo"] || len(listed) != 2 {
		t.Errorf("grants covering demo/sales: %+v", listed)
	}
	if table := must("WHO", "grant", "list", "--grantee", "group:analysts"); !strings.Contains(table, "demo/sales") || strings.Contains(table, keyID) {
		t.Errorf("the group's grants:\n%s", table)
	}
	must("removed read on demo/sales from group:analysts", "grant", "remove", "group:analysts", "read", "demo/sales")

	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"grant", "add", "analysts", "read", "demo"}, 2, "user:NAME, group:NAME or apikey:ID"},
		{[]string{"grant", "add", "group:analysts", "own", "demo"}, 2, "read, write, maintain, manage"},
		{[]string{"grant", "add", "group:analysts", "read", "demo/sales/t/x"}, 2, "BUCKET/NAMESPACE/TABLE"},
		{[]string{"grant", "add", "group:analysts", "read", "nobucket"}, 2, "nobucket"},
		{[]string{"grant", "add", "apikey:k_0000", "read", "demo"}, 2, "does not exist"},
		{[]string{"grant", "remove", "group:analysts", "read", "demo/sales"}, 2, "holds no read grant"},
		{[]string{"grant", "add", "group:analysts", "read"}, 1, "accepts 3 arg"},
	} {
		out, code := run(t, append([]string{data}, c.args...)...)
		if code != c.code || !strings.Contains(out, c.want) {
			t.Errorf("floe %s = %d:\n%s\nwant %d and %q", strings.Join(c.args, " "), code, out, c.code, c.want)
		}
	}
}
