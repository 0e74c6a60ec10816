package main

import (
	"context"
	"net/http"
	"strings"
	"testing"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// TestServeMetricsOneRegistry: /metrics carried the console's own two
// families from a registry web.Server owned. Now the --metrics listener
// serves the process's one registry: the edge's request series labelled by
// surface and route pattern, and the Go and process collectors.
func TestServeMetricsOneRegistry(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	srv := startServe(t, ctx, "--data", t.TempDir(), "--metrics", "127.0.0.1:0", "--lance", "", "--iceberg", "", "--s3tables", "")
	defer func() {
		cancel()
		if err := srv.wait(t); err != nil {
			t.Errorf("serve after cancel: %v", err)
		}
	}()
	console, metrics := srv.addrs["http"], srv.addrs["metrics"]
	for _, p := range []string{"/healthz", "/login", "/nope"} {
		resp, err := http.Get("http://" + console + p)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	resp, err := http.Get("http://" + metrics + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("/metrics: %d", resp.StatusCode)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("/metrics is not the exposition format: %v", err)
	}
	for _, name := range []string{"go_goroutines", "process_resident_memory_bytes", "floe_http_request_duration_seconds"} {
		if families[name] == nil {
			t.Errorf("/metrics lacks %s", name)
		}
	}
	for name := range families {
		if strings.HasPrefix(name, "floe_console_") {
			t.Errorf("the old console family %s is still exported", name)
		}
	}
	want := map[[2]string]bool{{"GET /healthz", "200"}: false, {"GET /login", "200"}: false, {"unmatched", "404"}: false}
	for _, m := range families["floe_http_requests_total"].GetMetric() {
		if label(m, "surface") != "console" {
			continue
		}
		k := [2]string{label(m, "route"), label(m, "status")}
		if _, ok := want[k]; ok && m.GetCounter().GetValue() >= 1 {
			want[k] = true
		}
	}
	for k, seen := range want {
		if !seen {
			t.Errorf("no floe_http_requests_total{surface=\"console\",route=%q,status=%q}", k[0], k[1])
		}
	}
}

func label(m *dto.Metric, name string) string {
	for _, l := range m.GetLabel() {
		if l.GetName() == name {
			return l.GetValue()
		}
	}
	return ""
}
