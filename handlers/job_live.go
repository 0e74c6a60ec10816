package handlers

import (
	"bytes"
	"context"
	"errors"
	"net/url"
	"slices"
	"strings"

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
	return "/live?" + q.Encode()
}

// ParseLiveSub reads a LiveSub from /live's query.
func ParseLiveSub(q url.Values) (LiveSub, error) {
	s := LiveSub{Table: q.Get("table"), Detail: q.Get("detail"), Rows: q.Get("rows"), Refresh: q.Get("refresh") == "1", Page: q.Get("page")}
	if s.Page != "" && s.Page != PageMaintenance {
		return LiveSub{}, errors.New("a live page is the table page or its maintenance tab")
	}
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
