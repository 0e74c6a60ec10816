package tasks

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/fault"
	"github.com/floe/floe/observe"
)

// Submit validates a submission body for the table, checks an index
// task's column against the table's observed schema, stores the task as
// submitted (subject to the quota) and hands it to the runner. A runner that
// refuses or is missing leaves the task waiting as submitted; the task is
// accepted either way once it is stored. The returned task's Note says what
// could not be checked.
func (s *Service) Submit(ctx context.Context, table catalog.Table, typ Type, body []byte) (Task, error) {
	if _, err := ParseType(string(typ)); err != nil {
		return Task{}, err
	}
	params, err := ValidateParams(typ, body)
	if err != nil {
		return Task{}, err
	}
	schema, observed := s.schema(table.ID)
	return s.submit(ctx, table, typ, params, schema, observed)
}

// submit is Submit and SubmitForm after their read: the rules that need the
// table, then the store and the hand-over.
func (s *Service) submit(ctx context.Context, table catalog.Table, typ Type, params map[string]any, schema []observe.Field, observed bool) (Task, error) {
	note, err := checkColumn(typ, params, schema, observed)
	if err != nil {
		return Task{}, err
	}
	t := Task{
		ID: newTaskID(), TableID: table.ID, Type: typ, Params: params,
		Status: StatusSubmitted, CreatedAt: s.now().UTC().Truncate(time.Microsecond),
		Result: map[string]any{},
	}
	if err := s.insert(ctx, t); err != nil {
		return Task{}, err
	}
	// The hand-over outlives a client that hangs up: the task is stored.
	t.JobID = s.dispatchTo(context.WithoutCancel(ctx), t, table)
	t.Note = note
	return t, nil
}

// dispatch hands a stored submitted task to the runner (Resume's path),
// looking up its table for the job's names.
func (s *Service) dispatch(ctx context.Context, t Task) bool {
	table, err := s.store.GetTableByID(ctx, t.TableID)
	if errors.Is(err, fault.NotFound) {
		s.finish(ctx, JobUpdate{State: "failed", Error: "the table was dropped before the task could run"}, t.ID)
		return false
	}
	if err != nil {
		s.log.Warn("tasks: cannot look up the table of a submitted task", "task_id", t.ID, "table_id", t.TableID, "err", err)
		return false
	}
	return s.dispatchTo(ctx, t, table) != ""
}

// dispatchTo hands t to the runner and links the job id, which it
// returns ("" when the task was not handed over). A task id is claimed
// while it is being handed over so Resume and Submit never hand the same
// task over twice.
func (s *Service) dispatchTo(ctx context.Context, t Task, table catalog.Table) string {
	if s.runner == nil {
		return ""
	}
	s.mu.Lock()
	if s.claimed[t.ID] {
		s.mu.Unlock()
		return ""
	}
	s.claimed[t.ID] = true
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.claimed, t.ID)
		s.mu.Unlock()
	}()
	var jobID string
	// Under the claim, re-read: another hand-over may have finished between
	// Resume's listing and this claim.
	if err := s.db.QueryRowContext(ctx, `SELECT job_id FROM lance_tasks WHERE id = ? AND status = 'submitted'`,
		t.ID).Scan(&jobID); err != nil || jobID != "" {
		return ""
	}
	sctx, cancel := context.WithTimeout(ctx, submitTimeout)
	defer cancel()
	jobID, err := s.runner.SubmitJob(sctx, string(t.Type), t.TableID, jobParams(t, table))
	if err != nil {
		s.log.Warn("tasks: runner did not take the task; it waits as submitted", "task_id", t.ID, "type", t.Type, "err", err)
		return ""
	}
	if jobID == "" {
		s.log.Warn("tasks: runner returned an empty job id; the task waits as submitted", "task_id", t.ID)
		return ""
	}
	s.link(ctx, t.ID, jobID)
	return jobID
}

// jobParams flattens a task's params for the runner: strings as they are,
// everything else as JSON, plus the names of the task and its table.
func jobParams(t Task, table catalog.Table) map[string]string {
	out := make(map[string]string, len(t.Params)+4)
	for k, v := range t.Params {
		if s, ok := v.(string); ok {
			out[k] = s
			continue
		}
		b, err := json.Marshal(v)
		if err != nil {
			continue // params come from Validate or decodeObject and always marshal
		}
		out[k] = string(b)
	}
	out["task_id"] = t.ID
	out["bucket"] = table.Bucket
	out["namespace"] = catalog.JoinNamespace(table.Namespace)
	out["table"] = table.Name
	return out
}
