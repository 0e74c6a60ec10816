// Package taskapi serves the Lance maintenance task API under
// /lance/oss/v1/: five task submissions and get, list and delete of task
// records, for the bucket named by the request's Host. It parses and checks
// requests, calls the tasks service and renders its answers.
package taskapi

import (
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"net/http"
	"strings"

	"github.com/floe/floe/apikey"
	"github.com/floe/floe/catalog"
	"github.com/floe/floe/tasks"
)

// Prefix is the path every operation of the API begins with.
const Prefix = "/lance/oss/v1/"

// Config wires the handler.
type Config struct {
	Store  *catalog.Store
	Tasks  *tasks.Service
	Logger *slog.Logger
	// Anonymous serves every caller without an API key, with full rights
	// (mirrors --lance-anonymous; for local experiments only).
	Anonymous bool
	// Tokens lets OAuth2 access tokens from the Iceberg REST's
	// /v1/oauth/tokens stand in for the API key they were issued for (same
	// role and bucket scope); nil accepts API keys only.
	Tokens *apikey.Tokens
}

type handler struct {
	store *catalog.Store
	tasks *tasks.Service
	log   *slog.Logger
	auth  *apikey.Checker
}

// New returns the handler for paths beginning with Prefix; mount it there on
// the Lance address, beside the Lance Namespace REST.
func New(cfg Config) http.Handler {
	lg := cfg.Logger
	if lg == nil {
		lg = slog.New(slog.DiscardHandler)
	}
	return &handler{store: cfg.Store, tasks: cfg.Tasks, log: lg, auth: apikey.New(apikey.Config{Keys: cfg.Store, Anonymous: cfg.Anonymous, Tokens: cfg.Tokens})}
}

// op is one of the eight operations.
type op struct {
	name     string
	write    bool       // needs a readwrite key
	taskType tasks.Type // submissions only
}

var submitOps = map[string]op{
	"compact":             {name: "SubmitLanceTableCompactTask", write: true, taskType: tasks.TypeCompact},
	"create_scalar_index": {name: "SubmitLanceTableScalarIndexTask", write: true, taskType: tasks.TypeScalarIndex},
	"create_vector_index": {name: "SubmitLanceTableVectorIndexTask", write: true, taskType: tasks.TypeVectorIndex},
	"optimize_indices":    {name: "SubmitLanceTableOptimizeIndicesTask", write: true, taskType: tasks.TypeOptimizeIndices},
	"cleanup":             {name: "SubmitLanceTableCleanupTask", write: true, taskType: tasks.TypeCleanup},
}

var (
	opGet    = op{name: "GetLanceTaskStatus"}
	opList   = op{name: "ListLanceTasks"}
	opDelete = op{name: "DeleteLanceTask", write: true}
)

// route splits the escaped path into the operation, the raw {id} and the
// raw {task_id}. allow is set when the path exists but the method does not.
func route(method, escapedPath string) (o op, rawID, rawTask, allow string, ok bool) {
	rest, found := strings.CutPrefix(escapedPath, Prefix+"table/")
	if !found {
		return op{}, "", "", "", false
	}
	seg := strings.Split(rest, "/")
	if len(seg) < 2 || seg[0] == "" {
		return op{}, "", "", "", false
	}
	rawID = seg[0]
	switch {
	case len(seg) == 2 && seg[1] == "tasks":
		if method != http.MethodGet {
			return op{}, "", "", http.MethodGet, false
		}
		return opList, rawID, "", "", true
	case len(seg) == 3 && seg[1] == "tasks" && seg[2] != "":
		switch method {
		case http.MethodGet:
			return opGet, rawID, seg[2], "", true
		case http.MethodDelete:
			return opDelete, rawID, seg[2], "", true
		}
		return op{}, "", "", "GET, DELETE", false
	case len(seg) == 2:
		so, known := submitOps[seg[1]]
		if !known {
			return op{}, "", "", "", false
		}
		if method != http.MethodPost {
			return op{}, "", "", http.MethodPost, false
		}
		return so, rawID, "", "", true
	}
	return op{}, "", "", "", false
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	reqID := newRequestID()
	w.Header().Set("x-oss-request-id", reqID)
	o, rawID, rawTask, allow, ok := route(r.Method, r.URL.EscapedPath())
	if !ok {
		if allow != "" {
			w.Header().Set("Allow", allow)
			e := invalid(r.Method + " is not allowed here; use " + allow)
			e.status = http.StatusMethodNotAllowed
			h.writeError(w, r, reqID, e)
			return
		}
		e := invalid("no such operation: " + r.Method + " " + r.URL.Path +
			"; the task API has POST /lance/oss/v1/table/{id}/{compact|create_scalar_index|create_vector_index|optimize_indices|cleanup} and GET|DELETE /lance/oss/v1/table/{id}/tasks[/{task_id}]")
		e.status = http.StatusNotFound
		h.writeError(w, r, reqID, e)
		return
	}
	req, e := h.prepare(r, o, rawID)
	if e != nil {
		h.writeError(w, r, reqID, e)
		return
	}
	switch o {
	case opGet:
		e = h.getTask(w, r, req, rawTask)
	case opList:
		e = h.listTasks(w, r, req)
	case opDelete:
		e = h.deleteTask(w, r, req, rawTask)
	default:
		e = h.submitTask(w, r, req, o.taskType)
	}
	if e != nil {
		h.writeError(w, r, reqID, e)
	}
}

// newRequestID names a request in logs and error bodies.
func newRequestID() string {
	b := make([]byte, 12)
	_, _ = rand.Read(b) // crypto/rand.Read never fails on supported platforms
	return hex.EncodeToString(b)
}
