package plugin

// Reading and steering jobs from the console and the task API.

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/floe/floe/persist"
)

func (st *jobStore) get(ctx context.Context, id string) (Job, error) {
	row := st.p.db.QueryRowContext(ctx, `SELECT `+jobColumns+` FROM plugin_jobs WHERE id = ?`, id)
	j, err := scanJob(row)
	if errors.Is(err, sql.ErrNoRows) {
		return Job{}, ErrJobNotFound
	}
	return j, err
}

// GetJob returns a job with its activity log.
func (p *Plugin) GetJob(ctx context.Context, id string) (Job, error) {
	p.jobs.mu.Lock()
	r, ok := p.jobs.active[id]
	var j Job
	if ok {
		j = r.Job.clone()
	}
	p.jobs.mu.Unlock()
	if !ok {
		var err error
		if j, err = p.jobs.get(ctx, id); err != nil {
			return Job{}, err
		}
	}
	rows, err := p.db.QueryContext(ctx, `SELECT at, message FROM plugin_job_events WHERE job_id = ? ORDER BY seq`, id)
	if err != nil {
		return Job{}, err
	}
	defer rows.Close()
	for rows.Next() {
		var at int64
		var a Activity
		if err := rows.Scan(&at, &a.Message); err != nil {
			return Job{}, err
		}
		a.At = persist.FromMicros(at)
		j.Activity = append(j.Activity, a)
	}
	return j, rows.Err()
}

// ListJobs returns jobs newest first and the Before value of the next page
// ("" on the last page).
func (p *Plugin) ListJobs(ctx context.Context, f JobFilter) ([]Job, string, error) {
	limit := f.Limit
	if limit <= 0 {
		limit = DefaultJobPage
	}
	limit = min(limit, MaxJobPage)
	var where []string
	var args []any
	add := func(cond string, v any) { where = append(where, cond); args = append(args, v) }
	if f.Lane != "" {
		add("lane = ?", f.Lane)
	}
	if f.Type != "" {
		add("job_type = ?", f.Type)
	}
	if f.State != "" {
		add("state = ?", string(f.State))
	}
	if f.ObjectID != "" {
		add("object_id = ?", f.ObjectID)
	}
	orderBy, after := f.Order.orderSQL()
	if f.Before != "" {
		var created int64
		err := p.db.QueryRowContext(ctx, `SELECT created_at FROM plugin_jobs WHERE id = ?`, f.Before).Scan(&created)
		if err != nil {
			return nil, "", fmt.Errorf("plugin: page cursor: %w", ErrJobNotFound)
		}
		where = append(where, after)
		args = append(args, f.Order.afterArgs(f.Before)...)
	}
	q := `SELECT ` + jobColumns + ` FROM plugin_jobs`
	if len(where) > 0 {
		q += " WHERE " + strings.Join(where, " AND ")
	}
	q += " ORDER BY " + orderBy + " LIMIT ?"
	args = append(args, limit+1)
	rows, err := p.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, "", err
	}
	defer rows.Close()
	var out []Job
	for rows.Next() {
		j, err := scanJob(rows)
		if err != nil {
			return nil, "", err
		}
		out = append(out, j)
	}
	if err := rows.Err(); err != nil {
		return nil, "", err
	}
	next := ""
	if len(out) > limit {
		out = out[:limit]
		next = out[limit-1].ID
	}
	return out, next, nil
}

// ActiveJobs returns the active jobs, oldest first (cheap: from memory).
func (p *Plugin) ActiveJobs() []Job {
	p.jobs.mu.Lock()
	out := make([]Job, 0, len(p.jobs.active))
	for _, r := range p.jobs.active {
		out = append(out, r.Job.clone())
	}
	p.jobs.mu.Unlock()
	if p.cfg.Shared {
		out = append(out, p.jobs.activeHeldElsewhere(out)...)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].CreatedAt.Before(out[j].CreatedAt) })
	return out
}

// ExpireJob marks an active job expired and tells its worker to stop.
func (p *Plugin) ExpireJob(ctx context.Context, id string) (Job, error) {
	return p.jobs.finishAnywhere(ctx, id, JobExpired, "expired by an operator")
}

// CancelJob marks an active job canceled and tells its worker to stop.
func (p *Plugin) CancelJob(ctx context.Context, id string) (Job, error) {
	return p.jobs.finishAnywhere(ctx, id, JobCanceled, "canceled by an operator")
}

// SubmitJob queues a job outside detection (the Lance task API). The job
// runs in spec.Lane, else its type's lane.
func (p *Plugin) SubmitJob(ctx context.Context, spec JobSpec) (Job, error) {
	if p.closed.Load() {
		return Job{}, ErrClosed
	}
	if err := p.authorizeSubmit(ctx, spec); err != nil {
		return Job{}, err
	}
	rt := p.types.settings(spec.Type).Runtime
	j, err := p.jobs.create(ctx, spec, SourceSubmitted, rt)
	if err == nil {
		p.sched.wake(j.Lane)
	}
	return j, err
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

func utf8RuneStart(b byte) bool { return b&0xC0 != 0x80 }

// prune deletes finished jobs (and their activity) older than retention.
func (st *jobStore) prune(ctx context.Context, retention time.Duration) (int64, error) {
	cutoff := persist.Micros(st.p.now().Add(-retention))
	res, err := st.p.db.ExecContext(ctx, `DELETE FROM plugin_jobs WHERE state IN (?,?,?,?) AND finished_at > 0 AND finished_at < ?`,
		string(JobSucceeded), string(JobFailed), string(JobCanceled), string(JobExpired), cutoff)
	if err != nil {
		return 0, fmt.Errorf("plugin: prune jobs: %w", err)
	}
	n, _ := res.RowsAffected()
	if n > 0 {
		if _, err := st.p.db.ExecContext(ctx, `DELETE FROM plugin_job_events WHERE job_id NOT IN (SELECT id FROM plugin_jobs)`); err != nil {
			return n, fmt.Errorf("plugin: prune job activity: %w", err)
		}
	}
	return n, nil
}
