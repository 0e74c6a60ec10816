package handlers

import (
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/plugin"
	"github.com/floe/floe/views"
)

// maxWorkerTokenName keeps a token's name a label.
const maxWorkerTokenName = 100

// ListWorkers renders /workers: connected (and recently gone) workers, the
// job types they offer, and for admins the worker tokens.
func (h *Handlers) ListWorkers(w http.ResponseWriter, r *http.Request) {
	v, err := h.workersView(r)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	if v.TokenSecret != "" {
		w.Header().Set("Cache-Control", "no-store") // the secret must not linger in caches
	}
	h.render(w, r, http.StatusOK, views.WorkersPage(v))
}

func (h *Handlers) workersView(r *http.Request) (views.WorkersView, error) {
	v := views.WorkersView{Page: h.page(r, "Workers", "workers"), Now: time.Now(), NoPlugin: h.plugin == nil, GRPC: h.surfaces.GRPC}
	if t, ok := h.takeSecret(r); ok && t.Secret != "" && t.AccessKeyID == "" {
		v.TokenSecret, v.TokenCreated = t.Secret, t.Name
	}
	if h.plugin != nil {
		for _, wi := range h.plugin.Snapshot() {
			v.Workers = append(v.Workers, workerRow(wi))
		}
		for _, jt := range h.plugin.JobTypes() {
			v.JobTypes = append(v.JobTypes, views.JobTypeRow{Name: jt.JobType, DisplayName: jt.DisplayName, Lane: jt.Lane,
				Workers: len(jt.Workers), Described: jt.Descriptor != nil, Enabled: jt.Settings.Runtime.Enabled})
		}
	}
	if v.CanWrite {
		toks, err := h.store.ListWorkerTokens(r.Context())
		if err != nil {
			return v, err
		}
		marks := tokenMarks(toks)
		for _, t := range toks {
			m := marks[t.ID]
			v.Tokens = append(v.Tokens, views.WorkerTokenRow{ID: t.ID, Name: t.Name, CreatedAt: t.CreatedAt, LastUsedAt: t.LastUsedAt,
				System: m.Label, Warning: m.Warning})
		}
	}
	return v, nil
}

func workerRow(wi plugin.WorkerInfo) views.WorkerRow {
	row := views.WorkerRow{ID: wi.ID, Version: wi.Version, Address: wi.Address, SlotsUsed: wi.SlotsUsed, SlotsTotal: wi.SlotsTotal,
		LastSeen: wi.LastSeen, ConnectedAt: wi.ConnectedAt, GoneAt: wi.DisconnectedAt, State: string(wi.Status),
		TokenName: wi.TokenName, Previews: wi.PreviewFormats}
	for _, c := range wi.Capabilities {
		row.JobTypes = append(row.JobTypes, c.JobType)
	}
	return row
}

// CreateWorkerToken creates a worker token and redirects to the page that
// shows its secret once.
func (h *Handlers) CreateWorkerToken(w http.ResponseWriter, r *http.Request) {
	name := strings.TrimSpace(r.PostFormValue("name"))
	var err error
	switch {
	case name == "":
		err = catalog.Invalid("name", "Give the token a name, e.g. the host the worker runs on.")
	case utf8.RuneCountInString(name) > maxWorkerTokenName:
		err = catalog.Invalid("name", "A token name is at most 100 characters.")
	}
	var tok catalog.WorkerToken
	var secret string
	if err == nil {
		tok, secret, err = h.store.CreateWorkerToken(r.Context(), name)
	}
	if err != nil {
		field, msg, status, ok := fieldError(err, "name")
		if !ok {
			h.fail(w, r, err)
			return
		}
		v, verr := h.workersView(r)
		if verr != nil {
			h.fail(w, r, verr)
			return
		}
		h.logError(r, status, err)
		v.TokenName, v.TokenErrors = name, views.FieldErrors{field: msg}
		h.render(w, r, status, views.WorkersPage(v))
		return
	}
	// Post-redirect-get: a reload of the page cannot mint a second token.
	h.holdSecret(r, revealed{Name: tok.Name, Secret: secret})
	redirect(w, r, "/workers#worker-tokens")
}

// RevokeWorkerToken deletes a worker token and the API keys minted under
// it; with a plugin channel its open streams close at once.
func (h *Handlers) RevokeWorkerToken(w http.ResponseWriter, r *http.Request) {
	revoke := h.store.RevokeWorkerToken
	if h.plugin != nil {
		revoke = h.plugin.RevokeWorkerToken
	}
	id := r.PathValue("id")
	name := id
	if toks, err := h.store.ListWorkerTokens(r.Context()); err == nil {
		for _, t := range toks {
			if t.ID == id {
				name = t.Name
			}
		}
	}
	if err := revoke(r.Context(), id); err != nil {
		h.fail(w, r, err)
		return
	}
	h.flash(r, "Worker token "+name+" revoked; workers using it are disconnected.")
	redirect(w, r, "/workers#worker-tokens")
}
