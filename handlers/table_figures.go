package handlers

import (
	"context"
	"strconv"

	"github.com/floe/floe/catalog"
)

// lanceFigures gives a Lance table's one version for every panel: the
// version of the last observation (the rows, fragments and history shown
// beside it come from the same observation). When storage is ahead of it —
// a writer committed since — the observed figures stay, the worker is asked
// to observe the table now, and updatingTo names the version on storage so
// the page can say "updating to version N…" until the live channel swaps
// the new figures in. Without an observation the version on storage shows.
func (h *Handlers) lanceFigures(ctx context.Context, t catalog.Table) (version, updatingTo string) {
	latest, _ := h.store.LanceVersion(ctx, t.Location, 0) // a listing of _versions/, no manifest read
	var observed int64
	if h.observe != nil {
		if st, ok := h.observe.Stats(t.ID, catalog.FormatLance); ok && st.Version != nil {
			observed = *st.Version
		}
	}
	switch {
	case observed > 0:
		version = strconv.FormatInt(observed, 10)
	case latest > 0:
		version = strconv.FormatUint(latest, 10)
	}
	if latest > 0 && int64(latest) > observed && h.plugin != nil {
		// Before any observation the version shown is storage's already.
		if h.plugin.ObserveNow(t.ID) && observed > 0 {
			updatingTo = strconv.FormatUint(latest, 10)
		}
	}
	return version, updatingTo
}

// observeIfBehind: Browse Data counted the table live; when that count is
// not the observed one, the other pages are behind, so a worker observes
// the table now and they catch up to what this page showed.
func (h *Handlers) observeIfBehind(t catalog.Table, liveRows int64) {
	if liveRows < 0 || h.observe == nil || h.plugin == nil {
		return
	}
	if rows, _, _, ok := h.observe.Rows(t.ID, t.Format); !ok || rows != liveRows {
		h.plugin.ObserveNow(t.ID)
	}
}
