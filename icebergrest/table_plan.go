package icebergrest

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"strconv"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/fault"
	"github.com/floe/floe/iceberg"
)

// Server-side scan planning: planTableScan, fetchPlanningResult,
// cancelPlanning and fetchScanTasks. The planning itself (pruning on
// partition values and column bounds, delete-file matching, the plans'
// bounds and lifetimes) is the iceberg library's; this file speaks the
// spec's JSON.

// The spec's error types of a plan id or plan task floe does not hold.
const typeNoSuchPlanTask = "NoSuchPlanTaskException"

// planRetryAfter is what a client that found planning busy is told to wait.
const planRetryAfter = 2 // seconds

// planAnswer is a PlanTableScanResult or FetchPlanningResult.
type planAnswer struct {
	Status string `json:"status"`
	PlanID string `json:"plan-id,omitempty"`
	iceberg.ScanTasks
	StorageCredentials []storageCredential `json:"storage-credentials,omitempty"`
	Error              *errorModel         `json:"error,omitempty"`
}

type errorModel struct {
	Message string `json:"message"`
	Type    string `json:"type"`
	Code    int    `json:"code"`
}

func (s *Server) planTableScan(w http.ResponseWriter, r *http.Request, b catalog.Bucket) error {
	ref, err := tableParam(r)
	if err != nil {
		return err
	}
	var req iceberg.ScanRequest
	if err := decodeOptionalBody(r, &req); err != nil {
		return err
	}
	res, err := s.plans.Plan(r.Context(), ref, req)
	if err != nil {
		return planError(w, err)
	}
	return s.writePlan(w, r, res, true)
}

func (s *Server) fetchPlanningResult(w http.ResponseWriter, r *http.Request, b catalog.Bucket) error {
	ref, err := tableParam(r)
	if err != nil {
		return err
	}
	res, err := s.plans.Result(r.Context(), ref, r.PathValue("plan"))
	if err != nil {
		return planError(w, err)
	}
	return s.writePlan(w, r, res, false)
}

func (s *Server) cancelPlanning(w http.ResponseWriter, r *http.Request, b catalog.Bucket) error {
	ref, err := tableParam(r)
	if err != nil {
		return err
	}
	if err := s.plans.Cancel(r.Context(), ref, r.PathValue("plan")); err != nil {
		return planError(w, err)
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

func (s *Server) fetchScanTasks(w http.ResponseWriter, r *http.Request, b catalog.Bucket) error {
	ref, err := tableParam(r)
	if err != nil {
		return err
	}
	var in struct {
		PlanTask *string `json:"plan-task"`
	}
	if err := decodeBody(r, &in); err != nil {
		return err
	}
	if in.PlanTask == nil || *in.PlanTask == "" {
		return badRequest("fetchScanTasks needs plan-task, a handle a completed plan returned")
	}
	tasks, err := s.plans.Tasks(r.Context(), ref, *in.PlanTask)
	if err != nil {
		return planError(w, err)
	}
	writeJSON(w, http.StatusOK, tasks)
	return nil
}

// writePlan answers a plan in the spec's shape; a completed plan carries
// the table's storage credentials when the client asks for vended ones,
// as LoadTable would. withID: planTableScan's answers carry the plan id.
func (s *Server) writePlan(w http.ResponseWriter, r *http.Request, res iceberg.PlanResult, withID bool) error {
	out := planAnswer{Status: string(res.Status)}
	if withID && res.Status != iceberg.PlanFailed {
		out.PlanID = res.PlanID // fetchPlanningResult's answers carry none
	}
	switch res.Status {
	case iceberg.PlanCompleted:
		out.ScanTasks = res.Tasks
		if wantsVended(r) {
			ref, err := tableParam(r)
			if err != nil {
				return err
			}
			_, creds, ae := s.tableConfig(r, res.Location, tableRes(ref))
			if ae != nil {
				return ae
			}
			out.StorageCredentials = creds
		}
	case iceberg.PlanFailed:
		ae := asAPIError(res.Err, typeNotFound)
		if ae == nil {
			ae = &apiError{http.StatusInternalServerError, typeServiceFailure, "planning the scan failed on the server; the server log has the cause"}
		}
		out.Error = &errorModel{Message: ae.Message, Type: ae.Type, Code: ae.Code}
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// planError maps the planner's refusals: a plan or plan task it does not
// hold is the spec's NoSuchPlanId/NoSuchPlanTask 404, busy is a 503 with
// Retry-After (clients retry those), the rest as everywhere else.
func planError(w http.ResponseWriter, err error) error {
	ie, ok := fault.As(err)
	if !ok {
		return err
	}
	switch {
	case ie.Kind == fault.NotFound && ie.Field == "plan":
		return errorf(http.StatusNotFound, typeNoSuchPlanID, "%s", ie.Message)
	case ie.Kind == fault.NotFound && ie.Field == "plan-task":
		return errorf(http.StatusNotFound, typeNoSuchPlanTask, "%s", ie.Message)
	case errors.Is(err, iceberg.ErrBusy) && w != nil:
		w.Header().Set("Retry-After", strconv.Itoa(planRetryAfter))
	}
	return err
}

// decodeOptionalBody is decodeBody for a request whose body the spec
// makes optional: none is the zero request.
func decodeOptionalBody(r *http.Request, v any) error {
	b, err := io.ReadAll(r.Body)
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return errorf(http.StatusRequestEntityTooLarge, typeBadRequest, "request body is larger than %d bytes", mbe.Limit)
		}
		return badRequest("reading the request body: %v", err)
	}
	if len(bytes.TrimSpace(b)) == 0 {
		return nil
	}
	r.Body = io.NopCloser(bytes.NewReader(b))
	return decodeBody(r, v)
}
