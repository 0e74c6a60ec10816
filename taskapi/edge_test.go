package taskapi

import (
	"bytes"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/common/expfmt"

	"github.com/floe/floe/edge"
)

// syncBuffer is a log sink the server's goroutines and the test share.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestEdgeRequestIDEchoedAndLogged(t *testing.T) {
	log := &syncBuffer{}
	e := newEnv(t, envOpts{log: log})
	r := e.do(call{method: "GET", path: "/table/ns$tbl/tasks?task_type=lance_compact", header: map[string]string{"X-Request-Id": "trace-task-7"}})
	r.wantOK(t, e.table.ID, nil)
	for _, h := range []string{"X-Request-Id", "x-oss-request-id"} {
		if got := r.header.Get(h); got != "trace-task-7" {
			t.Errorf("%s = %q, want the client's id", h, got)
		}
	}
	eb := e.do(call{method: "GET", path: "/table/ns$nope/tasks?task_type=lance_compact", header: map[string]string{"X-Request-Id": "trace-task-8"}}).
		wantError(t, 404, "TableNotFound", 4)
	if eb.Instance != "trace-task-8" {
		t.Errorf("instance %q", eb.Instance)
	}
	for _, want := range []string{"request_id=trace-task-7", "surface=taskapi", `route="GET /lance/oss/v1/table/{id}/tasks"`, "principal=apikey:"} {
		if !strings.Contains(log.String(), want) {
			t.Errorf("the access log lacks %s:\n%s", want, log)
		}
	}
}

func TestEdgeNotFoundMethodAndBodyInContractShape(t *testing.T) {
	e := newEnv(t, envOpts{})
	eb := e.do(call{method: "POST", path: "/table/ns$tbl/explode"}).wantError(t, 404, "InvalidInput", 13)
	if !strings.Contains(eb.Detail, "no such operation") {
		t.Errorf("unknown route: %q", eb.Detail)
	}
	r := e.do(call{method: "PUT", path: "/table/ns$tbl/tasks/" + strings.Repeat("a", 32)})
	r.wantError(t, http.StatusMethodNotAllowed, "InvalidInput", 13)
	if allow := r.header.Get("Allow"); !strings.Contains(allow, "GET") || !strings.Contains(allow, "DELETE") {
		t.Errorf("Allow = %q", allow)
	}
	// The contract answers a malformed request, an oversized body included,
	// with 400 InvalidInput; the edge refuses it by its Content-Length
	// before anything is read.
	big := `{"older_than": "7d", "pad": "` + strings.Repeat("x", maxBodyBytes) + `"}`
	eb = e.do(call{method: "POST", path: "/table/ns$tbl/cleanup", body: big}).wantError(t, 400, "InvalidInput", 13)
	if !strings.Contains(eb.Detail, "64 KiB") {
		t.Errorf("oversized body: %q", eb.Detail)
	}
}

func TestEdgePanicAnswers500AndServesOn(t *testing.T) {
	log := &syncBuffer{}
	e := newEnv(t, envOpts{panics: true, log: log})
	eb := e.do(call{method: "GET", path: "/table/ns$tbl/panic", header: map[string]string{"X-Request-Id": "boom-2"}}).
		wantError(t, 500, "InternalError", 18)
	if !strings.Contains(eb.Detail, "boom-2") || strings.Contains(eb.Detail, "secret") || strings.Contains(eb.Detail, "/var/lib") {
		t.Fatalf("detail %q: want the request id and nothing of the panic", eb.Detail)
	}
	if !strings.Contains(log.String(), "handler panicked") {
		t.Errorf("the panic was not logged:\n%s", log)
	}
	e.do(call{method: "GET", path: "/table/ns$tbl/tasks?task_type=lance_compact"}).wantOK(t, e.table.ID, nil)
}

func TestEdgeMetricsPerRoute(t *testing.T) {
	reg := prometheus.NewRegistry()
	e := newEnv(t, envOpts{metrics: edge.NewMetrics(reg)})
	e.submit("compact", "")
	e.do(call{method: "GET", path: "/nothing"})
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	for _, mf := range mfs {
		expfmt.MetricFamilyToText(&buf, mf)
	}
	for _, want := range []string{
		`floe_http_requests_total{route="POST /lance/oss/v1/table/{id}/compact",status="200",surface="taskapi"} 1`,
		`floe_http_requests_total{route="unmatched",status="404",surface="taskapi"} 1`,
	} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("metrics lack %s:\n%s", want, buf.String())
		}
	}
}
