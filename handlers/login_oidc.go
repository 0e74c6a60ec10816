package handlers

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/edge"
	"github.com/floe/floe/fault"
	"github.com/floe/floe/identity"
	"github.com/floe/floe/oidc"
	"github.com/floe/floe/persist"
	"github.com/floe/floe/views"
)

// SSO is the console's sign-in through the organization's identity
// provider (an *oidc.Provider); nil in Deps keeps local users only.
type SSO interface {
	Label() string
	Begin(ctx context.Context, next string) (string, oidc.Pending, error)
	Finish(ctx context.Context, p oidc.Pending, code string) (oidc.Identity, error)
	Expired(p oidc.Pending) bool
	ConsoleRole(groups []string) catalog.Role
	NoRights(groups []string) string
}

// sessionPending holds the sign-ins this browser started at the provider
// and has not finished (JSON of []oidc.Pending).
const sessionPending = "oidc_pending"

// maxPending bounds the started sign-ins a session keeps: one per tab a
// person might start one in; the oldest goes first.
const maxPending = 3

// StartOIDC sends the browser to the identity provider, remembering in the
// session what the answer must match (state, nonce, PKCE verifier).
func (h *Handlers) StartOIDC(w http.ResponseWriter, r *http.Request) {
	if h.sso == nil {
		h.fail(w, r, &fault.Error{Kind: fault.NotFound, Field: "route", Message: "sign-in through an identity provider is not configured"})
		return
	}
	authURL, pend, err := h.sso.Begin(r.Context(), safeNext(r.URL.Query().Get("next")))
	if err != nil {
		h.oidcFailed(w, r, err)
		return
	}
	pending := h.pendingSignIns(r.Context())
	if len(pending) >= maxPending {
		pending = pending[len(pending)-maxPending+1:]
	}
	h.putPending(r.Context(), append(pending, pend))
	http.Redirect(w, r, authURL, http.StatusSeeOther)
}

// OIDCCallback takes the identity provider's answer: the sign-in it
// belongs to (by state, once), the code exchanged and the ID token
// verified, the user made or updated from what the provider said, and a
// session under a fresh token, as a password's sign-in gets.
func (h *Handlers) OIDCCallback(w http.ResponseWriter, r *http.Request) {
	if h.sso == nil {
		h.fail(w, r, &fault.Error{Kind: fault.NotFound, Field: "route", Message: "sign-in through an identity provider is not configured"})
		return
	}
	q := r.URL.Query()
	state := q.Get("state")
	pending := h.pendingSignIns(r.Context())
	var pend oidc.Pending
	found := false
	for i, p := range pending {
		if state != "" && p.State == state {
			pend, found = p, true
			pending = append(pending[:i:i], pending[i+1:]...)
			break
		}
	}
	if found {
		h.putPending(r.Context(), pending) // one use, whatever follows
	}
	switch {
	case !found:
		h.oidcRefused(w, r, http.StatusBadRequest, "This answer of the identity provider does not belong to a sign-in started in this browser (it is old, was already used, or comes from another browser). Start the sign-in again.")
		return
	case q.Get("error") != "":
		h.oidcRefused(w, r, http.StatusUnauthorized, "The identity provider refused the sign-in: "+providerError(q.Get("error"), q.Get("error_description"))+".")
		return
	}
	id, err := h.sso.Finish(r.Context(), pend, q.Get("code"))
	if err != nil {
		h.oidcFailed(w, r, err)
		return
	}
	role := h.sso.ConsoleRole(id.Groups)
	u, err := h.store.SignInIdPUser(r.Context(), catalog.IdPSignIn{Issuer: id.Issuer, Subject: id.Subject, Name: id.Name, Groups: id.Groups, Role: role})
	if err != nil {
		h.fail(w, r, err)
		return
	}
	if u.Disabled() { // an admin disabled the user in floe: the provider's yes does not undo that
		h.oidcRefused(w, r, http.StatusForbidden, "You signed in as "+u.Name+" through "+h.sso.Label()+", but an admin disabled this user in floe. Ask one to enable it (Users page).")
		return
	}
	if role == "" && !h.grantsAny(r.Context(), u) {
		h.log.Info("sign-in through the identity provider gives no role", "user", u.Name, "groups", u.Groups, "request_id", edge.RequestID(r.Context()))
		h.oidcRefused(w, r, http.StatusForbidden, "You signed in as "+u.Name+" through "+h.sso.Label()+", but "+h.sso.NoRights(u.Groups)+". Ask an administrator for access.")
		return
	}
	if err := h.sessions.RenewToken(r.Context()); err != nil {
		h.fail(w, r, err)
		return
	}
	cu := User{Name: u.Name, Role: u.Role, Groups: u.Groups, Via: viaOIDC}
	h.sessions.Put(r.Context(), sessionUser, cu.Name)
	h.sessions.Put(r.Context(), sessionRole, string(cu.Role))
	h.sessions.Put(r.Context(), sessionGroups, cu.Groups)
	h.sessions.Put(r.Context(), sessionVia, viaOIDC)
	h.sessions.Put(r.Context(), sessionSignedIn, persist.Micros(h.now())) // a disable signs it out (SessionUser)
	edge.SetPrincipal(r.Context(), cu.Principal())
	next := pend.Next
	if next == "" {
		next = "/buckets"
	}
	http.Redirect(w, r, next, http.StatusSeeOther)
}

// pendingSignIns reads the session's started sign-ins, dropping expired
// ones (and anything unreadable: the session is floe's own, so that is a
// format from an older floe, safely forgotten).
func (h *Handlers) pendingSignIns(ctx context.Context) []oidc.Pending {
	var all, live []oidc.Pending
	if raw := h.sessions.GetString(ctx, sessionPending); raw != "" && json.Unmarshal([]byte(raw), &all) != nil {
		return nil
	}
	for _, p := range all {
		if !h.sso.Expired(p) {
			live = append(live, p)
		}
	}
	return live
}

func (h *Handlers) putPending(ctx context.Context, pending []oidc.Pending) {
	if len(pending) == 0 {
		h.sessions.Remove(ctx, sessionPending)
		return
	}
	b, _ := json.Marshal(pending) // strings and an int always marshal
	h.sessions.Put(ctx, sessionPending, string(b))
}

// oidcFailed answers a sign-in the provider or its answer failed, with the
// console's error page and a sentence: a provider that does not answer is
// 503, an answer that does not verify 401, a server fault 500.
func (h *Handlers) oidcFailed(w http.ResponseWriter, r *http.Request, err error) {
	e, ok := fault.As(err)
	if !ok {
		h.fail(w, r, err)
		return
	}
	switch e.Kind {
	case fault.Unavailable:
		h.log.Warn("the identity provider failed a sign-in", "err", err, "cause", e.Err, "request_id", edge.RequestID(r.Context()))
		h.oidcRefused(w, r, http.StatusServiceUnavailable, "The sign-in through "+h.sso.Label()+" did not finish: "+e.Message+". Local users can still sign in with their password.")
	case fault.Unauthenticated, fault.Invalid:
		h.log.Info("a sign-in through the identity provider was refused", "err", err, "cause", e.Err, "request_id", edge.RequestID(r.Context()))
		h.oidcRefused(w, r, http.StatusUnauthorized, "The sign-in through "+h.sso.Label()+" did not finish: "+e.Message+". Start it again.")
	default:
		h.fail(w, r, err)
	}
}

// oidcRefused renders the error page of a sign-in, with the way back to
// the sign-in page.
func (h *Handlers) oidcRefused(w http.ResponseWriter, r *http.Request, status int, msg string) {
	v := views.ErrorView{Page: h.page(r, "Sign-in failed", ""), Status: status, Heading: "Sign-in failed", Message: msg, Back: "/login", BackLabel: "Back to sign-in"}
	h.render(w, r, status, views.ErrorPage(v))
}

// providerError is the provider's error code and description for a
// sentence: printable, and short enough for a page.
func providerError(code, desc string) string {
	s := code
	if desc != "" {
		s += " (" + desc + ")"
	}
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return -1
		}
		return r
	}, s)
	if len(s) > 300 {
		s = strings.ToValidUTF8(s[:300], "") + "…"
	}
	return strings.TrimRight(s, ".")
}

// grantsAny reports whether the user signing in through the identity
// provider, whose groups map to no console role, holds a grant of its own
// or through a group: then the grants alone decide what it may do (the
// authorizer answers every page), as they do for an API key. A database
// that cannot be asked counts as none (the sign-in is refused, not opened).
func (h *Handlers) grantsAny(ctx context.Context, u catalog.User) bool {
	rights, err := h.authz.Rights(ctx, identity.Principal{Kind: identity.User, ID: u.Name, Name: u.Name, Groups: u.Groups, Via: viaOIDC})
	return err == nil && rights.Any()
}
