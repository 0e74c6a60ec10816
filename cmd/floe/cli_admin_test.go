package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestCLIRefusesUnknownSubcommands: a mistyped subcommand fails with exit
// status 2 and a sentence naming what exists, instead of printing help and
// succeeding; the group alone still prints its help.
func TestCLIRefusesUnknownSubcommands(t *testing.T) {
	for _, args := range [][]string{{"bucket", "lsit"}, {"lsit"}, {"token", "lsit"}, {"user", "remove", "bob"}} {
		out, code := run(t, args...)
		if code != 2 || !strings.Contains(out, "is not a command of") {
			t.Errorf("floe %s: code %d\n%s", strings.Join(args, " "), code, out)
		}
	}
	if out, _ := run(t, "bucket", "lsit"); !strings.Contains(out, "did you mean list?") {
		t.Errorf("no suggestion for lsit:\n%s", out)
	}
	if out, code := run(t, "bucket"); code != 0 || !strings.Contains(out, "Usage:") {
		t.Errorf("floe bucket: code %d\n%s", code, out)
	}
}

// TestCLIRefusesMistypedData: a --data that floe has never used is refused
// (nothing is created there); init makes it, and serve's record makes the
// CLI print the ARNs serve's S3 Tables surface uses.
func TestCLIRefusesMistypedData(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "floe-dat")
	for _, args := range [][]string{{"bucket", "create", "vectors", "--format", "lance"}, {"token", "create", "--role", "readonly"}, {"user", "list"}} {
		out, code := run(t, append(args, "--data", dir)...)
		if code != 2 || !strings.Contains(out, "no floe catalog at") || !strings.Contains(out, "floe init --data "+dir) {
			t.Errorf("floe %s on a fresh --data: code %d\n%s", strings.Join(args, " "), code, out)
		}
	}
	if _, err := os.Stat(dir); err == nil {
		t.Fatalf("a refused command made %s", dir)
	}
	if out, code := run(t, "init", "--data", dir); code != 0 {
		t.Fatalf("init: %d %s", code, out)
	}
	// What serve records for --s3tables-region/--s3tables-account.
	rec := `{"warehouse": "` + filepath.Join(dir, "warehouse") + `", "s3tables_region": "eu-west-3", "s3tables_account": "123456789012"}`
	if err := os.WriteFile(filepath.Join(dir, warehouseRecordFile), []byte(rec), 0o600); err != nil {
		t.Fatal(err)
	}
	out, code := run(t, "bucket", "create", "vectors", "--format", "lance", "--data", dir)
	if code != 0 || !strings.Contains(out, "(arn:aws:s3tables:eu-west-3:123456789012:bucket/vectors)") {
		t.Fatalf("bucket create: %d %s", code, out)
	}
	out, _ = run(t, "bucket", "list", "--json", "--data", dir)
	if !strings.Contains(out, `"arn": "arn:aws:s3tables:eu-west-3:123456789012:bucket/vectors"`) || strings.Contains(out, "arn:floe") {
		t.Fatalf("bucket list --json:\n%s", out)
	}
}

// TestCLITokensAndUsers: keys are listed (never their secrets) with their
// expiry, system keys only on request, and revoked by id; worker tokens
// likewise; users are listed, disabled, enabled and given a role, and the
// last enabled admin is kept.
func TestCLITokensAndUsers(t *testing.T) {
	data := "--data=" + t.TempDir()
	if out, code := run(t, "init", data); code != 0 {
		t.Fatalf("init: %s", out)
	}
	out, code := run(t, "token", "create", "--role", "readonly", "--name", "reports", "--expires-in", "30d", data)
	if code != 0 || !strings.Contains(out, "expires 20") {
		t.Fatalf("token create --expires-in: %d %s", code, out)
	}
	secret := lastLine(out)
	id := regexp.MustCompile(`\((k_[0-9a-f]+)\)`).FindStringSubmatch(out)[1]
	if out, code := run(t, "token", "create", "--role", "readonly", "--expires-in", "soon", data); code != 2 || !strings.Contains(out, "90s, 45m, 12h, 30d or 2w") {
		t.Fatalf("a bad --expires-in: %d %s", code, out)
	}
	if out, code := run(t, "token", "create", "--role", "readonly", "--expires-in", "20000d", data); code != 2 || !strings.Contains(out, "10 years") {
		t.Fatalf("a too long --expires-in: %d %s", code, out)
	}
	out, code = run(t, "token", "list", "--json", data)
	var keys []keyJSON
	if code != 0 || json.Unmarshal([]byte(out), &keys) != nil || len(keys) != 1 || keys[0].ID != id || keys[0].Expires == nil {
		t.Fatalf("token list --json: %d %s", code, out)
	}
	if d := time.Until(*keys[0].Expires); d < 29*24*time.Hour || d > 31*24*time.Hour {
		t.Fatalf("the key expires in %s, want 30 days", d)
	}
	if strings.Contains(out, secret) || strings.Contains(out, "floe_") {
		t.Fatalf("token list shows a secret:\n%s", out)
	}
	if out, _ := run(t, "token", "list", data); !strings.Contains(out, "EXPIRES") || !strings.Contains(out, "reports") {
		t.Fatalf("token list:\n%s", out)
	}
	if out, code := run(t, "token", "revoke", id, data); code != 0 || !strings.Contains(out, "revoked API key "+id) {
		t.Fatalf("token revoke: %d %s", code, out)
	}
	if out, code := run(t, "token", "revoke", id, data); code != 2 || !strings.Contains(out, "does not exist") {
		t.Fatalf("second revoke: %d %s", code, out)
	}
	if out, _ := run(t, "token", "list", "--json", data); strings.TrimSpace(out) != "[]" {
		t.Fatalf("token list after revoke:\n%s", out)
	}

	out, code = run(t, "worker-token", "create", "--name", "edge-worker", data)
	wid := regexp.MustCompile(`\((w_[0-9a-f]+)\)`).FindStringSubmatch(out)
	if code != 0 || wid == nil {
		t.Fatalf("worker-token create: %d %s", code, out)
	}
	if out, code := run(t, "worker-token", "list", "--json", data); code != 0 || !strings.Contains(out, `"name": "edge-worker"`) || strings.Contains(out, "floew_") {
		t.Fatalf("worker-token list: %d %s", code, out)
	}
	if out, code := run(t, "worker-token", "revoke", wid[1], data); code != 0 || !strings.Contains(out, "revoked worker token") {
		t.Fatalf("worker-token revoke: %d %s", code, out)
	}

	for _, step := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"user", "add", "root", "--role", "admin"}, 0, "added admin user root"},
		{[]string{"user", "add", "ana", "--role", "readonly"}, 0, "added readonly user ana"},
		{[]string{"user", "disable", "root"}, 2, "only enabled admin"},
		{[]string{"user", "role", "root", "readonly"}, 2, "only enabled admin"},
		{[]string{"user", "role", "ana", "admin"}, 0, "user ana is admin"},
		{[]string{"user", "disable", "root"}, 0, "user root disabled"},
		{[]string{"user", "role", "ana", "readonly"}, 2, "only enabled admin"},
		{[]string{"user", "list"}, 0, "disabled 20"},
		{[]string{"user", "enable", "root"}, 0, "user root enabled"},
		{[]string{"user", "role", "ana", "owner"}, 2, "admin or readonly"},
		{[]string{"user", "disable", "nobody"}, 2, "does not exist"},
	} {
		out, code := run(t, append(step.args, data)...)
		if code != step.code || !strings.Contains(out, step.want) {
			t.Errorf("floe %s: code %d (want %d)\n%s\nwant %q", strings.Join(step.args, " "), code, step.code, out, step.want)
		}
	}
	out, _ = run(t, "user", "list", "--json", data)
	var users []userJSON
	if json.Unmarshal([]byte(out), &users) != nil || len(users) != 2 || users[0].Name != "ana" || users[0].Role != "admin" || users[1].Disabled != nil {
		t.Fatalf("user list --json:\n%s", out)
	}
}
