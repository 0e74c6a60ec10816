package web

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/persist"
)

// passwordSession is a session as a password sign-in makes it now: with
// its sign-in time, so it is checked against the users table.
func (e *env) passwordSession(user string, role catalog.Role) *http.Client {
	e.t.Helper()
	ctx, err := e.server.sessions.Load(context.Background(), "")
	if err != nil {
		e.t.Fatal(err)
	}
	e.server.sessions.Put(ctx, "user", user)
	e.server.sessions.Put(ctx, "role", string(role))
	e.server.sessions.Put(ctx, "signed_in", persist.Micros(time.Now()))
	token, _, err := e.server.sessions.Commit(ctx)
	if err != nil {
		e.t.Fatal(err)
	}
	c := e.anon()
	u, _ := url.Parse(e.srv.URL)
	c.Jar.SetCookies(u, []*http.Cookie{{Name: sessionCookieName, Value: token, Path: "/"}})
	return c
}

// TestUsersPage: admins list, add, re-role, disable, enable and reset users
// on /users; read-only users get neither the page nor its link; a disabled
// user is signed out at once and refused at sign-in with a sentence; a
// role change applies to the user's next page; a reset password signs the
// old sessions out and is shown once.
func TestUsersPage(t *testing.T) {
	e := newEnv(t, allSurfaces)
	admin, reader := e.admin(), e.passwordSession("reader", catalog.RoleReadonly)

	if r := e.get(reader, "/users"); r.status != http.StatusForbidden {
		t.Fatalf("reader GET /users: %d", r.status)
	}
	if r := e.get(reader, "/buckets"); r.has("nav-users") {
		t.Fatal("a reader's side bar links to Users")
	}
	if r := e.post(reader, "/users/admin/disable", url.Values{}); r.status != http.StatusForbidden {
		t.Fatalf("reader disables admin: %d", r.status)
	}
	r := e.get(admin, "/users")
	if r.status != 200 || r.doc.Find(`[data-testid="user-row"]`).Length() != 2 || !r.has("nav-users") {
		t.Fatalf("GET /users: %d\n%s", r.status, r.body)
	}

	// Add a user: the password is shown once and signs in.
	if r := e.post(admin, "/users", url.Values{"username": {"carol"}, "role": {"readonly"}}); r.status != http.StatusSeeOther {
		t.Fatalf("add user: %d %s", r.status, r.body)
	}
	r = e.get(admin, "/users")
	pw := r.text("new-password-secret")
	if len(pw) < 16 || !strings.Contains(r.text("flash"), "carol") {
		t.Fatalf("new user's password %q, flash %q", pw, r.text("flash"))
	}
	if again := e.get(admin, "/users"); again.has("new-password-secret") {
		t.Fatal("the password is shown twice")
	}
	if r := e.post(e.anon(), "/login", url.Values{"username": {"carol"}, "password": {pw}}); r.status != http.StatusSeeOther {
		t.Fatalf("carol signs in: %d", r.status)
	}
	if r := e.post(admin, "/users", url.Values{"username": {"carol"}, "role": {"readonly"}}); r.status != http.StatusConflict || !strings.Contains(r.body, "already exists") {
		t.Fatalf("add carol again: %d", r.status)
	}
	if r := e.post(admin, "/users", url.Values{"username": {"dave"}, "role": {"owner"}}); r.status != http.StatusUnprocessableEntity || !strings.Contains(r.text("error-role"), "admin or readonly") {
		t.Fatalf("add with a bad role: %d %q", r.status, r.text("error-role"))
	}

	// A role change applies to the user's next page.
	if r := e.post(admin, "/users/reader/role", url.Values{"role": {"admin"}}); r.status != http.StatusSeeOther {
		t.Fatalf("role: %d %s", r.status, r.body)
	}
	if r := e.get(reader, "/users"); r.status != 200 || r.text("current-role") != "admin" {
		t.Fatalf("reader after becoming admin: %d role %q", r.status, r.text("current-role"))
	}
	if r := e.post(admin, "/users/reader/role", url.Values{"role": {"readonly"}}); r.status != http.StatusSeeOther {
		t.Fatalf("role back: %d", r.status)
	}

	// Disable: signed out at once, refused at sign-in with a sentence.
	if r := e.post(admin, "/users/reader/disable", url.Values{}); r.status != http.StatusSeeOther {
		t.Fatalf("disable: %d %s", r.status, r.body)
	}
	if r := e.get(reader, "/buckets"); r.status != http.StatusSeeOther || !strings.HasPrefix(r.header.Get("Location"), "/login") {
		t.Fatalf("a disabled user's page: %d %q", r.status, r.header.Get("Location"))
	}
	r = e.post(e.anon(), "/login", url.Values{"username": {"reader"}, "password": {readonlyPass}})
	if r.status != http.StatusForbidden || !strings.Contains(r.text("login-error"), "disabled") {
		t.Fatalf("a disabled user signs in: %d %q", r.status, r.text("login-error"))
	}
	if row := e.get(admin, "/users").doc.Find(`[data-user="reader"]`); row.AttrOr("data-disabled", "") != "true" {
		t.Fatal("the list does not mark reader disabled")
	}
	if r := e.post(admin, "/users/reader/enable", url.Values{}); r.status != http.StatusSeeOther {
		t.Fatalf("enable: %d", r.status)
	}
	if r := e.post(e.anon(), "/login", url.Values{"username": {"reader"}, "password": {readonlyPass}}); r.status != http.StatusSeeOther {
		t.Fatalf("an enabled user signs in: %d", r.status)
	}

	// Reset: shown once, the old password and the old sessions stop.
	carol := e.passwordSession("carol", catalog.RoleReadonly)
	time.Sleep(time.Millisecond) // the reset must come after carol's sign-in on the clock, not at the same microsecond
	if r := e.post(admin, "/users/carol/password", url.Values{}); r.status != http.StatusSeeOther {
		t.Fatalf("reset: %d", r.status)
	}
	newPW := e.get(admin, "/users").text("new-password-secret")
	if newPW == "" || newPW == pw {
		t.Fatalf("reset password %q", newPW)
	}
	if r := e.get(carol, "/buckets"); r.status != http.StatusSeeOther {
		t.Fatalf("carol's old session after the reset: %d", r.status)
	}
	if r := e.post(e.anon(), "/login", url.Values{"username": {"carol"}, "password": {pw}}); r.status != http.StatusUnauthorized {
		t.Fatalf("the old password after the reset: %d", r.status)
	}

	// An admin does not lock themselves out here.
	if r := e.post(admin, "/users/admin/disable", url.Values{}); r.status != http.StatusConflict || !strings.Contains(r.body, "another admin") {
		t.Fatalf("self-disable: %d", r.status)
	}
	if r := e.post(admin, "/users/nobody/disable", url.Values{}); r.status != http.StatusNotFound {
		t.Fatalf("disable nobody: %d", r.status)
	}
}
