package lancerest

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/identity"
	"github.com/floe/floe/lancemeta"
	"github.com/floe/floe/tasks"
)

// IndexTasks submits index builds the way the task API does: a stored
// task run as a worker job, with the same validation, quota and column
// check. *tasks.Service implements it.
type IndexTasks interface {
	Submit(ctx context.Context, table catalog.Table, typ tasks.Type, body []byte) (tasks.Task, error)
}

// Headers on CreateTableIndex answers: the spec's REST binding maps
// response headers to the answer's context.
const (
	TaskIDHeader = "X-Floe-Task-Id"
	JobIDHeader  = "X-Floe-Job-Id"
)

// The index types of the two task types, as the spec spells them.
var (
	scalarIndexTypes = []string{"BTREE", "BITMAP", "LABEL_LIST", "FTS"}
	vectorIndexTypes = []string{"IVF_FLAT", "IVF_PQ", "IVF_HNSW_SQ", "IVF_HNSW_PQ", "IVF_RQ"}
)

// createTableIndex: POST /v1/table/{id}/create_index, any index type.
func createTableIndex(s *Server, w http.ResponseWriter, r *http.Request, c *call) *Error {
	return s.createIndex(w, r, c, false)
}

// createTableScalarIndex: POST /v1/table/{id}/create_scalar_index.
func createTableScalarIndex(s *Server, w http.ResponseWriter, r *http.Request, c *call) *Error {
	return s.createIndex(w, r, c, true)
}

// createIndex submits the build as a lance_scalar_index or
// lance_vector_index task and answers once it is stored, as the spec's
// asynchronous creation says: transaction_id is the job that builds it
// (the task id while no job has taken it yet), and ListTableIndices shows
// the index once the job commits. What the manifest already tells is
// checked now: an index of that name (409 code 7) and a column the table
// does not have (404 code 12).
func (s *Server) createIndex(w http.ResponseWriter, r *http.Request, c *call, scalarOnly bool) *Error {
	// An index build or drop is a maintenance job, as the task API asks:
	// decided before anything else is said.
	ref, e := tableRef(c.id)
	if e != nil {
		return e
	}
	if e := c.require(identity.Maintain, tableResource(ref)); e != nil {
		return e
	}
	if s.tasks == nil {
		return unsupported(s, w, r, c)
	}
	var members map[string]json.RawMessage
	if e := withBody(r, func(b []byte) *Error {
		if e := decodeJSON(b, &members); e != nil {
			return e
		}
		return bodyID(members, c.id)
	}); e != nil {
		return e
	}
	if members == nil {
		members = map[string]json.RawMessage{}
	}
	var req struct {
		Branch    *string `json:"branch"`
		Column    string  `json:"column"`
		IndexType string  `json:"index_type"`
		Name      *string `json:"name"`
	}
	if e := decodeMembers(members, &req); e != nil {
		return e
	}
	if e := branchParam(c, req.Branch); e != nil {
		return e
	}
	if req.Column == "" {
		return invalid("column is required", "Name the column to index, e.g. {\"column\": \"id\", \"index_type\": \"BTREE\"}.")
	}
	typ, e := indexTaskType(req.IndexType, scalarOnly)
	if e != nil {
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
	name := req.Column + "_idx" // the name the worker (and LanceDB) gives an unnamed index
	if req.Name != nil && *req.Name != "" {
		name = *req.Name
	}
	if e := checkIndexTarget(m, c, req.Column, name); e != nil {
		return e
	}
	// The task API's parameters are the spec's fields of the same names;
	// the identifier and the spec's envelope are not parameters.
	for _, k := range []string{"id", "identity", "context", "branch"} {
		delete(members, k)
	}
	members["index_type"], _ = json.Marshal(strings.ToUpper(req.IndexType))
	body, err := json.Marshal(members)
	if err != nil {
		return asError(err, CodeTableNotFound)
	}
	// The job is the caller's: the queue checks and records who submits it.
	task, err := s.tasks.Submit(identity.NewContext(ctx, c.principal), t, typ, body)
	if err != nil {
		return asError(err, CodeTableNotFound)
	}
	h := w.Header()
	h.Set(TaskIDHeader, task.ID)
	txn := task.ID
	if task.JobID != "" {
		h.Set(JobIDHeader, task.JobID)
		txn = task.JobID
	}
	return writeJSON(w, struct {
		TransactionID string `json:"transaction_id"`
	}{txn})
}

// indexTaskType is the task type that builds an index of that type.
func indexTaskType(indexType string, scalarOnly bool) (tasks.Type, *Error) {
	up := strings.ToUpper(indexType)
	switch {
	case up == "":
		return "", invalid("index_type is required", "Pass one of "+strings.Join(scalarIndexTypes, ", ")+" or "+strings.Join(vectorIndexTypes, ", ")+".")
	case slices.Contains(scalarIndexTypes, up):
		return tasks.TypeScalarIndex, nil
	case slices.Contains(vectorIndexTypes, up) && scalarOnly:
		return "", invalid("index_type "+quote(indexType)+" is a vector index", "CreateTableScalarIndex builds "+strings.Join(scalarIndexTypes, ", ")+"; build vector indices with CreateTableIndex.")
	case slices.Contains(vectorIndexTypes, up):
		return tasks.TypeVectorIndex, nil
	}
	return "", invalid("index_type "+quote(indexType)+" is not one floe builds",
		"Pass one of "+strings.Join(scalarIndexTypes, ", ")+" or "+strings.Join(vectorIndexTypes, ", ")+".")
}

// checkIndexTarget refuses, from the latest manifest, an index name the
// table has and a top-level column it lacks. A table without a version yet
// has no columns to check: the worker says so when the job runs.
func checkIndexTarget(m lancemeta.Manifest, c *call, column, name string) *Error {
	for _, ix := range m.Indices {
		if ix.Name == name {
			return NewError(CodeTableIndexAlreadyExists, "table "+quote(joinIdentifier(c.id, c.delim))+" already has an index "+quote(name),
				"Pick another name, or drop the index first (DropTableIndex).")
		}
	}
	if m.Version == 0 {
		return nil
	}
	names := make([]string, 0, len(m.Schema.Fields))
	for _, f := range m.Schema.Fields {
		if f.Name == column {
			return nil
		}
		names = append(names, f.Name)
	}
	return NewError(CodeTableColumnNotFound, "table "+quote(joinIdentifier(c.id, c.delim))+" has no column "+quote(column),
		"Index one of its top-level columns: "+strings.Join(names, ", ")+".")
}

// bodyID checks the body's id member, when there is one, against the path.
func bodyID(members map[string]json.RawMessage, path []string) *Error {
	raw, ok := members["id"]
	if !ok || string(raw) == "null" {
		return nil
	}
	var id []string
	if err := json.Unmarshal(raw, &id); err != nil {
		return invalid("field id has the wrong type", "id must be an array of strings.")
	}
	return checkBodyID(id, path)
}

// decodeMembers reads the fields v declares from an object's members.
func decodeMembers(members map[string]json.RawMessage, v any) *Error {
	b, err := json.Marshal(members)
	if err != nil {
		return invalid("request body is refused", "Send a JSON object.")
	}
	if err := json.Unmarshal(b, v); err != nil {
		return jsonError(err)
	}
	return nil
}
