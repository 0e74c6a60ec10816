package lancerest

import (
	"errors"
	"net/http"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/identity"
	"github.com/floe/floe/plugin"
)

// DropIndexJobType is the worker job that drops a Lance index
// (LanceDB: dropIndex(name)), one new version without it.
const DropIndexJobType = "lance_drop_index"

// dropTableIndex: POST /v1/table/{id}/index/{index_name}/drop. The spec's
// REST binding sends no body (one is accepted if it only repeats the id).
// The index must be in the latest manifest (else 404 code 6); the Lance
// worker drops it, and the answer comes when its job ends, with the job id
// as transaction_id, as RestoreTable answers.
func dropTableIndex(s *Server, w http.ResponseWriter, r *http.Request, c *call) *Error {
	// An index build or drop is a maintenance job, as the task API asks:
	// decided before anything else is said.
	ref, e := tableRef(c.id)
	if e != nil {
		return e
	}
	if e := c.require(identity.Maintain, tableResource(ref)); e != nil {
		return e
	}
	if s.jobs == nil {
		return unsupported(s, w, r, c)
	}
	var req struct {
		ID        []string `json:"id"`
		Branch    *string  `json:"branch"`
		IndexName *string  `json:"index_name"`
	}
	if e := decodeBody(r, c, &req, &req.ID); e != nil {
		return e
	}
	name := r.PathValue("index")
	if req.IndexName != nil && *req.IndexName != name {
		return invalid("index_name in the body does not match the path", "Name the index in the URL only; the spec's REST binding sends no body.")
	}
	if e := branchParam(c, req.Branch); e != nil {
		return e
	}
	ctx := r.Context()
	t, e := s.resolveTable(ctx, ref, c.id, c.delim)
	if e != nil {
		return e
	}
	m, e := s.manifestOf(ctx, c, t, 0)
	if e != nil {
		return e
	}
	if _, e := findIndex(m, c, name); e != nil {
		return e
	}
	if !s.canRun(DropIndexJobType) {
		return NewError(CodeServiceUnavailable, "no connected worker can drop Lance indices",
			"DropTableIndex runs as a job on the Lance worker; start one (floe serve --with-worker, or workers/lance) and retry.")
	}
	job, err := s.jobs.SubmitJob(ctx, plugin.JobSpec{
		Type: DropIndexJobType, ObjectID: t.ID, DedupeKey: DropIndexJobType + ":" + t.ID + ":" + name,
		Parameters: map[string]string{
			"index_name": name,
			"bucket":     t.Bucket, "namespace": catalog.JoinNamespace(t.Namespace), "table": t.Name,
		},
		Summary: "drop index " + name + " of " + t.Name,
		By:      c.principal, Need: identity.Maintain, // an index drop is maintenance, as building one
	})
	switch {
	case errors.Is(err, plugin.ErrDuplicateJob):
		return NewError(CodeConcurrentModification, "a drop of index "+quote(name)+" is already running as job "+job.ID,
			"Wait for it to finish; ListTableIndices then shows whether the index is gone.")
	case errors.Is(err, plugin.ErrTooManyJobs), errors.Is(err, plugin.ErrClosed):
		return NewError(CodeServiceUnavailable, "the job queue cannot take an index drop now", "Retry in a moment.")
	case err != nil:
		return asError(err, CodeTableNotFound)
	}
	return s.awaitJob(ctx, w, job.ID, "index drop", "The index was not dropped by it")
}
