package taskapi

import (
	"net/http"

	"github.com/floe/floe/edge"
	"github.com/floe/floe/tasks"
)

// routes is the surface's one route table. {id} is one path segment,
// namespace<delim>table, with a percent-encoded delimiter kept inside it.
func (h *handler) routes(s *edge.Surface) {
	for _, rt := range []struct {
		pattern string
		op      op
	}{
		{"POST " + Prefix + "table/{id}/compact", submitOp("SubmitLanceTableCompactTask", tasks.TypeCompact)},
		{"POST " + Prefix + "table/{id}/create_scalar_index", submitOp("SubmitLanceTableScalarIndexTask", tasks.TypeScalarIndex)},
		{"POST " + Prefix + "table/{id}/create_vector_index", submitOp("SubmitLanceTableVectorIndexTask", tasks.TypeVectorIndex)},
		{"POST " + Prefix + "table/{id}/optimize_indices", submitOp("SubmitLanceTableOptimizeIndicesTask", tasks.TypeOptimizeIndices)},
		{"POST " + Prefix + "table/{id}/cleanup", submitOp("SubmitLanceTableCleanupTask", tasks.TypeCleanup)},
		{"GET " + Prefix + "table/{id}/tasks", op{name: "ListLanceTasks", run: (*handler).listTasks}},
		{"GET " + Prefix + "table/{id}/tasks/{task_id}", op{name: "GetLanceTaskStatus", run: (*handler).getTask}},
		{"DELETE " + Prefix + "table/{id}/tasks/{task_id}", op{name: "DeleteLanceTask", write: true, run: (*handler).deleteTask}},
	} {
		access := edge.Reads
		if rt.op.write {
			access = edge.Writes
		}
		s.Handle(rt.pattern, h.serve(rt.op), edge.Op(rt.op.name, access))
	}
}

// submitOp is one of the five submissions: a readwrite key, a task type.
func submitOp(name string, typ tasks.Type) op {
	return op{name: name, write: true, taskType: typ, run: func(h *handler, w http.ResponseWriter, r *http.Request, req *request) *apiError {
		return h.submitTask(w, r, req, typ)
	}}
}
