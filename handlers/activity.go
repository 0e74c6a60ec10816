package handlers

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/floe/floe/audit"
	"github.com/floe/floe/catalog"
	"github.com/floe/floe/fault"
	"github.com/floe/floe/identity"
	"github.com/floe/floe/views"
)

// ActivityReader is what the Activity pages read of the audit trail.
type ActivityReader interface {
	Query(ctx context.Context, f audit.Filter) (audit.Page, error)
}

// activityPageSize is one page of the trail: a screenful of rows.
const activityPageSize = 50

// maxActivityFilter bounds a filter text field (a principal, a resource).
const maxActivityFilter = 300

// activityTime is the form's time format (datetime-local, read as UTC).
const activityTime = "2006-01-02T15:04"

var activityOutcomes = []string{audit.OutcomeOK, audit.OutcomeFailed, audit.OutcomeRefused}

func (h *Handlers) mayReadActivity(r *http.Request, res identity.Resource) bool {
	return h.Can(r.Context(), identity.Manage, res)
}

// Activity renders /activity: the audit trail with filters by principal,
// resource, outcome and time, newest first in keyset pages.
func (h *Handlers) Activity(w http.ResponseWriter, r *http.Request) {
	h.activity(w, r, nil)
}

// TableActivity renders a table's Activity tab: the trail of that table.
func (h *Handlers) TableActivity(w http.ResponseWriter, r *http.Request) {
	bucket, ns, name := r.PathValue("bucket"), r.PathValue("ns"), r.PathValue("table")
	t, err := h.store.GetTable(r.Context(), catalog.TableRef{Bucket: bucket, Namespace: strings.Split(ns, "."), Name: name})
	if err != nil {
		h.fail(w, r, err)
		return
	}
	b, err := h.store.GetBucket(r.Context(), bucket)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.activity(w, r, &views.ActivityTable{Bucket: t.Bucket, BucketFormat: string(b.Format), Namespace: ns, Name: t.Name})
}

func (h *Handlers) activity(w http.ResponseWriter, r *http.Request, table *views.ActivityTable) {
	res := identity.Resource{}
	if table != nil {
		res = identity.Resource{Bucket: table.Bucket, Namespace: strings.Split(table.Namespace, "."), Table: table.Name}
	}
	if h.audit == nil {
		h.showError(w, r, http.StatusNotFound, "No audit trail", "This console runs without an audit trail.")
		return
	}
	if !h.mayReadActivity(r, res) {
		h.Encode(w, r, fault.New(fault.Forbidden, "role",
			"The audit trail is shown to admins (who manage what it records); ask an admin to look, or to run floe audit export."))
		return
	}
	q := r.URL.Query()
	v := views.ActivityView{Page: h.page(r, "Activity", "activity"), Table: table, Outcomes: activityOutcomes,
		Principal: strings.TrimSpace(q.Get("principal")), Resource: strings.TrimSpace(q.Get("resource")), Outcome: q.Get("outcome"),
		Since: q.Get("since"), Until: q.Get("until"), Events: q.Get("events") == "1"}
	v.Action = "/activity"
	if table != nil {
		v.Action = views.TableURL(table.Bucket, table.Namespace, table.Name) + "/activity"
		v.Resource = res.String()
	}
	f, msg := activityFilter(v, q.Get("before"))
	if msg != "" {
		h.showError(w, r, http.StatusUnprocessableEntity, "Invalid filter", msg)
		return
	}
	page, err := h.audit.Query(r.Context(), f)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	for _, e := range page.Entries {
		v.Rows = append(v.Rows, activityRow(e))
	}
	link := url.Values{}
	for k, val := range map[string]string{"principal": v.Principal, "outcome": v.Outcome, "since": v.Since, "until": v.Until} {
		if val != "" {
			link.Set(k, val)
		}
	}
	if table == nil && v.Resource != "" {
		link.Set("resource", v.Resource)
	}
	if v.Events {
		link.Set("events", "1")
	}
	v.Filtered = len(link) > 0
	v.ClearHref = v.Action
	if page.Next != 0 {
		nq := url.Values{}
		for k, vs := range link {
			nq[k] = vs
		}
		nq.Set("before", strconv.FormatInt(page.Next, 10))
		v.NextHref = v.Action + "?" + nq.Encode()
	}
	if f.Before != 0 {
		v.FirstHref = v.Action
		if len(link) > 0 {
			v.FirstHref += "?" + link.Encode()
		}
	}
	h.render(w, r, http.StatusOK, views.ActivityPage(v))
}

// activityFilter turns the form's values into the trail's filter, or says
// which value is wrong.
func activityFilter(v views.ActivityView, before string) (audit.Filter, string) {
	f := audit.Filter{Principal: v.Principal, Limit: activityPageSize}
	if !v.Events {
		f.Types = []string{audit.TypeRequest}
	}
	if len(v.Principal) > maxActivityFilter || len(v.Resource) > maxActivityFilter {
		return f, "A filter is longer than " + strconv.Itoa(maxActivityFilter) + " characters; give a principal such as user:admin and a resource such as bucket/namespace/table."
	}
	if v.Resource != "" && v.Resource != "*" {
		parts := strings.Split(v.Resource, "/")
		if len(parts) > 3 || slicesHasEmpty(parts) {
			return f, "Resource " + v.Resource + " is not bucket, bucket/namespace or bucket/namespace/table."
		}
		f.Bucket = parts[0]
		if len(parts) > 1 {
			f.Namespace = parts[1]
		}
		if len(parts) > 2 {
			f.Table = parts[2]
		}
	}
	switch v.Outcome {
	case "", audit.OutcomeOK, audit.OutcomeFailed, audit.OutcomeRefused:
		f.Outcome = v.Outcome
	default:
		return f, "Outcome " + v.Outcome + " is not one of ok, failed, refused."
	}
	var err error
	if f.Since, err = parseActivityTime(v.Since); err != nil {
		return f, "From " + v.Since + " is not a time like 2026-12-01T09:30 (UTC)."
	}
	if f.Until, err = parseActivityTime(v.Until); err != nil {
		return f, "Until " + v.Until + " is not a time like 2026-12-01T09:30 (UTC)."
	}
	if before != "" {
		n, err := strconv.ParseInt(before, 10, 64)
		if err != nil || n <= 0 {
			return f, "This page's position (before=" + before + ") is not one floe made; start again from the newest entries."
		}
		f.Before = n
	}
	return f, ""
}

func slicesHasEmpty(parts []string) bool {
	for _, p := range parts {
		if p == "" {
			return true
		}
	}
	return false
}

// parseActivityTime reads datetime-local (UTC) or RFC 3339; "" is no bound.
func parseActivityTime(s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	if t, err := time.Parse(activityTime, s); err == nil {
		return t, nil
	}
	return time.Parse(time.RFC3339, s)
}

func activityRow(e audit.Entry) views.ActivityRow {
	res := e.Resource()
	row := views.ActivityRow{Time: e.Time, Type: e.Type, Principal: e.Principal, Via: e.Via, Surface: e.Surface,
		Operation: e.Operation, Write: e.Write, Resource: res.String(), Outcome: e.Outcome(), Status: e.Status, Fault: e.Fault,
		RequestID: e.RequestID, Client: e.Client}
	if e.Type != audit.TypeRequest {
		row.Operation = strings.TrimPrefix(e.Type, "floe.")
	}
	if res.Table != "" && e.Type != audit.TypeTableDropped {
		row.ResourceHref = views.TableURL(res.Bucket, e.Namespace, res.Table)
	}
	if res.Bucket == "" && e.Path != "" {
		row.Resource = e.Path // a refusal before the resource was parsed
	}
	return row
}
