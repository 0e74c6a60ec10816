package handlers

import (
	"bytes"
	"context"
	"errors"
	"net/url"
	"slices"
	"strings"

	"github.com/floe/floe/authz"
	"github.com/floe/floe/fault"
	"github.com/floe/floe/identity"
	"github.com/floe/floe/plugin"
	"github.com/floe/floe/views"
)

// maxLiveListLen bounds list=: a namespace page's link with its filter,
// sort and cursor (names are at most 255 characters each).
const maxLiveListLen = 2048

// parseLiveList reads list= and tables= from /live's query. The list is
// only ever a namespace page of this console (a path under /buckets/ with
// no host), because the hub hands it back to the browser to load.
func parseLiveList(q url.Values) (string, []string, error) {
	list := q.Get("list")
	var tables []string
	for id := range strings.SplitSeq(q.Get("tables"), ",") {
		if id = strings.TrimSpace(id); id != "" && !slices.Contains(tables, id) {
			tables = append(tables, id)
		}
	}
	if list == "" {
		if len(tables) > 0 {
			return "", nil, errors.New("tables= comes with the list= page that shows them")
		}
		return "", nil, nil
	}
	u, err := url.Parse(list)
	if len(list) > maxLiveListLen || err != nil || u.Scheme != "" || u.Host != "" || u.User != nil || u.Fragment != "" ||
		!strings.HasPrefix(u.Path, "/buckets/") || !strings.Contains(u.Path, "/namespaces/") || strings.Contains(list, "//") || strings.Contains(list, `\`) {
		return "", nil, errors.New("a live list is a namespace page of this console")
	}
	if len(tables) > MaxLiveJobs {
		return "", nil, errors.New("a live list follows too many tables")
	}
	return list, tables, nil
}

// listAccess checks that the user may read each table a live list
// follows; a table dropped since the page was rendered is skipped (no
// event names it any more).
func (h *Handlers) listAccess(ctx context.Context, rt authz.Rights, sub LiveSub) error {
	for _, id := range sub.Tables {
		t, err := h.store.GetTableByID(ctx, id)
		if errors.Is(err, fault.NotFound) {
			continue
		}
		if err != nil {
			return err
		}
		if err := rt.Decide(identity.Read, tablePlace(t)); err != nil {
			return err
		}
	}
	return nil
}

// listRefreshDueJobs is how many of the newest jobs ListRefreshDue reads:
// a bulk action submits at most maxBulkTables times a few, just before the
// list it returns to is rendered.
const listRefreshDueJobs = 2 * maxBulkTables

// ListRefreshDue reports whether a live list subscribing for sub shows less
// than is known: a job on one of its tables finished after the page was
// rendered (e.g. a bulk Fix's job that ended while the list loaded).
func (h *Handlers) ListRefreshDue(ctx context.Context, sub LiveSub) bool {
	if sub.List == "" || sub.Since.IsZero() || h.plugin == nil {
		return false
	}
	jobs, _, err := h.plugin.ListJobs(ctx, plugin.JobFilter{Limit: listRefreshDueJobs})
	if err != nil {
		return false
	}
	for _, j := range jobs {
		if !j.State.Active() && j.FinishedAt.After(sub.Since) && slices.Contains(sub.Tables, j.ObjectID) {
			return true
		}
	}
	return false
}

// ListWants says whether a live list for sub reloads when job j changes:
// once j, on one of its tables, has finished.
func ListWants(sub LiveSub, j plugin.Job) bool {
	return sub.List != "" && !j.State.Active() && slices.Contains(sub.Tables, j.ObjectID)
}

// LiveListRefresh renders the instruction that reloads a live list's
// tables in place.
func LiveListRefresh(ctx context.Context, sub LiveSub) ([]byte, error) {
	var buf bytes.Buffer
	err := views.ListRefresh(sub.List, true).Render(ctx, &buf)
	return buf.Bytes(), err
}
