package handlers

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"

	"github.com/a-h/templ"

	"github.com/floe/floe/authz"
	"github.com/floe/floe/edge"
	"github.com/floe/floe/fault"
	"github.com/floe/floe/identity"
	"github.com/floe/floe/views"
)

// MaxBodyBytes caps every console request body: console forms are a few
// short fields, so anything near this size is not a form of ours.
const MaxBodyBytes = 64 << 10

// render writes a component only after it rendered completely, so a failure
// halfway never leaves a half page on the wire.
func (h *Handlers) render(w http.ResponseWriter, r *http.Request, status int, c templ.Component) {
	var buf bytes.Buffer
	if err := c.Render(r.Context(), &buf); err != nil {
		h.logError(r, http.StatusInternalServerError, err)
		http.Error(w, "The page could not be rendered. The error is in the server log (request "+edge.RequestID(r.Context())+").", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

// page fills the layout fields for the signed-in user.
func (h *Handlers) page(r *http.Request, title, nav string) views.Page {
	u, _ := UserFrom(r.Context())
	// The page's write controls (create, delete, grant) are the manager's
	// of the place it shows; pages whose controls need another privilege
	// (maintenance, job settings) set their own.
	return views.Page{Title: title, Nav: nav, User: u.Name, Role: string(u.Role), Groups: u.Groups, CanWrite: h.Can(r.Context(), identity.Manage, PlaceOf(r)),
		StorageAlert: h.storageAlert(), Flash: h.popFlash(r), Activity: h.audit != nil && h.mayReadActivity(r, identity.Resource{}),
		Users: h.Can(r.Context(), identity.Manage, identity.Resource{})}
}

func isHTMX(r *http.Request) bool { return r.Header.Get("HX-Request") == "true" }

// redirect sends the browser on after a successful write: htmx follows
// HX-Redirect, a plain form follows 303.
func redirect(w http.ResponseWriter, r *http.Request, to string) {
	if isHTMX(r) {
		w.Header().Set("HX-Redirect", to)
		w.WriteHeader(http.StatusNoContent)
		return
	}
	http.Redirect(w, r, to, http.StatusSeeOther)
}

// logError records why a handler refused or failed a request. The edge
// writes the one access line of every request (status, route, principal);
// this adds the cause: at error level for a server fault, at debug for a
// refusal the page already explains.
func (h *Handlers) logError(r *http.Request, status int, err error) {
	level := slog.LevelDebug
	if status >= 500 {
		level = slog.LevelError
	}
	attrs := []any{"method", r.Method, "path", r.URL.Path, "request_id", edge.RequestID(r.Context()), "status", status, "err", err}
	if e, ok := fault.As(err); ok && e.Err != nil {
		attrs = append(attrs, "cause", e.Err) // a fault's text is its sentence; the cause is what to fix
	}
	h.log.Log(r.Context(), level, "console request failed", attrs...)
}

// fail is how a handler answers an error: the console's one encoder.
func (h *Handlers) fail(w http.ResponseWriter, r *http.Request, err error) { h.Encode(w, r, err) }

// Encode is the console's error encoder (the edge's and every handler's):
// it maps each fault kind once to a status and the console's error page,
// or its fragment for htmx. Unauthenticated sends the browser to sign-in.
// Anything that is not a *fault.Error (a panic, an unknown error) is a
// server fault: 500 with the request id, the cause in the log only.
func (h *Handlers) Encode(w http.ResponseWriter, r *http.Request, err error) {
	edge.Failed(r.Context(), err)
	e, ok := fault.As(err)
	if ok && e.Kind == fault.Unauthenticated {
		signIn(w, r)
		return
	}
	h.recordSessionUser(r)
	status, heading, msg := http.StatusInternalServerError, "Something went wrong",
		"The server could not finish this request. The error is in the server log (request "+edge.RequestID(r.Context())+")."
	if ok {
		switch e.Kind {
		case fault.NotFound:
			status, heading = http.StatusNotFound, "Not found"
			msg = sentence(err, "There is nothing at this address.")
			if e.Field == "route" {
				msg = "There is no console page at this address."
			}
		case fault.MethodNotAllowed:
			status, heading = http.StatusMethodNotAllowed, "Not a page"
			msg = "This address only accepts the console's form submissions; follow the link below instead."
		case fault.TooLarge:
			status, heading = http.StatusRequestEntityTooLarge, "Form too large"
			msg = fmt.Sprintf("The form is larger than the %d KiB the console accepts, so nothing was saved. Shorten what you entered and send it again.", MaxBodyBytes>>10)
		case fault.AlreadyExists, fault.Conflict, fault.NotEmpty, fault.CommitFailed:
			status, heading = http.StatusConflict, "Conflict"
			msg = sentence(err, "The request conflicts with the catalog's current state.")
		case fault.Quota:
			status, heading = http.StatusConflict, "Limit reached"
			msg = sentence(err, "A limit on stored or running things is reached; finish or remove some first.")
		case fault.Invalid:
			status, heading = http.StatusUnprocessableEntity, "Invalid input"
			msg = sentence(err, "The input breaks a naming rule.")
		case fault.Unsupported:
			status, heading = http.StatusBadRequest, "Not supported"
			msg = sentence(err, "The console does not do this.")
		case fault.Forbidden:
			status, heading = http.StatusForbidden, "Request refused"
			if e.Field == "role" || errors.Is(err, authz.ErrReadOnly) {
				heading = "Read-only access"
			}
			msg = sentence(err, "This request is not allowed.")
		case fault.Unavailable:
			status, heading = http.StatusServiceUnavailable, "Unavailable"
			msg = fault.Public(err)
			switch e.Field {
			case "storage":
				heading = "Table storage is unavailable"
				msg = "The warehouse's object store does not answer, so this request did not complete. Try again when it is back."
			case "database":
				heading = "Catalog unavailable"
			}
		default:
			msg = sentence(err, msg)
		}
	}
	if status >= 500 {
		h.logError(r, status, err) // the cause, once; the page shows only the sentence
	}
	h.showError(w, r, status, heading, msg)
}

// signIn sends a visitor without a session to the sign-in page, back to
// where they were going after it. htmx requests get HX-Redirect, so the
// whole page navigates rather than a fragment swapping in.
func signIn(w http.ResponseWriter, r *http.Request) {
	to := "/login"
	if r.Method == http.MethodGet && r.URL.Path != "/" {
		to += "?next=" + url.QueryEscape(r.URL.RequestURI())
	}
	if isHTMX(r) {
		w.Header().Set("HX-Redirect", to)
		w.WriteHeader(http.StatusUnauthorized)
		return
	}
	http.Redirect(w, r, to, http.StatusSeeOther)
}

// recordSessionUser makes an error page on a public route (an unknown URL,
// a refused cross-site form) show the signed-in layout when the request
// carries a session, and names that user in the access log.
func (h *Handlers) recordSessionUser(r *http.Request) {
	if _, ok := UserFrom(r.Context()); ok || !h.SessionLoaded(r.Context()) {
		return
	}
	if u, ok := h.SessionUser(r.Context()); ok {
		edge.SetPrincipal(r.Context(), u.Principal())
	}
}

// SessionLoaded reports whether the request's session is in ctx. It is
// not for the routes that never read it (static files, probes, /live) nor
// for an answer the edge gives before the session step (a body over the
// cap, a panic); their error pages render without session data.
func (h *Handlers) SessionLoaded(ctx context.Context) bool {
	if h.sessions == nil {
		return false
	}
	// Load returns ctx itself when the session is already in it; without
	// one it makes a fresh empty session, with no store round trip.
	loaded, err := h.sessions.Load(ctx, "")
	return err == nil && loaded == ctx
}

// showError renders an error page, or a fragment for htmx requests.
func (h *Handlers) showError(w http.ResponseWriter, r *http.Request, status int, heading, msg string) {
	back, label := parentOf(r.URL.Path)
	v := views.ErrorView{Page: h.page(r, heading, ""), Status: status, Heading: heading, Message: msg, Back: back, BackLabel: label}
	if isHTMX(r) {
		h.render(w, r, status, views.ErrorFragment(v))
		return
	}
	h.render(w, r, status, views.ErrorPage(v))
}

// bodyTooLarge is the edge's TooLarge fault when reading a form hit the body
// cap (a chunked body the Content-Length check could not see), else nil.
func bodyTooLarge(err error) error {
	if err = edge.BodyError(err); errors.Is(err, fault.TooLarge) {
		return err
	}
	return nil
}

func sentence(err error, fallback string) string {
	var ce *fault.Error
	if errors.As(err, &ce) && ce.Message != "" {
		return ce.Message
	}
	return fallback
}

// fieldError returns the form field a catalog error concerns and its message,
// for errors that belong next to an input (invalid names, names taken).
func fieldError(err error, defaultField string) (field, msg string, status int, ok bool) {
	var ce *fault.Error
	if !errors.As(err, &ce) {
		return "", "", 0, false
	}
	switch {
	case errors.Is(err, fault.Invalid):
		status = http.StatusUnprocessableEntity
	case errors.Is(err, fault.AlreadyExists), errors.Is(err, fault.Conflict):
		status = http.StatusConflict
	case errors.Is(err, fault.NotFound) && ce.Field != "":
		status = http.StatusUnprocessableEntity // e.g. a parent namespace that does not exist
	default:
		return "", "", 0, false
	}
	field = ce.Field
	if field == "" {
		field = defaultField
	}
	return field, ce.Message, status, true
}

// parentOf gives the page one level up from a console path, to link back from
// a 404: a table goes back to its namespace, a namespace to its bucket.
func parentOf(p string) (href, label string) {
	segs := strings.Split(strings.Trim(p, "/"), "/")
	switch {
	case len(segs) >= 5 && segs[0] == "buckets" && segs[2] == "namespaces":
		return "/" + strings.Join(segs[:4], "/"), "Back to namespace " + segs[3]
	case len(segs) >= 3 && segs[0] == "buckets":
		return "/" + strings.Join(segs[:2], "/"), "Back to bucket " + segs[1]
	case len(segs) == 2 && segs[0] == "buckets":
		return "/buckets", "Back to buckets"
	case len(segs) >= 2 && segs[0] == "jobs":
		return "/jobs", "Back to jobs"
	}
	return "/buckets", "Back to buckets"
}

// Forbidden answers the authorizer's refusal of a request (err), or, with
// nil, the refusal of a write to someone who may only read.
func (h *Handlers) Forbidden(w http.ResponseWriter, r *http.Request, err error) {
	if err == nil {
		err = fault.New(fault.Forbidden, "role",
			"Your account is read-only: it can look at everything but change nothing. Ask an admin to make this change.")
	}
	h.Encode(w, r, err)
}

// CrossOrigin refuses a state-changing request sent from another site.
func (h *Handlers) CrossOrigin(w http.ResponseWriter, r *http.Request) {
	h.Encode(w, r, fault.New(fault.Forbidden, "origin",
		"This request came from another site, so it was refused. Use the console's own forms."))
}
