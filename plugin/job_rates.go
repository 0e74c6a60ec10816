package plugin

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/floe/floe/persist"
)

// RateHours is the span of the Jobs page's throughput: the last day, an
// hour a bar.
const RateHours = 24

// JobTypeRate is one job type's finished jobs over the last RateHours.
type JobTypeRate struct {
	JobType string
	PerHour [RateHours]int // jobs finished in each hour, oldest first; the last ends now
	// FailedPerHour is the failed part of PerHour.
	FailedPerHour [RateHours]int
	Finished      int // all that ended: succeeded, failed, expired or canceled
	Failed        int // failed or expired (no progress): the ones that did not do their work
	Canceled      int
}

// FailureRate is the share of finished jobs that failed (0 when none
// finished); a canceled job was stopped, not failed, yet counts as finished.
func (r JobTypeRate) FailureRate() float64 {
	if r.Finished == 0 {
		return 0
	}
	return float64(r.Failed) / float64(r.Finished)
}

// JobRates counts the jobs that finished in the RateHours before now, per
// job type and hour, with one grouped query: the answer has at most
// types × RateHours × 4 rows however many jobs finished, and the rows it
// reads are the finished jobs the job retention keeps (prune), found
// through plugin_jobs_state. Types are sorted by name.
func (p *Plugin) JobRates(ctx context.Context, now time.Time) ([]JobTypeRate, error) {
	const hour = int64(time.Hour / time.Microsecond)
	since := persist.Micros(now.Add(-RateHours * time.Hour))
	rows, err := p.db.QueryContext(ctx, `SELECT job_type, (finished_at - ?) / ? AS hour, state, COUNT(*)
		FROM plugin_jobs WHERE state IN (?,?,?,?) AND finished_at >= ?
		GROUP BY job_type, hour, state`,
		since, hour, string(JobSucceeded), string(JobFailed), string(JobCanceled), string(JobExpired), since)
	if err != nil {
		return nil, fmt.Errorf("plugin: job rates: %w", err)
	}
	defer rows.Close()
	byType := map[string]*JobTypeRate{}
	for rows.Next() {
		var typ, state string
		var h, n int64
		if err := rows.Scan(&typ, &h, &state, &n); err != nil {
			return nil, fmt.Errorf("plugin: job rates: %w", err)
		}
		r := byType[typ]
		if r == nil {
			r = &JobTypeRate{JobType: typ}
			byType[typ] = r
		}
		i := min(max(h, 0), RateHours-1) // a clock ahead lands in the last hour
		r.PerHour[i] += int(n)
		r.Finished += int(n)
		switch JobState(state) {
		case JobFailed, JobExpired:
			r.Failed += int(n)
			r.FailedPerHour[i] += int(n)
		case JobCanceled:
			r.Canceled += int(n)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("plugin: job rates: %w", err)
	}
	out := make([]JobTypeRate, 0, len(byType))
	for _, r := range byType {
		out = append(out, *r)
	}
	slices.SortFunc(out, func(a, b JobTypeRate) int {
		switch {
		case a.JobType < b.JobType:
			return -1
		case a.JobType > b.JobType:
			return 1
		}
		return 0
	})
	return out, nil
}
