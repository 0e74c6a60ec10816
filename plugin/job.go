package plugin

import (
	"maps"
	"time"

	"github.com/floe/floe/identity"
)

// JobState is where a job is in its life.
type JobState string

const (
	JobPending   JobState = "pending"   // waiting for a worker slot (or a retry's backoff)
	JobAssigned  JobState = "assigned"  // sent to a worker, no progress yet
	JobRunning   JobState = "running"   // the worker reported progress
	JobSucceeded JobState = "succeeded" // terminal
	JobFailed    JobState = "failed"    // terminal: last attempt failed
	JobCanceled  JobState = "canceled"  // terminal: an operator or API canceled it
	JobExpired   JobState = "expired"   // terminal: no progress for too long
)

// Active reports whether the job can still change by itself.
func (s JobState) Active() bool { return s == JobPending || s == JobAssigned || s == JobRunning }

// JobStates lists every state, for filters.
var JobStates = []JobState{JobPending, JobAssigned, JobRunning, JobSucceeded, JobFailed, JobCanceled, JobExpired}

// Job sources.
const (
	SourceDetection = "detection" // the scheduler's periodic detection
	SourceRunNow    = "run-now"   // an operator pressed Run now
	SourceSubmitted = "submitted" // SubmitJob (e.g. the Lance task API)
)

// Job is a copy of one job's state.
type Job struct {
	ID             string
	Type           string
	Lane           string
	ObjectID       string
	DedupeKey      string
	Parameters     map[string]string
	Summary        string // the proposal's one-line summary
	Source         string
	State          JobState
	Attempts       int // attempts started
	MaxAttempts    int // 1 + retries
	WorkerID       string
	Percent        float64
	Stage          string
	Message        string
	Metrics        map[string]float64
	Result         map[string]string
	ResultJSON     string
	ResultSummary  string
	Error          string
	CreatedAt      time.Time
	UpdatedAt      time.Time
	StartedAt      time.Time // first attempt sent
	FinishedAt     time.Time
	NextAttemptAt  time.Time
	DeadlineAt     time.Time // the current attempt's deadline
	LastProgressAt time.Time
	// Activity is filled by GetJob only, oldest first.
	Activity []Activity
}

// Activity is one line of a job's log.
type Activity struct {
	At      time.Time
	Message string
}

func (j Job) clone() Job {
	j.Parameters = maps.Clone(j.Parameters)
	j.Metrics = maps.Clone(j.Metrics)
	j.Result = maps.Clone(j.Result)
	j.Activity = nil
	return j
}

// JobSpec asks for a job outside detection (SubmitJob).
type JobSpec struct {
	Type       string
	ObjectID   string
	Parameters map[string]string
	// DedupeKey, when set, refuses the job (ErrDuplicateJob, returning the
	// active job) while an active job has the same key.
	DedupeKey string
	Summary   string
	// Lane overrides the lane the job type would get.
	Lane string
	// By is who submits the job (SubmitJob asks Config.Authz whether it
	// may); Need is the privilege it needs on the job's table, maintain
	// when empty (a restore, which writes a version, needs write).
	By   identity.Principal
	Need identity.Privilege
}

// Proposal is one job a detection suggests.
type Proposal struct {
	ObjectID   string
	DedupeKey  string
	Parameters map[string]string
	Summary    string
}

// JobFilter selects jobs for ListJobs. Empty fields match everything.
type JobFilter struct {
	Lane     string
	Type     string
	State    JobState
	ObjectID string
	// Before starts the page after the job with this id in Order (use
	// the last id of the previous page; with the default order, jobs
	// created strictly before it).
	Before string
	Order  JobOrder // zero: newest first
	Limit  int      // <= 0: DefaultJobPage; capped at MaxJobPage
}

// Job page sizes: a page is rendered at once, so it stays small.
const (
	DefaultJobPage = 50
	MaxJobPage     = 500
)
