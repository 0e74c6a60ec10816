package bench

import (
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkHotPathsProcess puts floe's three hottest catalog reads against
// the ceiling, each server in its own process (issue 27): Lance
// DescribeTable, Lance ListTables of 1,000 names, and Iceberg LoadTable in
// `floe serve` against the empty Go handler (bench/emptyhttp), 16 clients,
// alternating rounds (ABBA) per operation. Targets: describe ≥ 0.5,
// ListTables(1000) ≥ 0.3, LoadTable ≥ 0.3 of the empty handler's rate.
//
//	go test -run '^$' -bench HotPathsProcess -benchtime 1x ./bench/
func BenchmarkHotPathsProcess(b *testing.B) {
	dir := b.TempDir()
	bin := os.Getenv("FLOE_BENCH_FLOE")
	if bin == "" {
		bin = goBuild(b, dir, "floe", "../cmd/floe")
	}
	run := newScaleRun(b, bin, filepath.Join(dir, "data"), "")
	run.seed.grow(b, scaleNSSize+scaleProbe) // b00/wide: 1,000 Lance tables
	srv := serveOn(b, bin, run.seed.data, run.seed.dsn, "serve.log")
	client := &http.Client{Timeout: time.Minute, Transport: &http.Transport{MaxIdleConnsPerHost: processClients, MaxConnsPerHost: processClients}}
	run.createProbes(b, client, srv.ice)
	empty := startChild(b, exec.Command(goBuild(b, dir, "emptyhttp", "./emptyhttp")))
	empty.addr = readFirstLine(b, empty)
	floeChild := &child{cmd: srv.cmd}

	ops := []struct {
		name, method, path, body, scheme string
		target                           float64
	}{
		{"describe", http.MethodPost, "/v1/table/b00$wide$t0000000/describe?delimiter=%24", `{"id":["b00","wide","t0000000"]}`, "x-api-key", 0.5},
		{"list_tables_1000", http.MethodGet, "/v1/namespace/b00$wide/table/list?delimiter=%24&limit=1000", "", "x-api-key", 0.3},
		{"load_table", http.MethodGet, "/v1/b01/namespaces/probe/tables/p0000", "", "Bearer", 0.3},
	}
	for _, op := range ops {
		addr := srv.lance
		if op.scheme == "Bearer" {
			addr = srv.ice
		}
		floeSide := func() error { return run.do(client, op.method, "http://"+addr+op.path, op.body, op.scheme) }
		emptySide := func() error { return run.do(client, op.method, "http://"+empty.addr+op.path, op.body, op.scheme) }
		for _, side := range []func() error{floeSide, emptySide} {
			if err := loadRound(processWarmup, side); err != nil {
				b.Fatal(err)
			}
		}
		f, e := abbaRounds(b, processRounds/2, floeSide, floeChild, emptySide, empty)
		rate := func(t tally) float64 { return float64(t.n) / t.elapsed.Seconds() }
		cpuRatio := float64(e.cpu+e.client) / float64(e.n) / (float64(f.cpu+f.client) / float64(f.n))
		b.ReportMetric(rate(f)/rate(e), op.name+"/empty")
		b.ReportMetric(cpuRatio, "cpu-"+op.name+"/empty")
		b.Logf("%s: floe serve %.0f req/s, empty handler %.0f req/s: %.2f of it (target ≥ %.1f); by CPU per request (server and client) %.2f; floe's server CPU %v per request, the empty handler's %v",
			op.name, rate(f), rate(e), rate(f)/rate(e), op.target, cpuRatio, f.cpu/time.Duration(f.n), e.cpu/time.Duration(e.n))
	}
	for b.Loop() { // the rounds above are timed by hand
	}
}
