package lancerest

import (
	"net/http"
	"time"

	"github.com/floe/floe/identity"
	"github.com/floe/floe/lancemeta"
)

// cleanupPlanRequest is the body of floe's CleanupPlan extension.
type cleanupPlanRequest struct {
	ID []string `json:"id"`
	// BeforeMs is the cutoff in Unix milliseconds: versions committed
	// before it go (the latest and tagged ones never).
	BeforeMs int64 `json:"before_ms"`
	// TaggedVersions stay whatever their age.
	TaggedVersions []uint64 `json:"tagged_versions"`
}

// maxTaggedVersions bounds the list a client sends; a table keeps a few
// tags, and the whole body is capped anyway.
const maxTaggedVersions = 10_000

// cleanupPlan: POST /v1/table/{id}/cleanup_plan, floe's extension for the
// dry run of a cleanup: what a cleanup with this cutoff would delete —
// versions, files, bytes — worked out by floe from the dataset's manifests
// and a listing of its objects (lancemeta.PlanCleanup), because LanceDB
// 0.39 cannot say. The Lance worker's lance_cleanup with dry_run calls it;
// it reads and deletes nothing but the answer.
func cleanupPlan(s *Server, w http.ResponseWriter, r *http.Request, c *call) *Error {
	var req cleanupPlanRequest
	if e := withBody(r, func(b []byte) *Error {
		if e := decodeJSON(b, &req); e != nil {
			return e
		}
		return checkBodyID(req.ID, c.id)
	}); e != nil {
		return e
	}
	if req.BeforeMs <= 0 {
		return invalid("before_ms is required", "Give the cutoff in Unix milliseconds: versions committed before it are the ones a cleanup removes.")
	}
	if len(req.TaggedVersions) > maxTaggedVersions {
		return invalid("too many tagged_versions", "List at most 10000 tagged versions.")
	}
	ref, e := tableRef(c.id)
	if e != nil {
		return e
	}
	if e := c.require(identity.Read, tableResource(ref)); e != nil {
		return e
	}
	ctx := r.Context()
	t, e := s.resolveTable(ctx, ref, c.id, c.delim)
	if e != nil {
		return e
	}
	plan, err := lancemeta.PlanCleanup(ctx, s.store.Storage(), t.Location, lancemeta.CleanupPolicy{
		Before: time.UnixMilli(req.BeforeMs), Tagged: req.TaggedVersions})
	if err != nil {
		return asError(err, CodeTableNotFound)
	}
	return writeJSON(w, plan)
}
