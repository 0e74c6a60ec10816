package lancerest

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/identity"
	"github.com/floe/floe/plugin"
)

// RestoreJobType is the worker job that restores a Lance table: a new
// version whose content is an old one's (LanceDB: checkout(v); restore()).
const RestoreJobType = "lance_restore"

// JobRunner is what RestoreTable needs of the plugin channel.
// *plugin.Plugin implements it.
type JobRunner interface {
	SubmitJob(ctx context.Context, spec plugin.JobSpec) (plugin.Job, error)
	GetJob(ctx context.Context, id string) (plugin.Job, error)
	Snapshot() []plugin.WorkerInfo
}

const (
	// restoreWait bounds how long RestoreTable holds the request for its
	// job. A restore writes one manifest and takes seconds; a client's HTTP
	// timeout is usually a minute or more, so past this it is told the job
	// is still running rather than left hanging.
	restoreWait = 50 * time.Second
	// restorePoll is how often the job is looked at while waiting: a job
	// read is one map lookup, and a quarter second adds little to a restore.
	restorePoll = 250 * time.Millisecond
)

type restoreRequest struct {
	ID      []string `json:"id"`
	Version *int64   `json:"version"`
	Branch  *string  `json:"branch"`
}

// restoreTable: POST /v1/table/{id}/restore. The Lance worker does the
// restore (floe writes no Lance data itself); the answer comes when its job
// ends, with the job id as transaction_id.
func restoreTable(s *Server, w http.ResponseWriter, r *http.Request, c *call) *Error {
	ref, e := tableRef(c.id)
	if e != nil {
		return e
	}
	// A restore writes a version: decided before anything else is said.
	if e := c.require(identity.Write, tableResource(ref)); e != nil {
		return e
	}
	if s.jobs == nil {
		return unsupported(s, w, r, c)
	}
	var req restoreRequest
	if e := withBody(r, func(b []byte) *Error {
		if e := decodeJSON(b, &req); e != nil {
			return e
		}
		return checkBodyID(req.ID, c.id)
	}); e != nil {
		return e
	}
	if e := mainBranchOnly(req.Branch); e != nil {
		return e
	}
	if req.Version == nil || *req.Version < 1 {
		return invalid("version is required and must be at least 1", "Pass the version to restore, as ListTableVersions lists it.")
	}
	ctx := r.Context()
	t, e := s.resolveTable(ctx, ref, c.id, c.delim)
	if e != nil {
		return e
	}
	want := uint64(*req.Version)
	if _, found := s.versionScan(ctx, t.Location, want); !found {
		return NewError(CodeTableVersionNotFound, "table "+quote(joinIdentifier(c.id, c.delim))+" has no version "+itoa(*req.Version),
			"List the table's versions with ListTableVersions; cleanup may have removed old ones.")
	}
	if !s.canRestore() {
		return NewError(CodeServiceUnavailable, "no connected worker can restore Lance tables",
			"RestoreTable runs as a job on the Lance worker; start one (floe serve --with-worker, or workers/lance) and retry.")
	}
	job, err := s.jobs.SubmitJob(ctx, plugin.JobSpec{
		Type: RestoreJobType, ObjectID: t.ID, DedupeKey: RestoreJobType + ":" + t.ID,
		Parameters: map[string]string{
			"version": strconv.FormatUint(want, 10),
			"bucket":  t.Bucket, "namespace": catalog.JoinNamespace(t.Namespace), "table": t.Name,
		},
		Summary: "restore " + t.Name + " to version " + strconv.FormatUint(want, 10),
		By:      c.principal, Need: identity.Write, // a restore writes a version
	})
	switch {
	case errors.Is(err, plugin.ErrDuplicateJob):
		return NewError(CodeConcurrentModification, "a restore of this table is already running as job "+job.ID,
			"Wait for it to finish, then check the table's version before restoring again.")
	case errors.Is(err, plugin.ErrTooManyJobs), errors.Is(err, plugin.ErrClosed):
		return NewError(CodeServiceUnavailable, "the job queue cannot take a restore now", "Retry in a moment.")
	case err != nil:
		return asError(err, CodeInternal)
	}
	return s.awaitRestore(ctx, w, job.ID)
}

// canRestore says whether a connected worker executes restore jobs.
func (s *Server) canRestore() bool {
	for _, wk := range s.jobs.Snapshot() {
		if !wk.DisconnectedAt.IsZero() {
			continue
		}
		for _, c := range wk.Capabilities {
			if c.JobType == RestoreJobType && c.CanExecute {
				return true
			}
		}
	}
	return false
}

// awaitRestore waits (bounded) for the job and answers for it.
func (s *Server) awaitRestore(ctx context.Context, w http.ResponseWriter, id string) *Error {
	deadline := time.NewTimer(restoreWait)
	defer deadline.Stop()
	tick := time.NewTicker(restorePoll)
	defer tick.Stop()
	for {
		j, err := s.jobs.GetJob(ctx, id)
		if err != nil {
			return asError(err, CodeInternal)
		}
		switch j.State {
		case plugin.JobSucceeded:
			return writeJSON(w, struct {
				TransactionID string `json:"transaction_id"`
			}{j.ID})
		case plugin.JobFailed, plugin.JobCanceled, plugin.JobExpired:
			// The worker's message can name storage paths: it stays on the
			// job, which the console shows to operators.
			return NewError(CodeInternal, "the restore job "+j.ID+" ended "+string(j.State),
				"Nothing was restored by it; the console's Jobs page (/jobs/"+j.ID+") has the worker's reason.")
		}
		select {
		case <-ctx.Done():
			return asError(ctx.Err(), CodeServiceUnavailable)
		case <-deadline.C:
			return NewError(CodeServiceUnavailable, "the restore is still running as job "+j.ID,
				"Its result will show on the console's Jobs page (/jobs/"+j.ID+"); check the table's latest version before retrying.")
		case <-tick.C:
		}
	}
}
