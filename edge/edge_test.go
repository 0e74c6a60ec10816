package edge

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/common/expfmt"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/fault"
)

// encodeJSON is a protocol's encoder for the tests: {"kind", "message",
// "request_id"} with a status per kind.
func encodeJSON(w http.ResponseWriter, r *http.Request, err error) {
	status, kind, msg := http.StatusInternalServerError, "internal", "failed; request "+RequestID(r.Context())
	if e, ok := fault.As(err); ok {
		kind, msg = string(e.Kind), e.Message
		switch e.Kind {
		case fault.NotFound:
			status = http.StatusNotFound
		case fault.MethodNotAllowed:
			status = http.StatusMethodNotAllowed
		case fault.TooLarge:
			status = http.StatusRequestEntityTooLarge
		case fault.Unauthenticated:
			status = http.StatusUnauthorized
		default:
			status = http.StatusBadRequest
		}
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]string{"kind": kind, "message": msg, "request_id": RequestID(r.Context())})
}

type fixture struct {
	srv *Surface
	log *bytes.Buffer
	reg *prometheus.Registry
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	f := &fixture{log: &bytes.Buffer{}, reg: prometheus.NewRegistry()}
	auth := AuthFunc(func(r *http.Request) (Principal, error) {
		if r.Header.Get("x-api-key") != "good" {
			return Principal{}, fault.New(fault.Unauthenticated, "", "an API key is required")
		}
		return FromKey(catalog.APIKey{ID: "k1", Role: catalog.RoleReadWrite}, "x-api-key"), nil
	})
	f.srv = New(Config{Name: "test", Encode: encodeJSON, Auth: auth, MaxBody: 64,
		RequestIDHeaders: []string{"x-amzn-RequestId"}, Metrics: NewMetrics(f.reg),
		Log: slog.New(slog.NewTextHandler(f.log, &slog.HandlerOptions{Level: slog.LevelDebug})),
		Wrap: func(next http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("X-Wrapped", "yes")
				next.ServeHTTP(w, r)
			})
		}})
	f.srv.HandleFunc("POST /v1/table/{id}/describe", func(w http.ResponseWriter, r *http.Request) {
		p, _ := PrincipalFrom(r.Context())
		b, err := io.ReadAll(r.Body)
		if err != nil {
			encodeJSON(w, r, BodyError(err))
			return
		}
		io.WriteString(w, r.PathValue("id")+" "+p.String()+" "+string(b))
	})
	f.srv.HandleFunc("GET /v1/panic", func(http.ResponseWriter, *http.Request) { panic("boom") })
	f.srv.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "ok") }, Public())
	return f
}

func (f *fixture) do(t *testing.T, method, target string, body io.Reader, hdr map[string]string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(method, target, body)
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	f.srv.ServeHTTP(rec, req)
	return rec
}

func kindOf(t *testing.T, rec *httptest.ResponseRecorder) string {
	t.Helper()
	var b map[string]string
	if err := json.Unmarshal(rec.Body.Bytes(), &b); err != nil {
		t.Fatalf("body %q is not the protocol's JSON: %v", rec.Body.String(), err)
	}
	return b["kind"]
}

func TestRequestIDEchoedOrMade(t *testing.T) {
	f := newFixture(t)
	rec := f.do(t, "GET", "/healthz", nil, map[string]string{"X-Request-Id": "client-trace-42"})
	if got := rec.Header().Get("X-Request-Id"); got != "client-trace-42" {
		t.Errorf("X-Request-Id = %q, want the client's", got)
	}
	if got := rec.Header().Get("x-amzn-RequestId"); got != "client-trace-42" {
		t.Errorf("x-amzn-RequestId = %q", got)
	}
	if !strings.Contains(f.log.String(), "request_id=client-trace-42") {
		t.Errorf("the access log does not carry the client's id:\n%s", f.log)
	}
	for _, bad := range []string{strings.Repeat("a", 129), "has space", "quote\"d", "ctl\x01"} {
		rec := f.do(t, "GET", "/healthz", nil, map[string]string{"X-Request-Id": bad})
		if got := rec.Header().Get("X-Request-Id"); got == bad || got == "" {
			t.Errorf("client id %q: answered %q, want a fresh id", bad, got)
		}
	}
	a := f.do(t, "GET", "/healthz", nil, nil).Header().Get("X-Request-Id")
	b := f.do(t, "GET", "/healthz", nil, nil).Header().Get("X-Request-Id")
	if a == "" || a == b {
		t.Errorf("made ids %q and %q are not fresh", a, b)
	}
}

func TestUnknownRouteAndWrongMethodInProtocolShape(t *testing.T) {
	f := newFixture(t)
	rec := f.do(t, "GET", "/v2/nothing", nil, nil)
	if rec.Code != 404 || kindOf(t, rec) != string(fault.NotFound) || rec.Header().Get("X-Wrapped") != "yes" {
		t.Errorf("unknown route: %d %q wrapped=%q", rec.Code, rec.Body, rec.Header().Get("X-Wrapped"))
	}
	rec = f.do(t, "GET", "/v1/table/t1/describe", nil, nil)
	if rec.Code != 405 || kindOf(t, rec) != string(fault.MethodNotAllowed) || rec.Header().Get("Allow") != "POST" {
		t.Errorf("wrong method: %d %q Allow=%q", rec.Code, rec.Body, rec.Header().Get("Allow"))
	}
	if !strings.Contains(f.log.String(), "route=unmatched") {
		t.Errorf("unmatched requests are not logged as such:\n%s", f.log)
	}
}

func TestAuthenticationBeforeHandler(t *testing.T) {
	f := newFixture(t)
	rec := f.do(t, "POST", "/v1/table/a%24b/describe", strings.NewReader("hi"), nil)
	if rec.Code != 401 || kindOf(t, rec) != string(fault.Unauthenticated) {
		t.Fatalf("no key: %d %q", rec.Code, rec.Body)
	}
	rec = f.do(t, "POST", "/v1/table/a%24b/describe", strings.NewReader("hi"), map[string]string{"x-api-key": "good"})
	if rec.Code != 200 || rec.Body.String() != "a$b apikey:k1 hi" {
		t.Fatalf("with key: %d %q", rec.Code, rec.Body)
	}
	if !strings.Contains(f.log.String(), "principal=apikey:k1") {
		t.Errorf("the access log lacks the principal:\n%s", f.log)
	}
}

func TestBodyCap(t *testing.T) {
	f := newFixture(t)
	big := strings.Repeat("x", 65)
	rec := f.do(t, "POST", "/v1/table/t/describe", strings.NewReader(big), map[string]string{"x-api-key": "good"})
	if rec.Code != 413 || kindOf(t, rec) != string(fault.TooLarge) {
		t.Errorf("declared length over the cap: %d %q", rec.Code, rec.Body)
	}
	req := httptest.NewRequest("POST", "/v1/table/t/describe", io.MultiReader(strings.NewReader(big)))
	req.ContentLength = -1 // chunked: only the read finds out
	req.Header.Set("x-api-key", "good")
	rr := httptest.NewRecorder()
	f.srv.ServeHTTP(rr, req)
	if rr.Code != 413 || kindOf(t, rr) != string(fault.TooLarge) {
		t.Errorf("streamed body over the cap: %d %q", rr.Code, rr.Body)
	}
}

func TestPanicAnswersAndTheServerLives(t *testing.T) {
	f := newFixture(t)
	rec := f.do(t, "GET", "/v1/panic", nil, map[string]string{"x-api-key": "good", "X-Request-Id": "p-1"})
	if rec.Code != 500 || kindOf(t, rec) != "internal" || !strings.Contains(rec.Body.String(), "p-1") {
		t.Errorf("panic: %d %q", rec.Code, rec.Body)
	}
	if strings.Contains(rec.Body.String(), "boom") {
		t.Error("the panic's value reached the client")
	}
	if !strings.Contains(f.log.String(), "handler panicked") {
		t.Error("the panic was not logged")
	}
	if rec := f.do(t, "GET", "/healthz", nil, nil); rec.Code != 200 {
		t.Errorf("after the panic: %d", rec.Code)
	}
}

func TestMetricsSeriesPerRoute(t *testing.T) {
	f := newFixture(t)
	f.do(t, "GET", "/healthz", nil, nil)
	f.do(t, "GET", "/healthz", nil, nil)
	f.do(t, "GET", "/nope", nil, nil)
	mfs, err := f.reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	for _, mf := range mfs {
		expfmt.MetricFamilyToText(&buf, mf)
	}
	for _, want := range []string{
		`floe_http_requests_total{route="GET /healthz",status="200",surface="test"} 2`,
		`floe_http_requests_total{route="unmatched",status="404",surface="test"} 1`,
		`floe_http_request_duration_seconds_count{route="GET /healthz",surface="test"} 2`,
	} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("metrics lack %s:\n%s", want, buf.String())
		}
	}
}

func TestBodyErrorKinds(t *testing.T) {
	if !errors.Is(BodyError(&http.MaxBytesError{Limit: 8}), fault.TooLarge) {
		t.Error("MaxBytesError is not TooLarge")
	}
	if !errors.Is(BodyError(io.ErrUnexpectedEOF), fault.Invalid) {
		t.Error("a broken body is not Invalid")
	}
	if BodyError(nil) != nil {
		t.Error("nil is not nil")
	}
}
