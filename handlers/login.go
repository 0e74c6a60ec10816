package handlers

import (
	"errors"
	"net/http"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/edge"
	"github.com/floe/floe/fault"
	"github.com/floe/floe/persist"
	"github.com/floe/floe/views"
)

// ShowLogin renders the sign-in form; a signed-in user goes straight on.
func (h *Handlers) ShowLogin(w http.ResponseWriter, r *http.Request) {
	if _, ok := h.SessionUser(r.Context()); ok {
		http.Redirect(w, r, "/buckets", http.StatusSeeOther)
		return
	}
	h.render(w, r, http.StatusOK, views.LoginPage(views.LoginForm{Next: safeNext(r.URL.Query().Get("next")), SSOLabel: h.ssoLabel()}))
}

// Login checks the password and starts a session under a fresh token, so a
// token planted before sign-in is worthless after it.
func (h *Handlers) Login(w http.ResponseWriter, r *http.Request) {
	name, pass := r.PostFormValue("username"), r.PostFormValue("password")
	next := safeNext(r.PostFormValue("next"))
	client := clientAddr(r)
	if wait := h.signin.wait(name, client); wait > 0 {
		h.log.Warn("sign-in throttled", "user", name, "client", client, "retry_after", wait, "request_id", edge.RequestID(r.Context()))
		w.Header().Set("Retry-After", retryAfter(wait))
		h.render(w, r, http.StatusTooManyRequests, views.LoginPage(views.LoginForm{Username: name, Next: next, Error: retrySentence(wait), SSOLabel: h.ssoLabel()}))
		return
	}
	var u catalog.User
	var err error = fault.NotFound // empty fields are refused without a hash comparison
	if name != "" && pass != "" {
		u, err = h.store.Authenticate(r.Context(), name, pass)
	}
	if errors.Is(err, catalog.ErrUserDisabled) {
		h.log.Info("sign-in refused: user disabled", "user", name, "client", client, "request_id", edge.RequestID(r.Context()))
		h.render(w, r, http.StatusForbidden, views.LoginPage(views.LoginForm{Username: name, Next: next, Error: fault.Message(err, "This user is disabled.")}))
		return
	}
	if errors.Is(err, fault.NotFound) {
		h.log.Info("sign-in refused", "user", name, "client", client, "request_id", edge.RequestID(r.Context()))
		msg := "Wrong username or password."
		if lock := h.signin.fail(name, client); lock > 0 {
			h.log.Warn("sign-in locked after repeated failures", "user", name, "client", client, "lock", lock, "request_id", edge.RequestID(r.Context()))
			msg += " " + retrySentence(lock)
		}
		h.render(w, r, http.StatusUnauthorized, views.LoginPage(views.LoginForm{Username: name, Next: next, Error: msg, SSOLabel: h.ssoLabel()}))
		return
	}
	if err != nil {
		h.fail(w, r, err)
		return
	}
	if err := h.sessions.RenewToken(r.Context()); err != nil {
		h.fail(w, r, err)
		return
	}
	h.signin.succeed(name, client)
	h.sessions.Put(r.Context(), sessionUser, u.Name)
	h.sessions.Put(r.Context(), sessionRole, string(u.Role))
	h.sessions.Put(r.Context(), sessionSignedIn, persist.Micros(h.now()))
	edge.SetPrincipal(r.Context(), User{Name: u.Name, Role: u.Role}.Principal()) // the access log names who signed in
	if next == "" {
		next = "/buckets"
	}
	http.Redirect(w, r, next, http.StatusSeeOther)
}

// ssoLabel names the identity provider on the sign-in page; "" when
// there is none.
func (h *Handlers) ssoLabel() string {
	if h.sso == nil {
		return ""
	}
	return h.sso.Label()
}

// Logout ends the session.
func (h *Handlers) Logout(w http.ResponseWriter, r *http.Request) {
	if err := h.sessions.Destroy(r.Context()); err != nil {
		h.fail(w, r, err)
		return
	}
	redirect(w, r, "/login")
}
