// Package tasks owns the Lance maintenance tasks submitted through the task
// API: their validation, storage, quota and status, and their link to the
// plugin jobs that run them. It knows nothing of HTTP; taskapi serves it.
package tasks

import (
	"fmt"
	"time"

	"github.com/floe/floe/fault"
)

// Type is a task type; it is also the plugin job type that runs the task.
type Type string

// The five task types of the task API.
const (
	TypeCompact         Type = "lance_compact"
	TypeScalarIndex     Type = "lance_scalar_index"
	TypeVectorIndex     Type = "lance_vector_index"
	TypeOptimizeIndices Type = "lance_optimize_indices"
	TypeCleanup         Type = "lance_cleanup"
)

// Types lists every task type, in the order the API documents them.
var Types = []Type{TypeCompact, TypeScalarIndex, TypeVectorIndex, TypeOptimizeIndices, TypeCleanup}

// ParseType accepts exactly one of the five task type names.
func ParseType(s string) (Type, error) {
	for _, t := range Types {
		if string(t) == s {
			return t, nil
		}
	}
	if s == "" {
		return "", invalidf("task_type is required: one of lance_compact, lance_scalar_index, lance_vector_index, lance_optimize_indices, lance_cleanup")
	}
	return "", invalidf("task_type %q is not one of lance_compact, lance_scalar_index, lance_vector_index, lance_optimize_indices, lance_cleanup", s)
}

// Status is where a task is in its life: submitted → running → completed,
// or submitted|running → failed. Completed and failed never change.
type Status string

const (
	StatusSubmitted Status = "submitted"
	StatusRunning   Status = "running"
	StatusCompleted Status = "completed"
	StatusFailed    Status = "failed"
)

// Terminal reports whether the status can no longer change.
func (s Status) Terminal() bool { return s == StatusCompleted || s == StatusFailed }

// Task is one stored task.
type Task struct {
	ID          string // 32 lower-case hex characters
	TableID     string
	Type        Type
	Params      map[string]any // as stored, defaults filled
	Status      Status
	JobID       string // plugin job running it; "" until a runner accepted it
	CreatedAt   time.Time
	StartedAt   time.Time      // zero until running
	CompletedAt time.Time      // zero until completed or failed
	Result      map[string]any // empty until completed
	Error       *TaskError     // nil unless failed
	// Note, on a task just submitted, says what floe could not check (an
	// index task's column on a table no worker has described); not stored.
	Note string
}

// TaskError says why a task failed.
type TaskError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// Failure codes a failed task carries (floe's choice: the original API does
// not publish its own).
const (
	// FailJob: the job running the task failed; the message is the worker's.
	FailJob = "JobFailed"
	// FailRestarted: floe stopped while the task was running and its job
	// did not survive the restart, so the outcome is unknown. Repeating a
	// half-done maintenance step silently is worse than saying so.
	FailRestarted = "FloeRestarted"
)

// restartMessage is the error message of a task whose job was lost across a
// floe restart.
const restartMessage = "floe restarted while this task was running and its job did not survive, so its outcome is unknown; submit the task again"

// MaxTasksPerType bounds the stored tasks per (table id, task type), terminal
// ones included, so one table cannot grow the catalog without limit;
// deleting finished tasks frees room.
const MaxTasksPerType = 1000

func invalidf(format string, args ...any) error {
	return &fault.Error{Kind: fault.Invalid, Message: fmt.Sprintf(format, args...)}
}

func notFound(id string) error {
	return &fault.Error{Kind: fault.NotFound, Field: "task", Message: fmt.Sprintf("task %q does not exist for this table (it may have been deleted)", id)}
}
