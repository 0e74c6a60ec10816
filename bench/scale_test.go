package bench

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/persist"
	"github.com/floe/floe/persist/pgtest"
)

// BenchmarkScale is issue 27's scale benchmark: one catalog grown stage by
// stage (default 1,000 and 100,000 tables; FLOE_SCALE_SIZES=1000,100000,1000000
// for the million) through the catalog's own API in this process, and at
// each stage a fresh `floe serve` on it, measured over loopback by one
// sequential client: start-up, Lance DescribeTable (a hot set of 1,000
// tables spread over the catalog, and any table at random), Lance
// ListTables first page of 1,000 and a page of 100 in the middle of the
// grown namespace, Iceberg LoadTable, the console's namespace page (first
// and ?after= the middle) and buckets page, RSS after the requests, and
// the catalog's size on disk; each as p50 and its ratio to the first stage.
// Then the same at 100,000 tables with the catalog on PostgreSQL and the
// ratio to SQLite (FLOE_SCALE_POSTGRES=0 leaves it out; =10000 with
// FLOE_SCALE_SIZES=1000,10000 compares at 10,000 in a few minutes).
//
//	go test -run '^$' -bench Scale -benchtime 1x -timeout 2h ./bench/
func BenchmarkScale(b *testing.B) {
	sizes := scaleSizes(b)
	dir := b.TempDir()
	bin := os.Getenv("FLOE_BENCH_FLOE")
	if bin == "" {
		bin = goBuild(b, dir, "floe", "../cmd/floe")
	}
	sq := newScaleRun(b, bin, filepath.Join(dir, "sqlite"), "")
	var stages []scaleStage
	for _, n := range sizes {
		stages = append(stages, sq.stage(b, n))
	}
	for i, s := range stages {
		b.Logf("SQLite, %s", s.report(stages[0]))
		if i == len(stages)-1 {
			for _, f := range scaleFigures {
				b.ReportMetric(s.p50[f].Seconds()*1000/max(stages[0].p50[f].Seconds()*1000, 1e-9), f+"-ratio")
			}
		}
	}
	if pgAt := scalePostgresAt(b); slices.Contains(sizes, pgAt) && (pgtest.Available() || os.Getenv("CI") != "") {
		pg := newScaleRun(b, bin, filepath.Join(dir, "postgres"), pgtest.DSN(b))
		var base scaleStage
		for i, n := range sizes {
			if n == pgAt {
				base = stages[i]
			}
		}
		p := pg.stage(b, pgAt)
		b.Logf("PostgreSQL, %s", p.report(base))
	}
	for b.Loop() { // the stages are timed by hand
	}
}

// scaleFigures are the request figures, in the order reported.
var scaleFigures = []string{"describe_hot", "describe_any", "list_first_1000", "list_deep_100", "load_table",
	"console_ns_first", "console_ns_deep", "console_buckets"}

func scaleSizes(b *testing.B) []int {
	raw := os.Getenv("FLOE_SCALE_SIZES")
	if raw == "" {
		return []int{1_000, 100_000}
	}
	var sizes []int
	for f := range strings.SplitSeq(raw, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1_000 {
			b.Fatalf("FLOE_SCALE_SIZES: %q is not a table count of 1000 or more", f)
		}
		sizes = append(sizes, n)
	}
	return sizes
}

// scalePostgresAt is the stage repeated on PostgreSQL: 100,000 tables
// unless FLOE_SCALE_POSTGRES names another of the sizes (0: none).
func scalePostgresAt(b *testing.B) int {
	raw := os.Getenv("FLOE_SCALE_POSTGRES")
	if raw == "" {
		return 100_000
	}
	n, err := strconv.Atoi(raw)
	if err != nil || n < 0 {
		b.Fatalf("FLOE_SCALE_POSTGRES: %q is not a table count (0 leaves PostgreSQL out)", raw)
	}
	return n
}

// scaleStage is what one stage measured.
type scaleStage struct {
	tables          int
	seeded, startup time.Duration
	p50             map[string]time.Duration
	rssMB, hwmMB    float64
	catalogMB       float64
}

func (s scaleStage) report(base scaleStage) string {
	var w strings.Builder
	fmt.Fprintf(&w, "%d tables (seeded in %s): start-up %s (%.2f), RSS %.0f MB (%.2f; peak %.0f MB), catalog %.0f MB",
		s.tables, s.seeded.Round(time.Second), s.startup.Round(time.Millisecond), ratio(s.startup, base.startup),
		s.rssMB, s.rssMB/base.rssMB, s.hwmMB, s.catalogMB)
	for _, f := range scaleFigures {
		fmt.Fprintf(&w, "; %s p50 %.3f ms (%.2f)", f, s.p50[f].Seconds()*1000, ratio(s.p50[f], base.p50[f]))
	}
	return w.String()
}

func ratio(a, b time.Duration) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// scaleRun is one catalog and the floe serve started on it at each stage.
type scaleRun struct {
	bin, key string
	seed     *seeder
	started  bool // the probe tables exist
}

func newScaleRun(b *testing.B, bin, data, dsn string) *scaleRun {
	b.Helper()
	if err := os.MkdirAll(data, 0o755); err != nil {
		b.Fatal(err)
	}
	args := []string{"--data", data}
	if dsn != "" {
		args = append(args, "--catalog", dsn)
	} else {
		dsn = filepath.Join(data, "catalog.db")
	}
	if out, err := exec.Command(bin, append([]string{"init"}, args...)...).CombinedOutput(); err != nil {
		b.Fatalf("floe init: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, append([]string{"token", "create", "--role", "readwrite"}, args...)...).Output()
	if err != nil {
		b.Fatalf("floe token create: %v", err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	return &scaleRun{bin: bin, key: lines[len(lines)-1], seed: &seeder{data: data, dsn: dsn}}
}

// freeAddr is a loopback address nothing listens on (the port given back).
func freeAddr(b *testing.B) string {
	b.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// stage grows the catalog to n tables, starts floe serve, measures and
// stops it.
func (r *scaleRun) stage(b *testing.B, n int) scaleStage {
	b.Helper()
	before := r.seed.took
	r.seed.grow(b, n)
	r.seed.settle(b)
	st := scaleStage{tables: r.seed.total(), seeded: r.seed.took - before, p50: map[string]time.Duration{}}

	srv := serveOn(b, r.bin, r.seed.data, r.seed.dsn, fmt.Sprintf("serve-%d.log", n))
	defer srv.stop()
	console, lance, ice := srv.console, srv.lance, srv.ice
	client := &http.Client{Timeout: time.Minute}
	if !r.started {
		r.createProbes(b, client, ice)
		r.started = true
	}
	st.startup = srv.startup
	r.measure(b, &st, client, console, lance, ice)
	st.rssMB, st.hwmMB = procMem(b, srv.cmd.Process.Pid)
	st.catalogMB = r.catalogMB(b)
	return st
}

// served is a floe serve the benchmark started, with the console, Lance
// REST and Iceberg REST on loopback ports of their own.
type served struct {
	cmd                 *exec.Cmd
	console, lance, ice string
	startup             time.Duration // exec until all three answered
	stop                func()
}

// serveOn starts floe serve on a data directory (and the catalog dsn, when
// it is not the data directory's SQLite file), its log in a file there, and
// waits until the console, the Lance REST and the Iceberg REST all answer
// (polled every 2 ms: the start-up figure's resolution).
func serveOn(b *testing.B, bin, data, dsn, logName string) *served {
	b.Helper()
	s := &served{console: freeAddr(b), lance: freeAddr(b), ice: freeAddr(b)}
	args := []string{"serve", "--data", data, "--http", s.console, "--grpc", "127.0.0.1:0",
		"--lance", s.lance, "--iceberg", s.ice, "--s3tables", ""}
	if dsn != "" && !strings.HasSuffix(dsn, ".db") {
		args = append(args, "--catalog", dsn)
	}
	logFile, err := os.Create(filepath.Join(data, logName))
	if err != nil {
		b.Fatal(err)
	}
	s.cmd = exec.Command(bin, args...)
	s.cmd.Env = append(os.Environ(), "FLOE_ADMIN_PASSWORD=bench-admin-password")
	s.cmd.Stdout, s.cmd.Stderr = io.Discard, logFile
	t0 := time.Now()
	if err := s.cmd.Start(); err != nil {
		b.Fatal(err)
	}
	var once bool
	s.stop = func() {
		if !once {
			once = true
			s.cmd.Process.Signal(syscall.SIGTERM)
			s.cmd.Wait()
			logFile.Close()
		}
	}
	b.Cleanup(s.stop)
	client := &http.Client{Timeout: time.Minute}
	for _, u := range []string{"http://" + s.console + "/readyz", "http://" + s.lance + "/v1/namespace/b00/exists", "http://" + s.ice + "/v1/config"} {
		for {
			if res, err := client.Get(u); err == nil {
				io.Copy(io.Discard, res.Body)
				res.Body.Close()
				if res.StatusCode < 500 {
					break
				}
			}
			if time.Since(t0) > 5*time.Minute {
				raw, _ := os.ReadFile(logFile.Name())
				b.Fatalf("floe serve did not start within 5 minutes:\n%s", raw)
			}
			time.Sleep(2 * time.Millisecond)
		}
	}
	s.startup = time.Since(t0)
	return s
}

// createProbes makes the Iceberg tables LoadTable reads, through the
// Iceberg REST, so their metadata is what an engine's create leaves.
func (r *scaleRun) createProbes(b *testing.B, c *http.Client, ice string) {
	b.Helper()
	for i := range scaleProbe {
		body := fmt.Sprintf(`{"name":"p%04d","schema":{"type":"struct","fields":[{"id":1,"name":"id","type":"long","required":true}]}}`, i)
		r.expect(b, c, http.MethodPost, "http://"+ice+"/v1/b01/namespaces/probe/tables", body, "Bearer")
	}
}

// expect sends one API request with the run's key and fails unless 200.
func (r *scaleRun) expect(b *testing.B, c *http.Client, method, u, body, scheme string) {
	b.Helper()
	if err := r.do(c, method, u, body, scheme); err != nil {
		b.Fatal(err)
	}
}

func (r *scaleRun) do(c *http.Client, method, u, body, scheme string) error {
	req, err := http.NewRequest(method, u, strings.NewReader(body))
	if err != nil {
		return err
	}
	if scheme == "Bearer" {
		req.Header.Set("Authorization", "Bearer "+r.key)
	} else if scheme != "" {
		req.Header.Set("x-api-key", r.key)
	}
	res, err := c.Do(req)
	if err != nil {
		return err
	}
	raw, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("%s %s: %d %s", method, u, res.StatusCode, bytes.TrimSpace(raw[:min(len(raw), 300)]))
	}
	return nil
}

// scaleRequests per figure, after scaleWarm unmeasured ones (the hot
// describes after one pass over the hot set).
const (
	scaleRequests = 1_000
	scaleWarm     = 100
)

func (r *scaleRun) measure(b *testing.B, st *scaleStage, c *http.Client, console, lance, ice string) {
	b.Helper()
	web := floeLogin(b, &http.Client{Jar: newJar(), Timeout: time.Minute}, console)

	rng := rand.New(rand.NewPCG(27, uint64(st.tables)))
	all := r.seed.lance
	hot := make([]catalog.TableRef, 1_000)
	for i := range hot { // spread evenly over every Lance table
		hot[i] = all[i*len(all)/len(hot)]
	}
	describe := func(t catalog.TableRef) func() error {
		id := t.Bucket + "$" + strings.Join(t.Namespace, "$") + "$" + t.Name
		return func() error {
			return r.do(c, http.MethodPost, "http://"+lance+"/v1/table/"+id+"/describe?delimiter=%24",
				`{"id":["`+t.Bucket+`","`+strings.Join(t.Namespace, `","`)+`","`+t.Name+`"]}`, "x-api-key")
		}
	}
	mid := wideName(r.seed.wide / 2)
	i := 0
	figures := map[string]func() error{
		"describe_hot": func() error { i++; return describe(hot[i%len(hot)])() },
		"describe_any": func() error { return describe(all[rng.IntN(len(all))])() },
		"list_first_1000": func() error {
			return r.do(c, http.MethodGet, "http://"+lance+"/v1/namespace/b00$wide/table/list?delimiter=%24&limit=1000", "", "x-api-key")
		},
		"list_deep_100": func() error {
			return r.do(c, http.MethodGet, "http://"+lance+"/v1/namespace/b00$wide/table/list?delimiter=%24&limit=100&page_token="+
				url.QueryEscape(catalog.PageToken(mid)), "", "x-api-key")
		},
		"load_table": func() error {
			i++
			return r.do(c, http.MethodGet, fmt.Sprintf("http://%s/v1/b01/namespaces/probe/tables/p%04d", ice, i%scaleProbe), "", "Bearer")
		},
		"console_ns_first": func() error {
			return r.do(web, http.MethodGet, "http://"+console+"/buckets/b00/namespaces/wide", "", "")
		},
		"console_ns_deep": func() error {
			return r.do(web, http.MethodGet, "http://"+console+"/buckets/b00/namespaces/wide?after="+mid, "", "")
		},
		"console_buckets": func() error { return r.do(web, http.MethodGet, "http://"+console+"/buckets", "", "") },
	}
	for _, name := range scaleFigures {
		do := figures[name]
		warm := scaleWarm
		if name == "describe_hot" {
			warm = len(hot) // the hot set is in the table cache before it is timed
		}
		for range warm {
			if err := do(); err != nil {
				b.Fatalf("%s: %v", name, err)
			}
		}
		times := make([]time.Duration, scaleRequests)
		for k := range times {
			t0 := time.Now()
			if err := do(); err != nil {
				b.Fatalf("%s: %v", name, err)
			}
			times[k] = time.Since(t0)
		}
		slices.Sort(times)
		st.p50[name] = times[len(times)/2]
	}
}

// procMem is a process's resident set and its peak, in MB.
func procMem(b *testing.B, pid int) (rss, hwm float64) {
	b.Helper()
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		b.Fatal(err)
	}
	for line := range strings.SplitSeq(string(raw), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		kb, _ := strconv.ParseFloat(f[1], 64)
		switch f[0] {
		case "VmRSS:":
			rss = kb / 1024
		case "VmHWM:":
			hwm = kb / 1024
		}
	}
	return rss, hwm
}

// catalogMB is the catalog database's size: the SQLite file and its WAL,
// or PostgreSQL's pg_database_size.
func (r *scaleRun) catalogMB(b *testing.B) float64 {
	b.Helper()
	if !strings.HasSuffix(r.seed.dsn, ".db") {
		db, err := persist.Open(b.Context(), persist.Options{Path: r.seed.dsn})
		if err != nil {
			b.Fatal(err)
		}
		defer db.Close()
		var size int64
		if err := db.QueryRowContext(b.Context(), `SELECT pg_database_size(current_database())`).Scan(&size); err != nil {
			b.Fatal(err)
		}
		return float64(size) / (1 << 20)
	}
	var size int64
	for _, suffix := range []string{"", "-wal"} {
		if fi, err := os.Stat(r.seed.dsn + suffix); err == nil {
			size += fi.Size()
		}
	}
	return float64(size) / (1 << 20)
}
