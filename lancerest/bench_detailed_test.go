package lancerest

import (
	"bytes"
	"encoding/json"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// BenchmarkDescribeDetailed measures DescribeTable with
// load_detailed_metadata (a _versions/ listing plus a manifest read and
// decode per request) against the plain describe, in alternating rounds on
// one server, and reports the rate ratio detailed/plain.
func BenchmarkDescribeDetailed(b *testing.B) {
	srv, key := benchServer(b, 1)
	manifest, err := os.ReadFile("testdata/lance-v3.manifest")
	if err != nil {
		b.Fatal(err)
	}
	dir := benchTableDir(b, srv.URL, key)
	if err := os.WriteFile(filepath.Join(dir, "_versions", v2(3)), manifest, 0o644); err != nil {
		b.Fatal(err)
	}
	body := []byte(`{"id":["bench","ns","t0000"]}`)
	url := srv.URL + "/v1/table/bench$ns$t0000/describe?delimiter=%24"
	plain := requester(benchClient(), http.MethodPost, url, key, body)
	detailed := requester(benchClient(), http.MethodPost, url+"&load_detailed_metadata=true", key, body)
	report(b, drive(b.Loop, detailed))

	b.StopTimer()
	var d, p loadResult
	var dCPU, pCPU time.Duration
	for range ratioRounds {
		for _, side := range []struct {
			acc *loadResult
			cpu *time.Duration
			do  func() error
		}{{&d, &dCPU, detailed}, {&p, &pCPU, plain}} {
			c0 := processCPU()
			r := drive(counted(ratioRoundRequests), side.do)
			*side.cpu += processCPU() - c0
			if r.err != nil {
				b.Fatal(r.err)
			}
			side.acc.n += r.n
			side.acc.elapsed += r.elapsed
		}
	}
	ratio := d.rps() / p.rps()
	b.ReportMetric(ratio, "detailed/plain")
	b.Logf("detailed/plain rate = %.2f (detailed %.0f req/s, plain %.0f req/s); CPU per request %v vs %v; %d alternating rounds of %d requests",
		ratio, d.rps(), p.rps(), dCPU/time.Duration(max(d.n, 1)), pCPU/time.Duration(max(p.n, 1)), ratioRounds, ratioRoundRequests)
	if math.IsNaN(ratio) {
		b.Fatal("no requests measured")
	}
}

// benchTableDir asks the server where t0000 lives (a plain local path).
func benchTableDir(b *testing.B, url, key string) string {
	req, err := http.NewRequest(http.MethodPost, url+"/v1/table/bench$ns$t0000/describe?delimiter=%24", bytes.NewReader(nil))
	if err != nil {
		b.Fatal(err)
	}
	req.Header.Set("x-api-key", key)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	defer res.Body.Close()
	var d struct {
		Location string `json:"location"`
	}
	if err := json.NewDecoder(res.Body).Decode(&d); err != nil {
		b.Fatal(err)
	}
	return strings.TrimPrefix(d.Location, "file://")
}
