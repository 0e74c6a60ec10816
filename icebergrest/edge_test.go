package icebergrest

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

// edgeEnv is the real surface on 127.0.0.1 with its log and metrics kept.
type edgeEnv struct {
	*testEnv
	log *syncBuffer
	reg *prometheus.Registry
}

func newEdgeEnv(t *testing.T, anonymous bool) *edgeEnv {
	t.Helper()
	dir := t.TempDir()
	store, err := catalog.Open(context.Background(), catalog.Options{Path: filepath.Join(dir, "catalog.db"), Warehouse: filepath.Join(dir, "warehouse")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	ee := &edgeEnv{log: &syncBuffer{}, reg: prometheus.NewRegistry()}
	srv := New(Config{Store: store, Anonymous: anonymous, Metrics: edge.NewMetrics(ee.reg),
		Logger: slog.New(slog.NewTextHandler(ee.log, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	// A route that panics, registered on the real surface beside the real ones.
	srv.edge.HandleFunc("GET /v1/test/panic", func(http.ResponseWriter, *http.Request) { panic("boom at /secret/path") })
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(hs.Close)
	ee.testEnv = &testEnv{store: store, srv: srv, http: hs, dir: dir}
	return ee
}

// send is one raw request; it returns the response and its whole body.
func (e *edgeEnv) send(t *testing.T, method, path string, body io.Reader, hdr map[string]string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, e.http.URL+path, body)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := e.http.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	return resp, raw
}

// icebergError decodes the spec's {"error": {message, type, code}}.
func icebergError(t *testing.T, status int, raw []byte) (msg, typ string) {
	t.Helper()
	var b struct {
		Error struct {
			Message string `json:"message"`
			Type    string `json:"type"`
			Code    int    `json:"code"`
		} `json:"error"`
	}
	if err := json.Unmarshal(raw, &b); err != nil {
		t.Fatalf("body %q is not the Iceberg error model: %v", raw, err)
	}
	if b.Error.Code != status || b.Error.Type == "" || b.Error.Message == "" {
		t.Fatalf("error body %s does not match status %d", raw, status)
	}
	return b.Error.Message, b.Error.Type
}

func TestEdgeRequestIDEchoedAndLogged(t *testing.T) {
	e := newEdgeEnv(t, true)
	e.bucket(t, "lake", catalog.FormatIceberg)
	resp, _ := e.send(t, "GET", "/v1/config?warehouse=lake", nil, map[string]string{"X-Request-Id": "trace-ice-7"})
	if resp.StatusCode != 200 || resp.Header.Get("X-Request-Id") != "trace-ice-7" {
		t.Fatalf("status %d, X-Request-Id %q: want the client's id answered unchanged", resp.StatusCode, resp.Header.Get("X-Request-Id"))
	}
	log := e.log.String()
	if !strings.Contains(log, "request_id=trace-ice-7") || !strings.Contains(log, "surface=iceberg") || !strings.Contains(log, `route="GET /v1/config"`) {
		t.Fatalf("the access log lacks the request's line:\n%s", log)
	}
	// Without one, the edge makes one; a refusal names it too.
	resp, raw := e.send(t, "GET", "/v1/nobucket/namespaces", nil, nil)
	id := resp.Header.Get("X-Request-Id")
	if id == "" || strings.HasPrefix(id, "ice-") {
		t.Fatalf("made request id %q", id)
	}
	if _, typ := icebergError(t, resp.StatusCode, raw); resp.StatusCode != 404 || typ != typeNoSuchWarehouse {
		t.Fatalf("missing bucket: %d %s", resp.StatusCode, raw)
	}
}

func TestEdgeUnknownRouteAndWrongMethod(t *testing.T) {
	e := newEdgeEnv(t, false)
	for _, path := range []string{"/v2/whatever", "/v1/lake/namespaces/ns/tables/t/nothing", "/"} {
		resp, raw := e.send(t, "GET", path, nil, nil)
		msg, typ := icebergError(t, resp.StatusCode, raw)
		if resp.StatusCode != 404 || typ != typeNotFound || !strings.Contains(msg, "/v1/{prefix}/") {
			t.Errorf("GET %s: %d %s", path, resp.StatusCode, raw)
		}
	}
	cases := []struct{ method, path, allow string }{
		{"PUT", "/v1/lake/namespaces", "GET, HEAD, POST"},
		{"DELETE", "/v1/config", "GET, HEAD"},
		{"GET", "/v1/oauth/tokens", "POST"},
		{"PATCH", "/v1/lake/namespaces/ns/tables/t/plan", "POST"},
	}
	for _, c := range cases {
		resp, raw := e.send(t, c.method, c.path, strings.NewReader("{}"), nil)
		_, typ := icebergError(t, resp.StatusCode, raw)
		if resp.StatusCode != 405 || typ != typeBadRequest || resp.Header.Get("Allow") != c.allow {
			t.Errorf("%s %s: %d Allow=%q %s (want 405, Allow %q)", c.method, c.path, resp.StatusCode, resp.Header.Get("Allow"), raw, c.allow)
		}
	}
	// HEAD answers no body, whatever the error.
	resp, raw := e.send(t, "HEAD", "/v2/whatever", nil, nil)
	if resp.StatusCode != 404 || len(raw) != 0 {
		t.Errorf("HEAD unknown route: %d with %d body bytes", resp.StatusCode, len(raw))
	}
}

func TestEdgeOversizedBody(t *testing.T) {
	e := newEdgeEnv(t, true)
	e.bucket(t, "lake", catalog.FormatIceberg)
	big := `{"namespace":["a"],"properties":{"k":"` + strings.Repeat("x", maxBodyBytes) + `"}}`
	// Declared length over the cap: refused before anything is read.
	resp, raw := e.send(t, "POST", "/v1/lake/namespaces", strings.NewReader(big), nil)
	if _, typ := icebergError(t, resp.StatusCode, raw); resp.StatusCode != 413 || typ != typeBadRequest {
		t.Errorf("declared length: %d %s", resp.StatusCode, raw)
	}
	// Chunked: the read finds out.
	resp, raw = e.send(t, "POST", "/v1/lake/namespaces", io.MultiReader(strings.NewReader(big)), nil)
	if _, typ := icebergError(t, resp.StatusCode, raw); resp.StatusCode != 413 || typ != typeBadRequest {
		t.Errorf("chunked: %d %s", resp.StatusCode, raw)
	}
	if code, _ := e.call(t, "GET", "/v1/lake/namespaces/a", "", nil); code != 404 {
		t.Errorf("the oversized create made a namespace: %d", code)
	}
}

func TestEdgePanicAnswers500AndServes(t *testing.T) {
	e := newEdgeEnv(t, true)
	resp, raw := e.send(t, "GET", "/v1/test/panic", nil, map[string]string{"X-Request-Id": "p-42"})
	msg, typ := icebergError(t, resp.StatusCode, raw)
	if resp.StatusCode != 500 || typ != typeServiceFailure || !strings.Contains(msg, "p-42") {
		t.Fatalf("panic: %d %s", resp.StatusCode, raw)
	}
	if strings.Contains(string(raw), "boom") || strings.Contains(string(raw), "/secret") {
		t.Fatalf("the panic's text reached the client: %s", raw)
	}
	if !strings.Contains(e.log.String(), "handler panicked") {
		t.Fatalf("the panic was not logged:\n%s", e.log.String())
	}
	if resp, _ := e.send(t, "GET", "/v1/config?warehouse=nobucket", nil, nil); resp.StatusCode != 404 {
		t.Fatalf("after the panic: %d", resp.StatusCode)
	}
}

// TestEdgePrincipalsAndMetrics: the access log names who called (a key, a
// bearer from the token exchange, the exchange's own client), and the
// shared metrics carry the surface's series by route pattern.
func TestEdgePrincipalsAndMetrics(t *testing.T) {
	e := newEdgeEnv(t, false)
	e.bucket(t, "lake", catalog.FormatIceberg)
	k, secret, err := e.store.CreateAPIKey(context.Background(), "k", catalog.RoleReadWrite, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	if code, _ := e.call(t, "GET", "/v1/lake/namespaces", secret, nil); code != 200 {
		t.Fatalf("list = %d", code)
	}
	form := url.Values{"grant_type": {"client_credentials"}, "client_id": {k.AccessKeyID}, "client_secret": {k.SecretAccessKey}}
	resp, raw := e.send(t, "POST", "/v1/oauth/tokens", strings.NewReader(form.Encode()), map[string]string{"Content-Type": "application/x-www-form-urlencoded"})
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	if err := json.Unmarshal(raw, &tok); err != nil || resp.StatusCode != 200 || tok.AccessToken == "" {
		t.Fatalf("token: %d %s", resp.StatusCode, raw)
	}
	if code, _ := e.call(t, "GET", "/v1/lake/namespaces", tok.AccessToken, nil); code != 200 {
		t.Fatalf("list with bearer = %d", code)
	}
	if code, _ := e.call(t, "GET", "/v1/lake/namespaces", "floe_nope", nil); code != 401 {
		t.Fatalf("wrong key = %d", code)
	}
	log := e.log.String()
	if n := strings.Count(log, "principal=apikey:"+k.ID); n != 3 {
		t.Errorf("the log names key %s on %d lines, want 3 (key, token exchange, bearer):\n%s", k.ID, n, log)
	}
	mfs, err := e.reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	for _, mf := range mfs {
		if _, err := expfmt.MetricFamilyToText(&buf, mf); err != nil {
			t.Fatal(err)
		}
	}
	for _, want := range []string{
		`floe_http_requests_total{route="GET /v1/{prefix}/namespaces",status="200",surface="iceberg"} 2`,
		`floe_http_requests_total{route="GET /v1/{prefix}/namespaces",status="401",surface="iceberg"} 1`,
		`floe_http_requests_total{route="POST /v1/oauth/tokens",status="200",surface="iceberg"} 1`,
	} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("metrics lack %s:\n%s", want, buf.String())
		}
	}
}
