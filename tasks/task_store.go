package tasks

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/floe/floe/fault"
	"github.com/floe/floe/persist"
)

const taskColumns = `id, table_id, task_type, params, status, job_id, created_at,
	started_at, completed_at, result, error_code, error_message`

type scanner interface{ Scan(dest ...any) error }

func scanTask(sc scanner) (Task, error) {
	var (
		t                        Task
		typ, status, params, res string
		created, started, done   int64
		errCode, errMsg          string
	)
	if err := sc.Scan(&t.ID, &t.TableID, &typ, &params, &status, &t.JobID, &created,
		&started, &done, &res, &errCode, &errMsg); err != nil {
		return Task{}, err
	}
	t.Type, t.Status = Type(typ), Status(status)
	t.CreatedAt, t.StartedAt, t.CompletedAt = fromMicros(created), fromMicros(started), fromMicros(done)
	t.Params = decodeObject(params)
	t.Result = decodeObject(res)
	if t.Status == StatusFailed {
		t.Error = &TaskError{Code: errCode, Message: errMsg}
	}
	return t, nil
}

func scanTasks(rows *sql.Rows) ([]Task, error) {
	defer rows.Close()
	var out []Task
	for rows.Next() {
		t, err := scanTask(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, rows.Err()
}

// decodeObject reads a stored JSON object, keeping numbers exact (an int64
// param must come back as written, not as a float).
func decodeObject(s string) map[string]any {
	m := map[string]any{}
	dec := json.NewDecoder(stringsReader(s))
	dec.UseNumber()
	_ = dec.Decode(&m) // written by encodeObject; a damaged row reads as empty
	if m == nil {
		m = map[string]any{}
	}
	return m
}

func encodeObject(m map[string]any) (string, error) {
	if len(m) == 0 {
		return "{}", nil
	}
	b, err := json.Marshal(m)
	if err != nil {
		return "", fmt.Errorf("tasks: encode %v: %w", m, err)
	}
	return string(b), nil
}

// insert stores a new task unless its (table, type) already holds
// MaxTasksPerType tasks. Count and insert run in one write transaction of
// persist's queue, so concurrent submitters (of this process, and of others
// through the database's write lock) queue and the bound holds exactly; a
// task is reported accepted only after its commit succeeded.
func (s *Service) insert(ctx context.Context, t Task) error {
	params, err := encodeObject(t.Params)
	if err != nil {
		return err
	}
	return s.db.Write(ctx, func(tx *persist.Tx) error {
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM lance_tasks WHERE table_id = ? AND task_type = ?`,
			t.TableID, string(t.Type)).Scan(&n); err != nil {
			return fmt.Errorf("tasks: count: %w", err)
		}
		if n >= MaxTasksPerType {
			return &fault.Error{Kind: fault.Quota, Message: fmt.Sprintf(
				"this table already holds %d %s tasks, the most floe keeps; delete finished tasks to make room", n, t.Type)}
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO lance_tasks
			(id, table_id, task_type, params, status, created_at) VALUES (?, ?, ?, ?, ?, ?)`,
			t.ID, t.TableID, string(t.Type), params, string(t.Status), micros(t.CreatedAt)); err != nil {
			return fmt.Errorf("tasks: insert: %w", err)
		}
		return nil
	})
}

// Get returns one task of a table.
func (s *Service) Get(ctx context.Context, tableID, taskID string) (Task, error) {
	t, err := scanTask(s.db.QueryRowContext(ctx, `SELECT `+taskColumns+` FROM lance_tasks
		WHERE id = ? AND table_id = ?`, taskID, tableID))
	if errors.Is(err, sql.ErrNoRows) {
		return Task{}, notFound(taskID)
	}
	if err != nil {
		return Task{}, fmt.Errorf("tasks: get: %w", err)
	}
	return t, nil
}

// Delete removes a finished (completed or failed) task; it never undoes what
// the task did. A submitted or running task is fault.Conflict; an unknown one
// fault.NotFound.
func (s *Service) Delete(ctx context.Context, tableID, taskID string) error {
	res, err := s.db.ExecContext(ctx, `DELETE FROM lance_tasks
		WHERE id = ? AND table_id = ? AND status IN ('completed', 'failed')`, taskID, tableID)
	if err != nil {
		return fmt.Errorf("tasks: delete: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 1 {
		return nil
	}
	var status string
	err = s.db.QueryRowContext(ctx, `SELECT status FROM lance_tasks WHERE id = ? AND table_id = ?`,
		taskID, tableID).Scan(&status)
	if errors.Is(err, sql.ErrNoRows) {
		return notFound(taskID)
	}
	if err != nil {
		return fmt.Errorf("tasks: delete: %w", err)
	}
	if Status(status).Terminal() { // finished between the two statements; try once more
		return s.Delete(ctx, tableID, taskID)
	}
	return &fault.Error{Kind: fault.Conflict, Message: fmt.Sprintf(
		"task %s is %s; only completed or failed tasks can be deleted, so wait for it to finish", taskID, status)}
}
