package s3worker

import (
	"context"
	"os/exec"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/floe/floe/internal/s3test"
)

// benchTimeout bounds one bench.mjs run: two floes, a 1M-row table on
// each, the worker's first sweeps and 2 × 36 clicks.
const benchTimeout = 30 * time.Minute

// clickP50 finds a click-to-rows line of bench.mjs and its p50 in ms.
var clickP50 = regexp.MustCompile(`(?m)^(S3 )?click-to-rows: Browse Data .*?p50 ([0-9.]+) ms, p90 ([0-9.]+) ms`)

// BenchmarkLanceClickToRowsS3 runs workers/lance/bench.mjs --only=click
// --s3: the console's Browse Data of 200 rows from a 1,000,000-row Lance
// table, worker warm, on a local warehouse and then on SeaweedFS, in one
// run. Metrics: p50/p90 of each and the S3/local ratio of the p50s.
// Run with -bench ClickToRows -benchtime 1x (one run is minutes).
func BenchmarkLanceClickToRowsS3(b *testing.B) {
	root, node := repoRoot(b)
	st := s3test.New(b)
	for b.Loop() {
		ctx, cancel := context.WithTimeout(b.Context(), benchTimeout)
		cmd := exec.CommandContext(ctx, node, "workers/lance/bench.mjs", "--only=click", "--s3")
		cmd.Dir = root
		cmd.Env = storeEnv(b, st, "static")
		out, err := cmd.CombinedOutput()
		cancel()
		b.Logf("node workers/lance/bench.mjs --only=click --s3:\n%s", out)
		if err != nil {
			b.Fatalf("bench.mjs: %v", err)
		}
		var local, s3 [2]float64
		for _, m := range clickP50.FindAllStringSubmatch(string(out), -1) {
			p50, _ := strconv.ParseFloat(m[2], 64)
			p90, _ := strconv.ParseFloat(m[3], 64)
			if m[1] == "" {
				local = [2]float64{p50, p90}
			} else {
				s3 = [2]float64{p50, p90}
			}
		}
		if local[0] == 0 || s3[0] == 0 {
			b.Fatal("bench.mjs printed no click-to-rows figure for local and S3")
		}
		b.ReportMetric(local[0], "ms-p50-local")
		b.ReportMetric(local[1], "ms-p90-local")
		b.ReportMetric(s3[0], "ms-p50-s3")
		b.ReportMetric(s3[1], "ms-p90-s3")
		b.ReportMetric(s3[0]/local[0], "s3/local")
	}
}
