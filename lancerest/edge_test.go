package lancerest

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/common/expfmt"

	"github.com/floe/floe/catalog"
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

// edgeEnv is the real surface handler with its log and metrics in reach,
// and one route that panics (registered here, in the test, through the
// same route table call the operations use).
type edgeEnv struct {
	srv *httptest.Server
	log *syncBuffer
	reg *prometheus.Registry
	key string
}

func newEdgeEnv(t *testing.T) *edgeEnv {
	t.Helper()
	dir := t.TempDir()
	ctx := context.Background()
	st, err := catalog.Open(ctx, catalog.Options{Path: filepath.Join(dir, "catalog.db"), Warehouse: filepath.Join(dir, "warehouse")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if _, err := st.CreateBucket(ctx, catalog.CreateBucketInput{Name: "lnc", Format: catalog.FormatLance}); err != nil {
		t.Fatal(err)
	}
	_, key, err := st.CreateAPIKey(ctx, "edge", catalog.RoleReadWrite, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	e := &edgeEnv{log: &syncBuffer{}, reg: prometheus.NewRegistry(), key: key}
	s := New(Config{Store: st, Metrics: edge.NewMetrics(e.reg),
		Logger: slog.New(slog.NewTextHandler(e.log, &slog.HandlerOptions{Level: slog.LevelInfo}))})
	s.surface.HandleFunc("POST /v1/test/{id}/panic", func(http.ResponseWriter, *http.Request) {
		panic("secret internal state /var/lib/floe")
	})
	e.srv = httptest.NewServer(s.Handler())
	t.Cleanup(e.srv.Close)
	return e
}

func (e *edgeEnv) do(t *testing.T, method, path string, body io.Reader, hdr map[string]string) (*http.Response, errorBody) {
	t.Helper()
	req, err := http.NewRequest(method, e.srv.URL+path, body)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("x-api-key", e.key)
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	var eb errorBody
	if res.StatusCode != http.StatusOK {
		if err := json.Unmarshal(b, &eb); err != nil {
			t.Fatalf("%s %s: %d %q is not the spec's error body", method, path, res.StatusCode, b)
		}
		if eb.Instance == "" || eb.Instance != res.Header.Get("X-Request-Id") || eb.Error == "" || eb.Detail == "" {
			t.Fatalf("%s %s: error body %+v, X-Request-Id %q", method, path, eb, res.Header.Get("X-Request-Id"))
		}
	}
	return res, eb
}

func TestEdgeRequestIDEchoedAndLogged(t *testing.T) {
	e := newEdgeEnv(t)
	res, _ := e.do(t, "POST", "/v1/namespace/lnc/exists", nil, map[string]string{"X-Request-Id": "trace-lance-7"})
	if res.StatusCode != 200 || res.Header.Get("X-Request-Id") != "trace-lance-7" {
		t.Fatalf("%d, X-Request-Id %q; want 200 and the client's id", res.StatusCode, res.Header.Get("X-Request-Id"))
	}
	// An error answer carries it as the spec's instance too.
	_, eb := e.do(t, "POST", "/v1/namespace/lnc$nope/exists", nil, map[string]string{"X-Request-Id": "trace-lance-8"})
	if eb.Instance != "trace-lance-8" || eb.Code != CodeNamespaceNotFound {
		t.Fatalf("error body %+v", eb)
	}
	log := e.log.String()
	for _, want := range []string{"request_id=trace-lance-7", "surface=lance", `route="POST /v1/namespace/{id}/exists"`, "principal=apikey:"} {
		if !strings.Contains(log, want) {
			t.Errorf("the access log lacks %s:\n%s", want, log)
		}
	}
}

func TestEdgeNotFoundMethodAndBodyInSpecShape(t *testing.T) {
	e := newEdgeEnv(t)
	res, eb := e.do(t, "POST", "/v1/table/lnc$ns$t/frobnicate", nil, nil)
	if res.StatusCode != 404 || eb.Code != CodeInvalidInput || !strings.Contains(eb.Error, "no such route") {
		t.Errorf("unknown route: %d %+v", res.StatusCode, eb)
	}
	res, eb = e.do(t, "GET", "/v1/table/lnc$ns$t/describe", nil, nil)
	if res.StatusCode != 405 || eb.Code != CodeInvalidInput || res.Header.Get("Allow") != "POST" || !strings.Contains(eb.Detail, "POST") {
		t.Errorf("wrong method: %d %+v Allow %q", res.StatusCode, eb, res.Header.Get("Allow"))
	}
	res, eb = e.do(t, "PUT", "/v1/namespace/lnc/list", nil, nil)
	if res.StatusCode != 405 || !strings.Contains(res.Header.Get("Allow"), "GET") || !strings.Contains(res.Header.Get("Allow"), "POST") {
		t.Errorf("wrong method on a list: %d %+v Allow %q", res.StatusCode, eb, res.Header.Get("Allow"))
	}
	big := bytes.Repeat([]byte(" "), maxBodyBytes+1)
	res, eb = e.do(t, "POST", "/v1/table/lnc$ns$t/describe", bytes.NewReader(big), nil)
	if res.StatusCode != 413 || eb.Code != CodeInvalidInput || !strings.Contains(eb.Detail, "bytes") {
		t.Errorf("oversized body: %d %+v", res.StatusCode, eb)
	}
	// A data-plane operation is a route (406 code 0), not an unknown one.
	res, eb = e.do(t, "POST", "/v1/table/lnc$ns$t/insert", nil, nil)
	if res.StatusCode != 406 || eb.Code != CodeUnsupported {
		t.Errorf("unsupported: %d %+v", res.StatusCode, eb)
	}
}

func TestEdgePanicAnswers500AndServesOn(t *testing.T) {
	e := newEdgeEnv(t)
	res, eb := e.do(t, "POST", "/v1/test/x/panic", nil, map[string]string{"X-Request-Id": "boom-1"})
	if res.StatusCode != 500 || eb.Code != CodeInternal || !strings.Contains(eb.Detail, "boom-1") {
		t.Fatalf("panic: %d %+v", res.StatusCode, eb)
	}
	if strings.Contains(eb.Detail+eb.Error, "secret") || strings.Contains(eb.Detail+eb.Error, "/var/lib") {
		t.Fatalf("the panic's value reached the client: %+v", eb)
	}
	if !strings.Contains(e.log.String(), "handler panicked") {
		t.Errorf("the panic was not logged:\n%s", e.log)
	}
	if res, _ := e.do(t, "POST", "/v1/namespace/lnc/exists", nil, nil); res.StatusCode != 200 {
		t.Fatalf("after the panic: %d", res.StatusCode)
	}
}

func TestEdgeMetricsPerRoute(t *testing.T) {
	e := newEdgeEnv(t)
	e.do(t, "POST", "/v1/namespace/lnc/exists", nil, nil)
	e.do(t, "POST", "/v1/nothing", nil, nil)
	mfs, err := e.reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	for _, mf := range mfs {
		expfmt.MetricFamilyToText(&buf, mf)
	}
	for _, want := range []string{
		`floe_http_requests_total{route="POST /v1/namespace/{id}/exists",status="200",surface="lance"} 1`,
		`floe_http_requests_total{route="unmatched",status="404",surface="lance"} 1`,
	} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("metrics lack %s:\n%s", want, buf.String())
		}
	}
}

// TestIDSegmentParse: the identifier is the {id} segment ServeMux matched
// (a percent-encoded $ or / stays inside it), read from the escaped path
// and form-decoded: PathValue agrees with it except that a + in the
// segment is a space, as LanceDB encodes one.
func TestIDSegmentParse(t *testing.T) {
	mux := http.NewServeMux()
	var got, pathValue string
	var perr *Error
	mux.HandleFunc("POST /v1/table/{id}/describe", func(_ http.ResponseWriter, r *http.Request) {
		var c call
		perr = c.parse(r, true)
		got, pathValue = strings.Join(c.id, "\x00"), r.PathValue("id")
	})
	for raw, want := range map[string]string{
		"a$b$c": "a\x00b\x00c", "a%24b%24c": "a\x00b\x00c", "a%2Fb$c": "a/b\x00c", "a%252Fb": "a%2Fb", "%C3%A9$x": "é\x00x",
		"a::b": "a::b", "My+Table": "My Table", "a%2Bb": "a+b", "a%20b": "a b", "Ns+X%24B.c%24My+Table": "Ns X\x00B.c\x00My Table",
	} {
		got, perr = "<no match>", nil
		u := &url.URL{Scheme: "http", Host: "x", Path: "/v1/table/" + mustUnescape(t, raw) + "/describe", RawPath: "/v1/table/" + raw + "/describe"}
		mux.ServeHTTP(httptest.NewRecorder(), &http.Request{Method: "POST", URL: u, Header: http.Header{}})
		if perr != nil || got != want {
			t.Errorf("segment %q: parsed %q (%v), want %q", raw, got, perr, want)
		}
		if !strings.Contains(raw, "+") && strings.ReplaceAll(pathValue, "$", "\x00") != want && !strings.Contains(raw, "%24") && !strings.Contains(raw, "%2F") {
			t.Errorf("segment %q: PathValue %q disagrees with %q", raw, pathValue, want)
		}
	}
	for _, bad := range []string{"a%00b", "a%2B%00"} {
		perr = nil
		u := &url.URL{Scheme: "http", Host: "x", Path: "/v1/table/" + mustUnescape(t, bad) + "/describe", RawPath: "/v1/table/" + bad + "/describe"}
		mux.ServeHTTP(httptest.NewRecorder(), &http.Request{Method: "POST", URL: u, Header: http.Header{}})
		if perr == nil {
			t.Errorf("segment %q parsed without an error", bad)
		}
	}
}

func mustUnescape(t *testing.T, s string) string {
	t.Helper()
	u, err := url.PathUnescape(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}
