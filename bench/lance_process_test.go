package bench

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// The cross-process DescribeTable benchmark: `floe serve` in one process,
// the empty Go handler (bench/emptyhttp) in another, both driven from this
// process by the same loopback load generator in interleaved rounds.
//
//	go test -run '^$' -bench LanceDescribeProcess -benchtime 1x ./bench/
//
// FLOE_BENCH_FLOE names a floe binary to measure instead of building this
// tree's (to compare two builds in one session).

const (
	// processClients is the concurrency the DescribeTable target is stated
	// for, as in lancerest's in-process benchmark.
	processClients = 16
	// processRounds rounds per side, alternating which side goes first
	// (ABBA), so drift on a shared machine falls on both sides.
	processRounds = 20
	// processRoundRequests per round: long enough for the child's CPU
	// clock (10 ms ticks) to count, short enough to interleave often.
	processRoundRequests = 2000
	// processWarmup requests per side before measuring (connections,
	// caches, the Go runtime's heap).
	processWarmup = 1000
)

// BenchmarkLanceDescribeProcess reports DescribeTable's rate as a share of
// the empty handler's (target ≥ 0.5), each server in its own process, the
// edge's authentication, request id, access log (to a file) and metrics
// included; and the server processes' CPU per request.
func BenchmarkLanceDescribeProcess(b *testing.B) {
	dir := b.TempDir()
	floeBin := os.Getenv("FLOE_BENCH_FLOE")
	if floeBin == "" {
		floeBin = goBuild(b, dir, "floe", "../cmd/floe")
	}
	emptyBin := goBuild(b, dir, "emptyhttp", "./emptyhttp")

	fl := startFloe(b, floeBin)
	empty := startChild(b, exec.Command(emptyBin))
	empty.addr = readFirstLine(b, empty)

	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: processClients, MaxConnsPerHost: processClients}}
	path := "/v1/table/bench$ns$t0000/describe?delimiter=%24"
	body := []byte(`{"id":["bench","ns","t0000"]}`)
	describe := postFunc(client, "http://"+fl.addr+path, fl.key, body)
	baseline := postFunc(client, "http://"+empty.addr+path, fl.key, body)
	for _, side := range []func() error{describe, baseline} {
		if err := loadRound(processWarmup, side); err != nil {
			b.Fatal(err)
		}
	}

	d, e := abbaRounds(b, processRounds, describe, fl.child, baseline, empty)
	for b.Loop() { // the rounds above are timed by hand, per side
	}
	rate := func(t tally) float64 { return float64(t.n) / t.elapsed.Seconds() }
	ratio := rate(d) / rate(e)
	dCPU, eCPU := d.cpu/time.Duration(d.n), e.cpu/time.Duration(e.n)
	// The rate two otherwise idle cores would give each side, from the CPU
	// both processes of a side spent per request: a share that the other
	// work on a busy machine does not move.
	cpuRatio := float64(e.cpu+e.client) / float64(e.n) / (float64(d.cpu+d.client) / float64(d.n))
	b.ReportMetric(ratio, "describe/empty")
	b.ReportMetric(cpuRatio, "cpu-describe/empty")
	b.ReportMetric(rate(d), "describe-req/s")
	b.ReportMetric(rate(e), "empty-req/s")
	b.ReportMetric(float64(dCPU.Microseconds()), "describe-server-µs/req")
	b.ReportMetric(float64(eCPU.Microseconds()), "empty-server-µs/req")
	b.Logf("DescribeTable in floe serve: %.0f req/s; empty Go handler: %.0f req/s; ratio %.2f (target ≥ 0.5). Server CPU per request %v vs %v; load generator's %v vs %v; by CPU per request the ratio is %.2f. %d clients, %d alternating rounds of %d requests per side, binary %s",
		rate(d), rate(e), ratio, dCPU, eCPU, d.client/time.Duration(d.n), e.client/time.Duration(e.n), cpuRatio, processClients, processRounds, processRoundRequests, floeBin)
}

// tally is one side's share of alternating rounds: requests, wall time,
// the server process's CPU and this process's (the load generator's).
type tally struct {
	n       int
	elapsed time.Duration
	cpu     time.Duration
	client  time.Duration
}

// abbaRounds runs rounds of processRoundRequests per side, alternating which
// side goes first (ABBA) so drift on a shared machine falls on both, and
// tallies each side against its server process.
func abbaRounds(b *testing.B, rounds int, runA func() error, a *child, runB func() error, bc *child) (ta, tb tally) {
	b.Helper()
	sides := []struct {
		t   *tally
		c   *child
		run func() error
	}{{&ta, a, runA}, {&tb, bc, runB}}
	for round := range rounds {
		order := []int{0, 1}
		if round%2 == 1 {
			order = []int{1, 0}
		}
		for _, i := range order {
			s := sides[i]
			c0, l0 := s.c.cpu(b), selfCPU()
			t0 := time.Now()
			if err := loadRound(processRoundRequests, s.run); err != nil {
				b.Fatal(err)
			}
			s.t.elapsed += time.Since(t0)
			s.t.cpu += s.c.cpu(b) - c0
			s.t.client += selfCPU() - l0
			s.t.n += processRoundRequests
		}
	}
	return ta, tb
}

// child is a server process the benchmark started.
type child struct {
	cmd    *exec.Cmd
	addr   string
	stdout io.Reader
}

func startChild(b *testing.B, cmd *exec.Cmd) *child {
	b.Helper()
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if cmd.Stderr == nil {
		cmd.Stderr = os.Stderr
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	return &child{cmd: cmd, stdout: out}
}

func readFirstLine(b *testing.B, c *child) string {
	b.Helper()
	line, err := bufio.NewReader(c.stdout).ReadString('\n')
	if err != nil {
		b.Fatalf("%s printed no address: %v", c.cmd.Path, err)
	}
	return strings.TrimSpace(line)
}

// cpu is the child's user+system CPU time so far (/proc, in clock ticks of
// 10 ms: a round is long enough for them to count).
func (c *child) cpu(b *testing.B) time.Duration {
	b.Helper()
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", c.cmd.Process.Pid))
	if err != nil {
		b.Fatalf("reading the child's CPU time: %v", err)
	}
	_, rest, ok := bytes.Cut(raw, []byte(") "))
	f := strings.Fields(string(rest))
	if !ok || len(f) < 13 {
		b.Fatalf("unexpected /proc stat line %q", raw)
	}
	utime, _ := strconv.ParseInt(f[11], 10, 64)
	stime, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(utime+stime) * 10 * time.Millisecond
}

// selfCPU is this process's user+system CPU time so far.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// floeProc is a running floe serve with a table to describe and a key.
type floeProc struct {
	*child
	key string
}

// startFloe starts `floe serve` on a fresh data directory with only the
// Lance surface on (and the console and plugin channel it cannot do
// without), its log in a file, and declares bench$ns$t0000 as a table the
// SDK has written.
func startFloe(b *testing.B, bin string) *floeProc {
	b.Helper()
	data := b.TempDir()
	if out, err := exec.Command(bin, "init", "--data", data).CombinedOutput(); err != nil {
		b.Fatalf("floe init: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "token", "create", "--role", "readwrite", "--data", data).Output()
	if err != nil {
		b.Fatalf("floe token create: %v", err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	key := lines[len(lines)-1]
	logPath := filepath.Join(data, "serve.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { logFile.Close() })
	cmd := exec.Command(bin, "serve", "--data", data, "--http", "127.0.0.1:0", "--grpc", "127.0.0.1:0",
		"--lance", "127.0.0.1:0", "--iceberg", "", "--s3tables", "")
	cmd.Env = append(os.Environ(), "FLOE_ADMIN_PASSWORD=bench-admin-password")
	cmd.Stderr = logFile
	c := startChild(b, cmd)
	go io.Copy(io.Discard, c.stdout) // the start box
	started := regexp.MustCompile(`msg="floe started".* lance=(127\.0\.0\.1:\d+)`)
	deadline := time.Now().Add(60 * time.Second)
	for c.addr == "" {
		raw, _ := os.ReadFile(logPath)
		if m := started.FindSubmatch(raw); m != nil {
			c.addr = string(m[1])
			break
		}
		if time.Now().After(deadline) {
			b.Fatalf("floe serve did not start within a minute:\n%s", raw)
		}
		time.Sleep(50 * time.Millisecond) // polling the log, not an assertion
	}
	client := &http.Client{}
	for _, p := range []string{"/v1/namespace/bench/create", "/v1/namespace/bench$ns/create?delimiter=%24", "/v1/table/bench$ns$t0000/declare?delimiter=%24"} {
		req, _ := http.NewRequest("POST", "http://"+c.addr+p, strings.NewReader("{}"))
		req.Header.Set("x-api-key", key)
		res, err := client.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != 200 {
			b.Fatalf("POST %s: %d %s", p, res.StatusCode, body)
		}
		var declared struct {
			Location string `json:"location"`
		}
		if json.Unmarshal(body, &declared) == nil && declared.Location != "" {
			// As in steady use: the SDK has written the dataset.
			loc := strings.TrimPrefix(declared.Location, "file://")
			if err := os.MkdirAll(filepath.Join(loc, "_versions"), 0o755); err != nil {
				b.Fatal(err)
			}
		}
	}
	return &floeProc{child: c, key: key}
}

// goBuild builds a main package of this module into dir.
func goBuild(b *testing.B, dir, name, pkg string) string {
	b.Helper()
	bin := filepath.Join(dir, name)
	if out, err := exec.Command("go", "build", "-o", bin, pkg).CombinedOutput(); err != nil {
		b.Fatalf("go build %s: %v\n%s", pkg, err, out)
	}
	return bin
}

// postFunc sends one POST and checks for 200.
func postFunc(c *http.Client, url, key string, body []byte) func() error {
	return func() error {
		req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
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
			return fmt.Errorf("POST %s: status %d", url, res.StatusCode)
		}
		return nil
	}
}

// loadRound sends n requests from processClients goroutines.
func loadRound(n int, do func() error) error {
	work := make(chan struct{}, n)
	for range n {
		work <- struct{}{}
	}
	close(work)
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
	)
	for range processClients {
		wg.Go(func() {
			for range work {
				if err := do(); err != nil {
					mu.Lock()
					if first == nil {
						first = err
					}
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	return first
}
