package main

import (
	"context"
	"slices"
	"testing"
	"time"
)

// BenchmarkServeStart starts floe serve on a catalog of 1,000 and one of
// 200,000 observed tables (seeded as TestServeStartReadsNoTableRows seeds
// them), alternating the two, and reports the median time from the start
// to the first ready /readyz, its ratio between the catalogs, and the time
// until the observations are in memory (the load floe serve runs once it
// serves). Run it with -benchtime 1x: each run makes startRounds starts of
// each; seeding 200,000 tables takes a minute or two.
func BenchmarkServeStart(b *testing.B) {
	sizes := []int{1_000, 200_000}
	data := make([]string, len(sizes))
	for i, n := range sizes {
		data[i] = b.TempDir()
		seedCatalog(b, data[i], n)
		startOnce(b, data[i]) // the first start makes the admin (a bcrypt hash): not every start's work
	}
	ready := make([][]time.Duration, len(sizes))
	loaded := make([][]time.Duration, len(sizes))
	for r := range startRounds {
		order := []int{0, 1}
		if r%2 == 1 {
			order = []int{1, 0} // ABBA: neither catalog always starts on a warmer machine
		}
		for _, i := range order {
			rd, ld := startOnce(b, data[i])
			ready[i] = append(ready[i], rd)
			loaded[i] = append(loaded[i], ld)
		}
	}
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	small, large := median(ready[0]), median(ready[1])
	b.ReportMetric(ms(small), "ms-ready-1k")
	b.ReportMetric(ms(large), "ms-ready-200k")
	b.ReportMetric(float64(large)/float64(small), "ratio-ready")
	b.ReportMetric(ms(median(loaded[0])), "ms-loaded-1k")
	b.ReportMetric(ms(median(loaded[1])), "ms-loaded-200k")
	b.Logf("/readyz after %v (1,000 tables) and %v (200,000): ratio %.2f; observations loaded after %v and %v",
		ready[0], ready[1], float64(large)/float64(small), loaded[0], loaded[1])
}

// startRounds is how many starts of each catalog BenchmarkServeStart makes.
const startRounds = 5

// startOnce starts floe serve on data and stops it once its observations
// are loaded; it returns the time from the start to the first ready
// /readyz and to the "observations loaded" line.
func startOnce(b *testing.B, data string) (ready, loaded time.Duration) {
	b.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t0 := time.Now()
	srv := startServe(b, ctx, "--data", data)
	srv.waitReady(b)
	ready = time.Since(t0)
	srv.waitLog(b, "observations loaded")
	loaded = time.Since(t0)
	cancel()
	if err := srv.wait(b); err != nil {
		b.Fatal(err)
	}
	return ready, loaded
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}
