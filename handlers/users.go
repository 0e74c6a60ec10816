package handlers

import (
	"net/http"
	"strings"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/fault"
	"github.com/floe/floe/identity"
	"github.com/floe/floe/views"
)

// The Users page is for admins: the console's users, their roles, who is
// disabled, and a password reset that shows the new password once.

// ListUsers renders /users.
func (h *Handlers) ListUsers(w http.ResponseWriter, r *http.Request) {
	if !h.requireAdmin(w, r) {
		return
	}
	v, err := h.usersView(r)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	if v.Secret != "" {
		w.Header().Set("Cache-Control", "no-store") // the password must not linger in caches
	}
	h.render(w, r, http.StatusOK, views.UsersPage(v))
}

func (h *Handlers) usersView(r *http.Request) (views.UsersView, error) {
	users, err := h.store.ListUsers(r.Context())
	if err != nil {
		return views.UsersView{}, err
	}
	me, _ := UserFrom(r.Context())
	v := views.UsersView{Page: h.page(r, "Users", "users")}
	if k, ok := h.takeSecret(r); ok && k.For == "/users" {
		v.Secret, v.SecretFor = k.Secret, k.Name
	}
	for _, u := range users {
		v.Users = append(v.Users, views.UserRow{Name: u.Name, Role: string(u.Role), CreatedAt: u.CreatedAt,
			DisabledAt: u.DisabledAt, Me: u.Name == me.Name})
	}
	return v, nil
}

// requireAdmin answers 403 to anyone without manage on everything (what
// an admin's role grants): the page lists who may do what. The route asks
// the same (web/routes.go); this keeps the handler safe on its own.
func (h *Handlers) requireAdmin(w http.ResponseWriter, r *http.Request) bool {
	if err := h.Require(r.Context(), identity.Manage, identity.Resource{}); err != nil {
		h.Forbidden(w, r, err)
		return false
	}
	return true
}

// CreateUser adds a user with a generated password, shown once.
func (h *Handlers) CreateUser(w http.ResponseWriter, r *http.Request) {
	if !h.requireAdmin(w, r) {
		return
	}
	name := strings.TrimSpace(r.PostFormValue("username"))
	role := catalog.Role(r.PostFormValue("role"))
	password := generatedPassword()
	u, err := h.store.CreateUser(r.Context(), name, password, role)
	if err != nil {
		field, msg, status, ok := fieldError(err, "username")
		if !ok {
			h.fail(w, r, err)
			return
		}
		v, verr := h.usersView(r)
		if verr != nil {
			h.fail(w, r, verr)
			return
		}
		h.logError(r, status, err)
		v.Name, v.Role, v.Errors = name, string(role), views.FieldErrors{field: msg}
		h.render(w, r, status, views.UsersPage(v))
		return
	}
	h.holdSecret(r, revealed{Name: u.Name, Secret: password, For: "/users"})
	h.flash(r, "User "+u.Name+" added as "+string(u.Role)+". Hand them the password below; they can sign in with it now.")
	redirect(w, r, "/users")
}

// SetUserRole changes a user's role from their next page on.
func (h *Handlers) SetUserRole(w http.ResponseWriter, r *http.Request) {
	name, ok := h.otherUser(w, r, "change your own role")
	if !ok {
		return
	}
	u, err := h.store.SetUserRole(r.Context(), name, catalog.Role(r.PostFormValue("role")))
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.users.forget(name)
	h.flash(r, "User "+u.Name+" is "+string(u.Role)+" from their next page.")
	redirect(w, r, "/users")
}

// DisableUser and EnableUser turn a user's sign-in off and on; disabling
// also signs out their sessions.
func (h *Handlers) DisableUser(w http.ResponseWriter, r *http.Request) { h.setDisabled(w, r, true) }

func (h *Handlers) EnableUser(w http.ResponseWriter, r *http.Request) { h.setDisabled(w, r, false) }

func (h *Handlers) setDisabled(w http.ResponseWriter, r *http.Request, disabled bool) {
	name, ok := h.otherUser(w, r, "disable yourself")
	if !ok {
		return
	}
	if _, err := h.store.SetUserDisabled(r.Context(), name, disabled); err != nil {
		h.fail(w, r, err)
		return
	}
	h.users.forget(name)
	if disabled {
		h.flash(r, "User "+name+" disabled: signed out everywhere, and refused at sign-in until enabled.")
	} else {
		h.flash(r, "User "+name+" enabled; they can sign in again.")
	}
	redirect(w, r, "/users")
}

// ResetUserPassword gives a user a new generated password, shown once, and
// signs out their sessions.
func (h *Handlers) ResetUserPassword(w http.ResponseWriter, r *http.Request) {
	if !h.requireAdmin(w, r) {
		return
	}
	name := r.PathValue("name")
	password := generatedPassword()
	if err := h.store.SetUserPassword(r.Context(), name, password); err != nil {
		h.fail(w, r, err)
		return
	}
	h.users.forget(name)
	h.holdSecret(r, revealed{Name: name, Secret: password, For: "/users"})
	me, _ := UserFrom(r.Context())
	msg := "Password of " + name + " reset; their sessions are signed out. Hand them the new password below."
	if me.Name == name {
		msg = "Your password was reset: sign in again with the new password below."
	}
	h.flash(r, msg)
	redirect(w, r, "/users")
}

// otherUser is the user a role or disable form names, refused when it is
// the admin themselves: an admin locking themselves out is a slip, and
// another admin can make the change.
func (h *Handlers) otherUser(w http.ResponseWriter, r *http.Request, change string) (string, bool) {
	if !h.requireAdmin(w, r) {
		return "", false
	}
	name := r.PathValue("name")
	if me, _ := UserFrom(r.Context()); me.Name == name {
		h.fail(w, r, &fault.Error{Kind: fault.Conflict, Field: "username", Message: "You cannot " + change + " here; ask another admin, or use floe user on the server."})
		return "", false
	}
	return name, true
}

// generatedPassword is a new user's or a reset password, shown once.
func generatedPassword() string { return catalog.RandomPassword() }
