package main

import (
	"bytes"
	"context"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/floe/floe/catalog"
)

// runIn executes the command line with stdin.
func runIn(t *testing.T, stdin string, args ...string) (string, int) {
	t.Helper()
	cmd := newRootCmd()
	var out bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&out)
	cmd.SetIn(strings.NewReader(stdin))
	cmd.SetArgs(args)
	if err := cmd.ExecuteContext(context.Background()); err != nil {
		return out.String() + err.Error(), exitCode(err)
	}
	return out.String(), 0
}

func TestUserPasswd(t *testing.T) {
	dir := t.TempDir()
	data := "--data=" + dir
	if out, code := runIn(t, "", "init", data); code != 0 {
		t.Fatalf("init: %d %s", code, out)
	}
	if out, code := runIn(t, "first-password-1\n", "user", "add", "polish", "--role", "admin", "--password-stdin", data); code != 0 {
		t.Fatalf("add: %d %s", code, out)
	}
	steps := []struct {
		name, stdin string
		args        []string
		code        int
		want        string
	}{
		{"piped", "second-password-2\n", []string{"user", "passwd", "polish", "--password-stdin"}, 0, "password of user polish reset"},
		{"empty stdin", "", []string{"user", "passwd", "polish", "--password-stdin"}, 2, "no password on standard input"},
		{"unknown user", "third-password-3\n", []string{"user", "passwd", "nobody", "--password-stdin"}, 2, "nobody"},
		{"too short", "x\n", []string{"user", "passwd", "polish"}, 2, "password"},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			out, code := runIn(t, s.stdin, append(s.args, data)...)
			if code != s.code || !strings.Contains(out, s.want) {
				t.Fatalf("code %d (want %d), output:\n%s\nwant %q", code, s.code, out, s.want)
			}
		})
	}
	st, err := catalog.Open(context.Background(), catalog.Options{Path: filepath.Join(dir, "catalog.db"), Warehouse: filepath.Join(dir, "warehouse")})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := st.Authenticate(context.Background(), "polish", "second-password-2"); err != nil {
		t.Fatalf("the reset password does not sign in: %v", err)
	}
	if _, err := st.Authenticate(context.Background(), "polish", "first-password-1"); err == nil {
		t.Fatal("the old password still signs in")
	}
}

// TestUserList: local users and those the identity provider signed in,
// with their groups; an identity-provider user gets no password.
func TestUserList(t *testing.T) {
	dir := t.TempDir()
	data := "--data=" + dir
	if out, code := runIn(t, "", "init", data); code != 0 {
		t.Fatalf("init: %d %s", code, out)
	}
	if out, code := runIn(t, "first-password-1\n", "user", "add", "polish", "--role", "admin", "--password-stdin", data); code != 0 {
		t.Fatalf("add: %d %s", code, out)
	}
	st, err := catalog.Open(context.Background(), catalog.Options{Path: filepath.Join(dir, "catalog.db"), Warehouse: filepath.Join(dir, "warehouse")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.SignInIdPUser(context.Background(), catalog.IdPSignIn{Issuer: "https://idp.example.test", Subject: "s-1", Name: "ada", Groups: []string{"analysts", "ml"}, Role: catalog.RoleReadonly}); err != nil {
		t.Fatal(err)
	}
	st.Close()
	out, code := runIn(t, "", "user", "list", data)
	if code != 0 || !regexpMatch(`(?m)^ada\s+readonly\s+idp\s+analysts,ml\s+\d{4}-`, out) || !regexpMatch(`(?m)^polish\s+admin\s+local\s+-\s+-`, out) {
		t.Fatalf("user list (%d):\n%s", code, out)
	}
	out, code = runIn(t, "", "user", "list", "--json", data)
	if code != 0 || !strings.Contains(out, `"source": "idp"`) || !strings.Contains(out, `"subject": "s-1"`) {
		t.Fatalf("user list --json (%d):\n%s", code, out)
	}
	out, code = runIn(t, "a-new-password-1\n", "user", "passwd", "ada", "--password-stdin", data)
	if code == 0 || !strings.Contains(out, "signs in through the identity provider") {
		t.Fatalf("passwd of an identity-provider user (%d):\n%s", code, out)
	}
}

func regexpMatch(re, s string) bool { return regexp.MustCompile(re).MatchString(s) }
