package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// maintenanceJourneyTimeout covers building floe, the bundled worker
// seeding its demo table (12 appends) and a real compaction.
const maintenanceJourneyTimeout = 4 * time.Minute

// startedAddrs waits until the floe serve logging JSON lines (--log-json)
// to logPath says "floe started" and returns the addresses it bound, by
// surface (http, grpc, lance, iceberg, s3tables). floe binds 127.0.0.1:0
// itself, so no port is picked free beforehand and lost to someone else.
func startedAddrs(t *testing.T, logPath string) map[string]string {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); ; {
		b, _ := os.ReadFile(logPath)
		for _, line := range strings.Split(string(b), "\n") {
			var l map[string]any
			if json.Unmarshal([]byte(line), &l) != nil || l["msg"] != "floe started" {
				continue
			}
			str := func(k string) string { v, _ := l[k].(string); return v }
			return map[string]string{"http": strings.TrimPrefix(str("console"), "http://"), "grpc": str("grpc"),
				"lance": str("lance"), "iceberg": str("iceberg"), "s3tables": str("s3tables")}
		}
		if time.Now().After(deadline) {
			t.Fatalf("floe did not start within a minute:\n%s", b)
		}
		time.Sleep(100 * time.Millisecond) // polling interval, not an assertion
	}
}

// journeyFragments is the seeded table's fragment count: below the Lance
// worker's default detection threshold (min_fragments 8), so the scheduler
// does not compact the table on its own before the journey presses the button.
const journeyFragments = 7

// floeProc is a real floe serve, with the real Lance worker unless asked
// otherwise.
type floeProc struct {
	url     string
	lance   string // http://host:port of floe's Lance REST
	iceberg string // http://host:port of floe's Iceberg REST ("" when not served)
	apiKey  string // readwrite
	node    string
}

// floeOptions: iceberg serves the Iceberg REST too; seed runs against the
// started server before the worker starts (nil: the journey table
// jrny/docs/items); noWorker starts no Lance worker.
type floeOptions struct {
	iceberg  bool
	seed     func(p floeProc)
	noWorker bool
}

// startFloeWithWorker builds and runs the real floe, seeds a Lance table
// through its Lance REST (node e2e/testdata/seed.mjs, one fragment per
// append), then starts the real Lance worker (node workers/lance/main.mjs),
// which observes the table when it connects.
func startFloeWithWorker(t *testing.T) floeProc {
	t.Helper()
	return startFloe(t, floeOptions{})
}

// seedTable writes bucket/ns/name through floe's Lance REST with the real
// LanceDB client: appends of 200 rows, one fragment (and one version) each.
func seedTable(t *testing.T, p floeProc, bucket, ns, name string, appends int) {
	t.Helper()
	c := exec.Command(p.node, "e2e/testdata/seed.mjs", p.lance, p.apiKey, bucket, ns, name, strconv.Itoa(appends))
	c.Dir = ".."
	if out, err := c.CombinedOutput(); err != nil {
		t.Fatalf("seed %s/%s/%s: %v\n%s", bucket, ns, name, err, out)
	}
}

// startFloe builds and runs the real floe as o says.
func startFloe(t *testing.T, o floeOptions) floeProc {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("node is not on PATH and CI=true: the Lance worker is a Node program")
		}
		t.Skip("skipping: node is not on PATH (the Lance worker is a Node program)")
	}
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	bin := filepath.Join(dir, "floe")
	run := func(name string, args ...string) string {
		t.Helper()
		c := exec.Command(name, args...)
		c.Dir = ".."
		out, err := c.Output()
		if err != nil {
			var stderr []byte
			if ee, ok := err.(*exec.ExitError); ok {
				stderr = ee.Stderr
			}
			t.Fatalf("%s %v: %v\n%s%s", name, args, err, out, stderr)
		}
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		return strings.TrimSpace(lines[len(lines)-1])
	}
	run("go", "build", "-o", bin, "./cmd/floe")
	run(bin, "init", "--data", data)
	apiKey := run(bin, "token", "create", "--role", "readwrite", "--data", data)
	workerToken := run(bin, "worker-token", "create", "--data", data)
	logFile, err := os.Create(filepath.Join(dir, "floe.log"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			b, _ := os.ReadFile(logFile.Name())
			if len(b) > 8000 {
				b = b[len(b)-8000:]
			}
			t.Logf("floe and worker log (tail):\n%s", b)
		}
	})
	start := func(name string, env []string, args ...string) {
		c := exec.Command(name, args...)
		c.Dir = ".."
		c.Env = append(os.Environ(), env...)
		c.Stdout, c.Stderr = logFile, logFile
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			_ = c.Process.Signal(os.Interrupt)
			done := make(chan struct{})
			go func() { _ = c.Wait(); close(done) }()
			select {
			case <-done:
			case <-time.After(20 * time.Second):
				_ = c.Process.Kill()
				<-done
			}
		})
	}
	iceberg := ""
	if o.iceberg {
		iceberg = "127.0.0.1:0"
	}
	start(bin, []string{"FLOE_ADMIN_PASSWORD=" + adminPassword}, "serve", "--data", data, "--log-json", "--http", "127.0.0.1:0",
		"--grpc", "127.0.0.1:0", "--lance", "127.0.0.1:0", "--iceberg", iceberg, "--s3tables", "")
	addrs := startedAddrs(t, logFile.Name())
	grpcAddr, lanceAddr := addrs["grpc"], addrs["lance"]
	url := "http://" + addrs["http"]
	for deadline := time.Now().Add(time.Minute); ; {
		resp, err := http.Get(url + "/healthz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("floe did not come up: %v", err)
		}
		time.Sleep(200 * time.Millisecond)
	}
	p := floeProc{url: url, lance: "http://" + lanceAddr, apiKey: apiKey, node: node}
	if o.iceberg {
		p.iceberg = "http://" + addrs["iceberg"]
	}
	if o.seed != nil {
		o.seed(p)
	} else {
		seedTable(t, p, "jrny", "docs", "items", journeyFragments)
	}
	if !o.noWorker {
		start(node, []string{"FLOE_GRPC=" + grpcAddr, "FLOE_WORKER_TOKEN=" + workerToken, "FLOE_WORKER_ID=e2e-lance", "FLOE_EXIT_ON_SHUTDOWN=1"},
			"workers/lance/main.mjs")
	}
	return p
}

// leadingInt reads the number a stats cell starts with ("12 (12 small)").
func leadingInt(s string) (int, error) {
	f := strings.Fields(strings.ReplaceAll(s, ",", ""))
	if len(f) == 0 {
		return 0, fmt.Errorf("empty")
	}
	return strconv.Atoi(f[0])
}

// TestJourneyCompactNow opens the demo Lance table, presses Compact now,
// watches the progress reach succeeded without a page reload, and sees the
// fragment count drop once the worker's new observation shows.
func TestJourneyCompactNow(t *testing.T) {
	if testing.Short() {
		t.Skip("browser journey skipped in -short mode")
	}
	execPath := chromium(t)
	url := startFloeWithWorker(t).url
	ctx, logs := browserContext(t, execPath)
	ctx, cancel := context.WithTimeout(ctx, maintenanceJourneyTimeout)
	defer cancel()
	step := func(name string, actions ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(ctx, actions...); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	table := url + "/buckets/jrny/namespaces/docs/tables/items"
	step("sign in", signIn(url)...)
	// The worker observes the table when it connects; reload until it shows.
	before := 0
	for deadline := time.Now().Add(2 * time.Minute); ; {
		var txt string
		_ = chromedp.Do(ctx, chromedp.Navigate(table))
		err := chromedp.Do(ctx, chromedp.WaitVisible(tid("table-name")))
		if err == nil {
			nodes, _ := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('[data-testid="obs-fragments"]').length`))
			if nodes > 0 {
				txt, _ = chromedp.Run(ctx, chromedp.Text(tid("obs-fragments")))
				if n, err := leadingInt(txt); err == nil && n >= journeyFragments {
					before = n
					break
				}
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the table never showed %d fragments (last %q)", journeyFragments, txt)
		}
		time.Sleep(time.Second)
	}
	step("mark the page so a reload would show",
		chromedp.Evaluate[chromedp.Void](`window.floeNoReload = "kept"; undefined`),
		chromedp.WaitVisible(tid("compact-now-button")),
	)
	step("press Compact now and watch it finish live",
		chromedp.Click(tid("compact-now-button")),
		chromedp.WaitVisible(chromedp.CSS(`#compact-now [data-testid="job-progress"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#compact-now [data-testid="job-progress"][data-state="succeeded"]`)),
	)
	after := before
	for deadline := time.Now().Add(time.Minute); after >= before; {
		if txt, err := chromedp.Run(ctx, chromedp.Text(tid("obs-fragments"))); err == nil {
			if n, err := leadingInt(txt); err == nil {
				after = n
			}
		}
		if after < before {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("fragments still %d after compaction (before %d)", after, before)
		}
		time.Sleep(300 * time.Millisecond)
	}
	marker, err := chromedp.Run(ctx, chromedp.Evaluate[string](`window.floeNoReload || ""`))
	if err != nil {
		t.Fatal(err)
	}
	if marker != "kept" {
		t.Fatalf("the page reloaded (marker %q)", marker)
	}
	for _, l := range logs.all() {
		if strings.Contains(l, "Content Security Policy") || strings.Contains(l, "exception") || strings.HasPrefix(l, "console.error") || strings.HasPrefix(l, "error") {
			t.Errorf("browser console: %s", l)
		}
	}
	t.Logf("fragments %d → %d", before, after)
	shots := os.Getenv("FLOE_E2E_SHOTS") // a directory: save what the journey saw, for a look
	if shots == "" {
		return
	}
	jobHref, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector('[data-testid="compact-now-job"]').getAttribute("href")`))
	for _, page := range []struct{ name, url, wait string }{
		{"table", table, "compact-now"},
		{"job", url + jobHref, "job-detail"},
		{"maintenance", table + "/maintenance", "task-history"},
		{"jobs", url + "/jobs", "jobs-table"},
	} {
		step("screenshot "+page.name, chromedp.Navigate(page.url), chromedp.WaitVisible(tid(page.wait)))
		png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
		if err != nil {
			t.Fatal(err)
		}
		_ = os.WriteFile(filepath.Join(shots, page.name+".png"), png, 0o644)
	}
}
