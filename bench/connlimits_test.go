package bench

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// The cost of the connection limits (#23 item 2) on the hot path: two
// `floe serve` processes of the same build, one with the limits (the
// default) and one with --max-connections -1, driven in interleaved rounds
// by the same load generator.
//
//	go test -run '^$' -bench ConnLimits -benchtime 1x ./bench/
//
// Both keep the edge's body deadline (it has no switch; Lance DescribeTable
// carries a body, Iceberg LoadTable none), so the ratio is the limiting
// listener and its connection-state hook.

// connRounds rounds per side and operation, ABBA, of connRoundRequests:
// long enough for the servers' CPU clocks (10 ms ticks) to count to a few
// per cent.
const (
	connRounds        = 16
	connRoundRequests = 6000
)

// BenchmarkConnLimits reports Lance DescribeTable's and Iceberg
// LoadTable's rate with the limits on as a share of off (target ≥ 0.95).
func BenchmarkConnLimits(b *testing.B) {
	dir := b.TempDir()
	bin := os.Getenv("FLOE_BENCH_FLOE")
	if bin == "" {
		bin = goBuild(b, dir, "floe", "../cmd/floe")
	}
	on := startFloeCatalogs(b, bin)
	off := startFloeCatalogs(b, bin, "--max-connections", "-1")

	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: processClients, MaxConnsPerHost: processClients}}
	describePath := "/v1/table/bench$ns$t0000/describe?delimiter=%24"
	describeBody := []byte(`{"id":["bench","ns","t0000"]}`)
	type side struct {
		name string
		c    *child
		run  func() error
	}
	ops := []struct {
		name  string
		sides [2]side
	}{
		{"describe", [2]side{
			{"on", on.child, postFunc(client, "http://"+on.lance+describePath, on.key, describeBody)},
			{"off", off.child, postFunc(client, "http://"+off.lance+describePath, off.key, describeBody)}}},
		{"loadtable", [2]side{
			{"on", on.child, getFunc(client, "http://"+on.iceberg+"/v1/lake/namespaces/ns/tables/t", on.key)},
			{"off", off.child, getFunc(client, "http://"+off.iceberg+"/v1/lake/namespaces/ns/tables/t", off.key)}}},
	}
	for _, op := range ops {
		for _, s := range op.sides {
			if err := loadRound(processWarmup, s.run); err != nil {
				b.Fatalf("%s %s: %v", op.name, s.name, err)
			}
		}
	}
	for _, op := range ops {
		var n [2]int
		var elapsed, cpu [2]time.Duration
		for round := range connRounds {
			order := []int{0, 1}
			if round%2 == 1 {
				order = []int{1, 0}
			}
			for _, i := range order {
				s := op.sides[i]
				c0 := s.c.cpu(b)
				t0 := time.Now()
				if err := loadRound(connRoundRequests, s.run); err != nil {
					b.Fatal(err)
				}
				elapsed[i] += time.Since(t0)
				cpu[i] += s.c.cpu(b) - c0
				n[i] += connRoundRequests
			}
		}
		rate := func(i int) float64 { return float64(n[i]) / elapsed[i].Seconds() }
		perReq := func(i int) time.Duration { return cpu[i] / time.Duration(n[i]) }
		ratio := rate(0) / rate(1)
		cpuRatio := float64(perReq(1)) / float64(perReq(0))
		b.ReportMetric(ratio, op.name+"-on/off")
		b.ReportMetric(cpuRatio, op.name+"-cpu-on/off")
		b.Logf("%s: limits on %.0f req/s, off %.0f req/s, ratio %.3f (target ≥ 0.95); server CPU per request %v on, %v off (ratio by CPU %.3f); %d clients, %d ABBA rounds of %d requests",
			op.name, rate(0), rate(1), ratio, perReq(0), perReq(1), cpuRatio, processClients, connRounds, connRoundRequests)
	}
	for b.Loop() { // the rounds above are timed by hand
	}
}

// catalogsProc is a floe serve with the Lance REST and the Iceberg REST on,
// a Lance table bench$ns$t0000 and an Iceberg table lake.ns.t, and a key.
type catalogsProc struct {
	*child
	lance, iceberg, key string
}

func startFloeCatalogs(b *testing.B, bin string, extra ...string) *catalogsProc {
	b.Helper()
	data := b.TempDir()
	out, err := exec.Command(bin, "token", "create", "--role", "readwrite", "--data", data).Output()
	if err != nil {
		b.Fatalf("floe token create: %v", err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	key := lines[len(lines)-1]
	if out, err := exec.Command(bin, "bucket", "create", "lake", "--format", "iceberg", "--data", data).CombinedOutput(); err != nil {
		b.Fatalf("floe bucket create: %v\n%s", err, out)
	}
	logPath := filepath.Join(data, "serve.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { logFile.Close() })
	args := append([]string{"serve", "--data", data, "--http", "127.0.0.1:0", "--grpc", "127.0.0.1:0",
		"--lance", "127.0.0.1:0", "--iceberg", "127.0.0.1:0", "--s3tables", ""}, extra...)
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "FLOE_ADMIN_PASSWORD=bench-admin-password")
	cmd.Stderr = logFile
	c := startChild(b, cmd)
	go io.Copy(io.Discard, c.stdout) // the start box
	started := regexp.MustCompile(`msg="floe started".* lance=(127\.0\.0\.1:\d+) iceberg=(127\.0\.0\.1:\d+)`)
	p := &catalogsProc{child: c, key: key}
	deadline := time.Now().Add(60 * time.Second)
	for p.lance == "" {
		raw, _ := os.ReadFile(logPath)
		if m := started.FindSubmatch(raw); m != nil {
			p.lance, p.iceberg = string(m[1]), string(m[2])
			break
		}
		if time.Now().After(deadline) {
			b.Fatalf("floe serve did not start within a minute:\n%s", raw)
		}
		time.Sleep(50 * time.Millisecond) // polling the log, not an assertion
	}
	post := func(url, body string) string {
		req, _ := http.NewRequest("POST", url, strings.NewReader(body))
		req.Header.Set("x-api-key", key)
		req.Header.Set("Content-Type", "application/json")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		raw, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != 200 {
			b.Fatalf("POST %s: %d %s", url, res.StatusCode, raw)
		}
		return string(raw)
	}
	for _, path := range []string{"/v1/namespace/bench/create", "/v1/namespace/bench$ns/create?delimiter=%24"} {
		post("http://"+p.lance+path, "{}")
	}
	declared := post("http://"+p.lance+"/v1/table/bench$ns$t0000/declare?delimiter=%24", "{}")
	if m := regexp.MustCompile(`"location":"file://([^"]+)"`).FindStringSubmatch(declared); m != nil {
		// As in steady use: the SDK has written the dataset.
		if err := os.MkdirAll(filepath.Join(m[1], "_versions"), 0o755); err != nil {
			b.Fatal(err)
		}
	}
	post("http://"+p.iceberg+"/v1/lake/namespaces", `{"namespace":["ns"]}`)
	post("http://"+p.iceberg+"/v1/lake/namespaces/ns/tables",
		`{"name":"t","schema":{"type":"struct","schema-id":0,"fields":[{"id":1,"name":"id","required":true,"type":"long"}]}}`)
	return p
}

// getFunc sends one GET and checks for 200.
func getFunc(c *http.Client, url, key string) func() error {
	return func() error {
		req, err := http.NewRequest(http.MethodGet, url, nil)
		if err != nil {
			return err
		}
		req.Header.Set("x-api-key", key)
		res, err := c.Do(req)
		if err != nil {
			return err
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		if res.StatusCode != http.StatusOK {
			return fmt.Errorf("GET %s: status %d", url, res.StatusCode)
		}
		return nil
	}
}
