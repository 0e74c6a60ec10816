package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/floe/floe/persist/persisttest"
	"github.com/floe/floe/persist/pgtest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// TestPostgres runs the catalog commands against PostgreSQL (--catalog).
func TestPostgres(t *testing.T) {
	persisttest.Run(t, []persisttest.Test{{Name: "TestCatalogCommands", Fn: TestCatalogCommands}})
}

// run executes the floe command line in-process and returns stdout and the
// exit code main would use.
func run(t *testing.T, args ...string) (string, int) {
	t.Helper()
	cmd := newRootCmd()
	var out bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&out)
	cmd.SetArgs(args)
	if err := cmd.ExecuteContext(context.Background()); err != nil {
		return out.String() + err.Error(), exitCode(err)
	}
	return out.String(), 0
}

func TestEveryCommandHasHelp(t *testing.T) {
	var walk func(c *cobra.Command, path []string)
	walk = func(c *cobra.Command, path []string) {
		for _, sub := range c.Commands() {
			p := append(append([]string{}, path...), sub.Name())
			if sub.Name() == "help" || sub.Name() == "completion" {
				continue
			}
			out, code := run(t, append(p, "--help")...)
			if code != 0 || !strings.Contains(out, "Usage:") || sub.Short == "" {
				t.Errorf("floe %s --help: code %d, short %q:\n%s", strings.Join(p, " "), code, sub.Short, out)
			}
			walk(sub, p)
		}
	}
	walk(newRootCmd(), nil)
}

func TestCatalogCommands(t *testing.T) {
	dir := t.TempDir()
	data := "--data=" + dir
	if persisttest.OnPostgres(t) {
		data = "--catalog=" + persisttest.Path(t, dir)
	}
	steps := []struct {
		args     []string
		code     int
		want     string
		wantJSON bool
		sqlite   bool // only on a SQLite catalog (a PostgreSQL one is named explicitly)
	}{
		{args: []string{"bucket", "list"}, code: 2, want: "floe init", sqlite: true},
		{args: []string{"init"}, want: "made a new floe catalog", sqlite: true},
		{args: []string{"init"}, want: "nothing changed", sqlite: true},
		{args: []string{"bucket", "create", "vectors", "--format", "lance"}, want: "created LANCE bucket vectors (arn:aws:s3tables:us-east-1:"},
		{args: []string{"bucket", "create", "lake", "--format", "iceberg"}, want: "created ICEBERG bucket lake"},
		{args: []string{"bucket", "create", "coordinated", "--format", "lance", "--managed-versioning"}, want: "managed versioning is on"},
		{args: []string{"bucket", "create", "icy", "--format", "iceberg", "--managed-versioning"}, code: 2, want: "Lance commits"},
		{args: []string{"bucket", "managed-versioning", "vectors", "on"}, want: "managed versioning of bucket vectors is on"},
		{args: []string{"bucket", "managed-versioning", "vectors", "maybe"}, code: 2, want: "on or off"},
		{args: []string{"bucket", "managed-versioning", "lake", "on"}, code: 2, want: "declared for Iceberg"},
		{args: []string{"bucket", "managed-versioning", "vectors", "off"}, want: "is off"},
		{args: []string{"bucket", "create", "vectors", "--format", "lance"}, code: 2, want: "already exists"},
		{args: []string{"bucket", "create", "Bad$Name", "--format", "lance"}, code: 2, want: "lower-case"},
		{args: []string{"bucket", "create", "nofmt"}, code: 2, want: "--format is required"},
		{args: []string{"bucket", "create", "x1", "--format", "parquet"}, code: 2, want: "lance or iceberg"},
		{args: []string{"namespace", "create", "vectors", "docs"}, want: "created namespace docs"},
		{args: []string{"namespace", "create", "vectors", "a.b"}, code: 2, want: "parent namespace"},
		{args: []string{"namespace", "create", "vectors", "docs.eu"}, want: "created namespace docs.eu"},
		{args: []string{"namespace", "create", "nobucket", "docs"}, code: 2, want: "nobucket"},
		{args: []string{"bucket", "list", "--json"}, wantJSON: true, want: `"name": "lake"`},
		{args: []string{"bucket", "list", "--json"}, wantJSON: true, want: `"managed_versioning": true`},
		{args: []string{"namespace", "list", "vectors", "--json"}, wantJSON: true, want: `"namespace": "docs.eu"`},
		{args: []string{"table", "list", "vectors", "--json"}, wantJSON: true, want: `[]`},
		{args: []string{"table", "list", "vectors", "docs"}, want: "NAMESPACE"},
		{args: []string{"user", "add", "alice", "--role", "root"}, code: 2, want: "admin or readonly"},
		{args: []string{"user", "add", "alice", "--role", "readonly"}, want: "password (shown once)"},
		{args: []string{"token", "create", "--role", "readwrite", "--bucket", "nobucket"}, code: 2, want: "nobucket"},
		{args: []string{"token", "create", "--role", "admin"}, code: 2, want: "readwrite, readonly or none"},
		{args: []string{"worker-token", "create"}, want: "floew_"},
		{args: []string{"bucket", "delete", "lake"}, want: "deleted bucket lake"},
		{args: []string{"bucket", "delete", "vectors"}, code: 2, want: "not empty (2 namespaces, 0 tables)"},
	}
	for _, s := range steps {
		if s.sqlite && persisttest.OnPostgres(t) {
			continue
		}
		t.Run(strings.Join(s.args, " "), func(t *testing.T) {
			out, code := run(t, append(s.args, data, "--data="+dir)...)
			if code != s.code || !strings.Contains(out, s.want) {
				t.Fatalf("code %d (want %d), output:\n%s\nwant it to contain %q", code, s.code, out, s.want)
			}
			if s.wantJSON && !json.Valid([]byte(out)) {
				t.Fatalf("--json printed invalid JSON:\n%s", out)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(dir, "catalog.db")); persisttest.OnPostgres(t) && err == nil {
		t.Error("with --catalog postgres://… the commands still wrote catalog.db")
	}
}

// TestTokenCreatePrintsKeyLast: scripts take the key from the last line.
func TestTokenCreatePrintsKeyLast(t *testing.T) {
	data := "--data=" + t.TempDir()
	if out, code := run(t, "init", data); code != 0 {
		t.Fatalf("init: %s", out)
	}
	if _, code := run(t, "bucket", "create", "vectors", "--format", "lance", data); code != 0 {
		t.Fatal("bucket create failed")
	}
	out, code := run(t, "token", "create", "--role", "readonly", "--bucket", "vectors", data)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != 0 || !strings.HasPrefix(lines[len(lines)-1], "floe_") {
		t.Fatalf("code %d, output:\n%s", code, out)
	}
}
