package tasks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
)

// ErrJobGone is what a JobLookup returns when the job no longer exists; the
// task it ran then fails with FailRestarted instead of waiting forever.
var ErrJobGone = errors.New("tasks: job no longer exists")

// JobLookup reads a job's current state as a JobUpdate (the integrator
// adapts the plugin's GetJob to it).
type JobLookup func(ctx context.Context, jobID string) (JobUpdate, error)

// maxReconcileBatch bounds one Reconcile pass; open tasks are few, and a
// pass that meets more simply leaves the rest to the next one.
const maxReconcileBatch = 5000

// Reconcile asks lookup for the job of every submitted or running task that
// has one and applies what it says. Job events can be dropped (a slow
// subscriber misses them), so the integrator runs this now and then, and
// after a subscription restarts. It returns how many tasks changed; a lookup
// error skips that task.
func (s *Service) Reconcile(ctx context.Context, lookup JobLookup) (int, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT job_id FROM lance_tasks
		WHERE status IN ('submitted', 'running') AND job_id <> '' ORDER BY created_at LIMIT ?`, maxReconcileBatch)
	if err != nil {
		return 0, fmt.Errorf("tasks: reconcile: %w", err)
	}
	var jobs []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return 0, fmt.Errorf("tasks: reconcile: %w", err)
		}
		jobs = append(jobs, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, fmt.Errorf("tasks: reconcile: %w", err)
	}
	n := 0
	for _, id := range jobs {
		if err := ctx.Err(); err != nil {
			return n, err
		}
		u, err := lookup(ctx, id)
		if errors.Is(err, ErrJobGone) {
			u, err = JobUpdate{State: "failed", Error: restartMessage, CompletedAt: s.now()}, nil
		}
		if err != nil {
			s.log.Debug("tasks: reconcile could not read a job", "job_id", id, "err", err)
			continue
		}
		u.JobID = id
		changed, err := s.OnJobUpdate(ctx, u)
		if err != nil {
			return n, err
		}
		if changed {
			n++
		}
	}
	return n, nil
}

// JobResult turns a job's result into a task result: the worker's JSON
// object when it sent one, else its string map. Anything else is {}.
func JobResult(resultJSON string, result map[string]string) map[string]any {
	out := map[string]any{}
	if resultJSON != "" {
		dec := json.NewDecoder(stringsReader(resultJSON))
		dec.UseNumber()
		if dec.Decode(&out) == nil && out != nil {
			return out
		}
		out = map[string]any{}
	}
	for k, v := range result {
		out[k] = v
	}
	return out
}

// PurgeTable deletes every task of a table id. Tasks of a dropped table
// are invisible (a re-created table has a new id) but still stored; call
// this when a table is dropped to reclaim them.
func (s *Service) PurgeTable(ctx context.Context, tableID string) (int64, error) {
	res, err := s.db.ExecContext(ctx, `DELETE FROM lance_tasks WHERE table_id = ?`, tableID)
	if err != nil {
		return 0, fmt.Errorf("tasks: purge table: %w", err)
	}
	n, _ := res.RowsAffected()
	return n, nil
}
