package handlers

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/floe/floe/fault"
	"github.com/floe/floe/plugin"
	"github.com/floe/floe/views"
)

// MaxLiveJobs bounds the job ids one live page may follow: the longest list
// a page shows (a page of /jobs) fits well within it.
const MaxLiveJobs = 2 * jobsPageSize

// LiveSub is what a page asks the live websocket (/live) for. Pages put it in
// their ws-connect URL, so a reconnect asks for the same again.
type LiveSub struct {
	Jobs   []string // job ids whose job-<id> progress the page shows
	Detail string   // a job id whose detail section (job-detail-<id>) the page shows
	Table  string   // a table id, for Rows and Refresh
	Rows   string   // a task type: the page shows the table's task rows (task-<id>) of this type
	// Tasks are the ids of the task rows the page shows: only their rows
	// are pushed (a row for a task the page does not show has no target —
	// htmx:oobErrorNoTarget — e.g. the task a form's submit just made,
	// pushed to the page being left).
	Tasks   []string
	Refresh bool // the page shows the table's panels: reload them when a job on the table finishes
	// Page is the table's page the refresh reloads: "" the table page,
	// PageMaintenance its Maintenance tab (never the table page swapped
	// into another tab's #main).
	Page string
	// Since is when the page's panels were rendered (zero: unknown). A
	// (re)connecting page whose table saw a job finish after it is sent one
	// refresh at once: the refresh that event
	// caused went to the page's previous socket, or to none (a job ending
	// while the page was loading, between the old socket closing and this
	// one subscribing). The refreshed page carries a later Since, so the
	// catch-up cannot loop.
	Since time.Time
	// List is a table list's own link (a namespace page with its query)
	// and Tables the ids of the tables it shows: when a job on one of them
	// finishes, or fresh figures of one land, the list is reloaded in
	// place, so its health badges follow (never both a List and a Table).
	List   string
	Tables []string
}

// PageMaintenance is LiveSub.Page for a table's Maintenance tab.
const PageMaintenance = "maintenance"

// pageURL is the URL of the page s names under the table's URL.
func (s LiveSub) pageURL(tableURL string) string {
	if s.Page == PageMaintenance {
		return tableURL + "/maintenance"
	}
	return tableURL
}

// LiveURL is the websocket address a page connects to for s.
func LiveURL(s LiveSub) string {
	q := url.Values{}
	if len(s.Jobs) > 0 {
		q.Set("jobs", strings.Join(s.Jobs, ","))
	}
	if s.Table != "" {
		q.Set("table", s.Table)
	}
	if s.Detail != "" {
		q.Set("detail", s.Detail)
	}
	if s.Rows != "" {
		q.Set("rows", s.Rows)
	}
	if len(s.Tasks) > 0 {
		q.Set("tasks", strings.Join(s.Tasks, ","))
	}
	if s.Refresh {
		q.Set("refresh", "1")
	}
	if s.Page != "" {
		q.Set("page", s.Page)
	}
	if !s.Since.IsZero() {
		q.Set("since", strconv.FormatInt(s.Since.UnixMilli(), 10))
	}
	if s.List != "" {
		q.Set("list", s.List)
	}
	if len(s.Tables) > 0 {
		q.Set("tables", strings.Join(s.Tables, ","))
	}
	return "/live?" + q.Encode()
}

// ParseLiveSub reads a LiveSub from /live's query.
func ParseLiveSub(q url.Values) (LiveSub, error) {
	s := LiveSub{Table: q.Get("table"), Detail: q.Get("detail"), Rows: q.Get("rows"), Refresh: q.Get("refresh") == "1", Page: q.Get("page")}
	if s.Page != "" && s.Page != PageMaintenance {
		return LiveSub{}, errors.New("a live page is the table page or its maintenance tab")
	}
	since, err := ParseSince(q.Get("since"))
	if err != nil {
		return LiveSub{}, err
	}
	s.Since = since
	for id := range strings.SplitSeq(q.Get("jobs"), ",") {
		if id = strings.TrimSpace(id); id != "" && !slices.Contains(s.Jobs, id) {
			s.Jobs = append(s.Jobs, id)
		}
	}
	if len(s.Jobs) > MaxLiveJobs {
		return LiveSub{}, errors.New("a live page follows too many jobs")
	}
	for id := range strings.SplitSeq(q.Get("tasks"), ",") {
		if id = strings.TrimSpace(id); id != "" && !slices.Contains(s.Tasks, id) {
			s.Tasks = append(s.Tasks, id)
		}
	}
	if len(s.Tasks) > MaxLiveJobs {
		return LiveSub{}, errors.New("a live page follows too many tasks")
	}
	if s.List, s.Tables, err = parseLiveList(q); err != nil {
		return LiveSub{}, err
	}
	if s.List != "" && s.Table != "" {
		return LiveSub{}, errors.New("a live page is a table's page or a table list, not both")
	}
	if s.Detail != "" && !slices.Contains(s.Jobs, s.Detail) {
		s.Jobs = append(s.Jobs, s.Detail)
	}
	return s, nil
}

// LiveProgress renders a job's job-<id> fragment for an out-of-band swap.
func LiveProgress(ctx context.Context, j plugin.Job) ([]byte, error) {
	var buf bytes.Buffer
	err := views.JobProgress(JobProgress(j), true).Render(ctx, &buf)
	return buf.Bytes(), err
}

// maxSinceDigits bounds since=: unix milliseconds have 13 digits until 2286.
const maxSinceDigits = 13

// sinceSlack is how far in the future a since= may lie (clocks of the
// browser's server and this one are the same; a replica's may differ a little).
const sinceSlack = time.Hour

// ParseSince reads since= (unix milliseconds of a page's render; "" is
// none): digits only, at most 13, not before 2020 nor more than an hour ahead.
func ParseSince(v string) (time.Time, error) {
	if v == "" {
		return time.Time{}, nil
	}
	bad := &fault.Error{Kind: fault.Invalid, Field: "since", Message: "since is the unix time in milliseconds a page was rendered at"}
	if len(v) > maxSinceDigits {
		return time.Time{}, bad
	}
	for _, c := range v {
		if c < '0' || c > '9' {
			return time.Time{}, bad
		}
	}
	ms, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return time.Time{}, bad
	}
	t := time.UnixMilli(ms)
	if t.Before(sinceFloor) || t.After(time.Now().Add(sinceSlack)) {
		return time.Time{}, bad
	}
	return t, nil
}

// sinceFloor is the earliest since= accepted (before floe existed).
var sinceFloor = time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)

// renderedAt is the since of a page rendered now, to the millisecond
// since= carries (rounded down: an event in the same millisecond counts
// as after it and refreshes once more rather than never).
func renderedAt() time.Time { return time.UnixMilli(time.Now().UnixMilli()) }

// sinceOf reads since= from a slot's query (a table page loading a control).
func sinceOf(r *http.Request) (time.Time, error) { return ParseSince(r.URL.Query().Get("since")) }

// RefreshDue reports whether a page subscribing for sub shows less of its
// table than is known: a job on the table finished after sub.Since (the
// worker sends its observation before it reports the job complete, so the
// figures after the job are in by then). Observations alone do not count:
// a sweep re-observes every table without news, and a catch-up refresh for
// each would swap the panels of every open table page for nothing.
func (h *Handlers) RefreshDue(ctx context.Context, sub LiveSub) bool {
	if !sub.Refresh || sub.Table == "" || sub.Since.IsZero() || h.plugin == nil {
		return false
	}
	jobs, _, err := h.plugin.ListJobs(ctx, plugin.JobFilter{ObjectID: sub.Table, Limit: refreshDueJobs})
	if err != nil {
		return false
	}
	for _, j := range jobs {
		if !j.State.Active() && j.FinishedAt.After(sub.Since) {
			return true
		}
	}
	return false
}

// refreshDueJobs is how many of a table's newest jobs RefreshDue reads:
// more than can finish while one page loads.
const refreshDueJobs = 25

// LiveDetail renders the job page's changing section for job id (read again,
// with its activity log).
func (h *Handlers) LiveDetail(ctx context.Context, id string, canWrite bool) ([]byte, error) {
	if h.plugin == nil {
		return nil, nil
	}
	j, err := h.plugin.GetJob(ctx, id)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	err = views.JobDetail(JobDetail(j, canWrite), true).Render(ctx, &buf)
	return buf.Bytes(), err
}

// LiveTable renders what a table's pages need when job j changes: with rows,
// the row of the task it runs (when it runs one); with refresh, once j has
// finished, an instruction to reload the panels of the page sub names, so
// the figures the worker observed after the job show (the worker sends its
// observation before it reports the job complete).
func (h *Handlers) LiveTable(ctx context.Context, j plugin.Job, sub LiveSub, rows, refresh, canWrite bool) ([]byte, error) {
	var buf bytes.Buffer
	_, tableURL := h.tableNamer()(ctx, j.ObjectID)
	if id := j.Parameters["task_id"]; rows && id != "" && h.tasks != nil && tableURL != "" {
		t, err := h.tasks.Get(ctx, j.ObjectID, id)
		if err == nil {
			base := ""
			if canWrite {
				base = tableURL + "/maintenance"
			}
			row := taskRow(t, &j, base)
			if err := views.TaskRow(row, true).Render(ctx, &buf); err != nil {
				return nil, err
			}
		} else if !errors.Is(err, fault.NotFound) {
			return nil, err
		}
	}
	if refresh && !j.State.Active() && tableURL != "" {
		if err := views.TableRefresh(sub.pageURL(tableURL), true).Render(ctx, &buf); err != nil {
			return nil, err
		}
	}
	return buf.Bytes(), nil
}

// LiveRefresh renders the instruction that reloads the panels of the table
// page sub names, sent when fresh figures of the table landed.
func (h *Handlers) LiveRefresh(ctx context.Context, tableID string, sub LiveSub) ([]byte, error) {
	_, tableURL := h.tableNamer()(ctx, tableID)
	if tableURL == "" {
		return nil, nil
	}
	var buf bytes.Buffer
	err := views.TableRefresh(sub.pageURL(tableURL), true).Render(ctx, &buf)
	return buf.Bytes(), err
}
