package main

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// TestServeMetricsCountTheLanceSurfaces: after one Lance REST and one task
// API request, the --metrics listener has floe_http_requests_total series
// for surfaces lance and taskapi, labelled by route pattern and status,
// beside the console's families.
func TestServeMetricsCountTheLanceSurfaces(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	srv := startServe(t, ctx, "--data", t.TempDir(), "--iceberg", "", "--s3tables", "", "--metrics", "127.0.0.1:0", "--lance-anonymous")
	t.Cleanup(func() {
		cancel()
		if err := srv.wait(t); err != nil {
			t.Errorf("serve: %v", err)
		}
	})
	lance, metrics := srv.addrs["lance"], srv.addrs["metrics"]
	for _, u := range []string{"/v1/namespace/%24/list", "/lance/oss/v1/table/ns$t/tasks?task_type=lance_compact"} {
		req, _ := http.NewRequest("GET", "http://"+lance+u, nil)
		req.Host = "vecs.localhost"
		resp, err := http.DefaultClient.Do(req)
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
	p := expfmt.NewTextParser(model.UTF8Validation)
	mfs, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("/metrics is not the exposition format: %v", err)
	}
	want := map[string]string{ // surface -> a route it must have a series for
		"lance":   "GET /v1/namespace/{id}/list",
		"taskapi": "GET /lance/oss/v1/table/{id}/tasks",
	}
	found := map[string]bool{}
	for _, m := range mfs["floe_http_requests_total"].GetMetric() {
		labels := map[string]string{}
		for _, l := range m.GetLabel() {
			labels[l.GetName()] = l.GetValue()
		}
		if route, ok := want[labels["surface"]]; ok && labels["route"] == route && labels["status"] != "" && m.GetCounter().GetValue() >= 1 {
			found[labels["surface"]] = true
		}
	}
	for surface, route := range want {
		if !found[surface] {
			t.Errorf("/metrics has no floe_http_requests_total{surface=%q,route=%q}", surface, route)
		}
	}
	if _, ok := mfs["floe_http_request_duration_seconds"]; !ok {
		t.Error("/metrics lacks floe_http_request_duration_seconds")
	}
	if !strings.Contains(strings.Join(keys(mfs), " "), "go_goroutines") {
		t.Error("/metrics lost the console registry's Go collector")
	}
}

func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}
