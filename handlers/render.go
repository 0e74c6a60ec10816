package handlers

import (
	"bytes"
	"errors"
	"net/http"
	"strings"

	"github.com/a-h/templ"
	"github.com/go-chi/chi/v5/middleware"

	"github.com/floe/floe/fault"
	"github.com/floe/floe/views"
)

// render writes a component only after it rendered completely, so a failure
// halfway never leaves a half page on the wire.
func (h *Handlers) render(w http.ResponseWriter, r *http.Request, status int, c templ.Component) {
	var buf bytes.Buffer
	if err := c.Render(r.Context(), &buf); err != nil {
		h.logError(r, http.StatusInternalServerError, err)
		http.Error(w, "The page could not be rendered. The error is in the server log.", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

// page fills the layout fields for the signed-in user.
func (h *Handlers) page(r *http.Request, title, nav string) views.Page {
	u, _ := UserFrom(r.Context())
	return views.Page{Title: title, Nav: nav, User: u.Name, Role: string(u.Role), CanWrite: u.CanWrite(), StorageAlert: h.storageAlert(), Flash: h.popFlash(r)}
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

func (h *Handlers) logError(r *http.Request, status int, err error) {
	attrs := []any{"method", r.Method, "path", r.URL.Path, "request_id", middleware.GetReqID(r.Context()), "status", status, "err", err}
	if status >= 500 {
		h.log.Error("console request failed", attrs...)
	} else {
		h.log.Info("console request refused", attrs...)
	}
}

// fail is the one place a handler's error is logged and shown. Catalog error
// kinds map to statuses; anything unknown is a 500 with the detail in the log.
func (h *Handlers) fail(w http.ResponseWriter, r *http.Request, err error) {
	status, heading := http.StatusInternalServerError, "Something went wrong"
	msg := "The server could not finish this request. The error is in the server log (request " + middleware.GetReqID(r.Context()) + ")."
	var ce *fault.Error
	switch {
	case errors.Is(err, fault.NotFound):
		status, heading = http.StatusNotFound, "Not found"
		msg = sentence(err, "There is nothing at this address.")
	case errors.Is(err, fault.AlreadyExists), errors.Is(err, fault.Conflict), errors.Is(err, fault.NotEmpty):
		status, heading = http.StatusConflict, "Conflict"
		msg = sentence(err, "The request conflicts with the catalog's current state.")
	case errors.Is(err, fault.Invalid):
		status, heading = http.StatusUnprocessableEntity, "Invalid input"
		msg = sentence(err, "The input breaks a naming rule.")
	case errors.Is(err, fault.Unavailable) && fault.Field(err) == "storage":
		status, heading = http.StatusServiceUnavailable, "Table storage is unavailable"
		msg = "The warehouse's object store does not answer, so this request did not complete. Try again when it is back."
	case errors.Is(err, fault.Unavailable) && fault.Field(err) == "database":
		status, heading = http.StatusServiceUnavailable, "Catalog unavailable"
		msg = fault.Public(err)
	case errors.Is(err, fault.Unavailable):
		status, heading = http.StatusServiceUnavailable, "Unavailable"
		msg = fault.Public(err)
	case errors.As(err, &ce):
		msg = ce.Message
	}
	h.logError(r, status, err)
	h.showError(w, r, status, heading, msg)
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

// NotFound renders the console's 404 page for unknown URLs.
func (h *Handlers) NotFound(w http.ResponseWriter, r *http.Request) {
	h.showError(w, r, http.StatusNotFound, "Not found", "There is no console page at this address.")
}

// MethodNotAllowed answers e.g. a GET on a form's action URL.
func (h *Handlers) MethodNotAllowed(w http.ResponseWriter, r *http.Request) {
	h.showError(w, r, http.StatusMethodNotAllowed, "Not a page", "This address only accepts the console's form submissions; follow the link below instead.")
}

// Forbidden refuses a write from a read-only user.
func (h *Handlers) Forbidden(w http.ResponseWriter, r *http.Request) {
	h.logError(r, http.StatusForbidden, errors.New("read-only user attempted a write"))
	h.showError(w, r, http.StatusForbidden, "Read-only access", "Your account is read-only: it can look at everything but change nothing. Ask an admin to make this change.")
}

// CrossOrigin refuses a state-changing request sent from another site.
func (h *Handlers) CrossOrigin(w http.ResponseWriter, r *http.Request) {
	h.logError(r, http.StatusForbidden, errors.New("cross-origin request refused"))
	h.showError(w, r, http.StatusForbidden, "Request refused", "This request came from another site, so it was refused. Use the console's own forms.")
}
