package handlers

import (
	"net/http"
	"strings"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/fault"
	"github.com/floe/floe/identity"
	"github.com/floe/floe/safety"
)

// The console's side of protection, force and the recently deleted: one
// helper answers "may this user manage that?" through safety (today's rule
// until grants land: the admin role), one reads a destructive form's force.

// canManage reports whether the signed-in user manages res.
func (h *Handlers) canManage(r *http.Request, res identity.Resource) bool {
	u, ok := UserFrom(r.Context())
	if !ok {
		return false
	}
	return safety.Require(r.Context(), h.manager, u.Principal(), res, "") == nil
}

// principalString is who acts, as the recently deleted list records it.
func principalString(r *http.Request) string {
	u, _ := UserFrom(r.Context())
	return u.Principal().String()
}

// force reads a destructive form's force checkbox. Forcing needs the
// manage privilege and, as a second look, the name typed in confirm (the
// table form's own confirm, or the force confirm of the namespace and
// bucket forms).
func (h *Handlers) force(r *http.Request, res identity.Resource, name string) (bool, error) {
	if r.PostFormValue("force") != "true" {
		return false, nil
	}
	u, _ := UserFrom(r.Context())
	ok, err := safety.Force(r.Context(), h.manager, u.Principal(), res, true)
	if err != nil {
		return false, err
	}
	if strings.TrimSpace(r.PostFormValue("confirm")) != name {
		return false, catalog.Invalid("confirm", "To force past protection, type the name "+name+" exactly; nothing was changed.")
	}
	return ok, nil
}

// requireManage refuses an undrop, purge or protect the user may not do.
func (h *Handlers) requireManage(r *http.Request, res identity.Resource, what string) error {
	u, _ := UserFrom(r.Context())
	return safety.Require(r.Context(), h.manager, u.Principal(), res, what)
}

// onParam reads a protect form's on=true|false.
func onParam(r *http.Request) (bool, error) {
	switch r.PostFormValue("on") {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return false, &fault.Error{Kind: fault.Invalid, Field: "on", Message: "on must be true or false."}
}
