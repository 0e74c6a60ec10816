package main

import (
	"bytes"
	"context"
	"encoding/json"
	"html"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/floe/floe/plugin"
	"github.com/floe/floe/plugin/pluginpb"
	"github.com/floe/floe/plugin/plugintest"
)

var (
	floeBinOnce sync.Once
	floeBin     string
	floeBinErr  error
)

// floeBinary builds ./cmd/floe once per test binary: a test that kills floe
// with SIGKILL needs it in a process of its own.
func floeBinary(t *testing.T) string {
	t.Helper()
	floeBinOnce.Do(func() {
		dir, err := os.MkdirTemp("", "floe-bin-")
		if err != nil {
			floeBinErr = err
			return
		}
		floeBin = filepath.Join(dir, "floe")
		cmd := exec.Command("go", "build", "-o", floeBin, ".")
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil {
			floeBinErr = err
			floeBin = out.String()
		}
	})
	if floeBinErr != nil {
		t.Fatalf("go build floe: %v\n%s", floeBinErr, floeBin)
	}
	return floeBin
}

// floeProc is one `floe serve` process.
type floeProc struct {
	cmd  *exec.Cmd
	done chan struct{}
	log  *lockedBuffer
}

func startFloeProc(t *testing.T, bin string, args ...string) *floeProc {
	t.Helper()
	p := &floeProc{cmd: exec.Command(bin, args...), done: make(chan struct{}), log: &lockedBuffer{}}
	p.cmd.Env = append(os.Environ(), "FLOE_ADMIN_PASSWORD=hardening-9-admin")
	p.cmd.Stdout, p.cmd.Stderr = p.log, p.log
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { _ = p.cmd.Wait(); close(p.done) }()
	t.Cleanup(func() {
		p.kill()
		if t.Failed() {
			t.Logf("floe log:\n%s", p.log.String())
		}
	})
	return p
}

// kill ends the process with SIGKILL (kill -9: nothing is shut down).
func (p *floeProc) kill() {
	_ = p.cmd.Process.Kill()
	<-p.done
}

func waitReady(t *testing.T, p *floeProc, console string) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		select {
		case <-p.done:
			t.Fatalf("floe exited before it was ready:\n%s", p.log.String())
		default:
		}
		if resp, err := http.Get(console + "/readyz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("floe not ready within a minute:\n%s", p.log.String())
		}
		time.Sleep(50 * time.Millisecond) // polling interval
	}
}

// waitStartedProc reads the addresses a floe process bound from its
// "floe started" line.
func waitStartedProc(t *testing.T, p *floeProc) map[string]string {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		if a := startedAddrs(p.log.String()); a != nil {
			return a
		}
		select {
		case <-p.done:
			t.Fatalf("floe exited before it started:\n%s", p.log.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("floe did not start within a minute:\n%s", p.log.String())
		}
		time.Sleep(20 * time.Millisecond) // polling interval
	}
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}

// Hardening item 9: floe is killed with SIGKILL while a task's job runs on
// a worker, and starts again with no worker connected. Within the restart
// grace (30 s) the job ends with a sentence instead of showing "running"
// (or, re-queued, "pending" while its task stayed "running"), and the task
// API and the console say the same.
func TestHardening9KilledFloeEndsRunningTaskWithinGrace(t *testing.T) {
	bin := floeBinary(t)
	data := t.TempDir()
	if out, code := run(t, "init", "--data", data); code != 0 {
		t.Fatalf("init: %s", out)
	}
	out, code := run(t, "token", "create", "--role", "readwrite", "--data", data)
	if code != 0 {
		t.Fatalf("token create: %s", out)
	}
	key := lastLine(out)
	out, code = run(t, "worker-token", "create", "--data", data)
	if code != 0 {
		t.Fatalf("worker-token create: %s", out)
	}
	workerToken := lastLine(out)
	// The first start binds port 0 and the restart takes the same addresses
	// again (a worker and clients find floe where it was).
	serveArgs := func(console, lance, grpcAddr string) []string {
		return []string{"serve", "--log-json", "--data", data, "--http", console, "--lance", lance, "--grpc", grpcAddr, "--iceberg", "", "--s3tables", ""}
	}
	var consoleURL, lanceURL, grpcAddr string

	api := func(method, path, host, body string) (int, string) {
		t.Helper()
		req, err := http.NewRequest(method, lanceURL+path, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		if host != "" {
			req.Host = host
		}
		req.Header.Set("x-api-key", key)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}

	first := startFloeProc(t, bin, serveArgs("127.0.0.1:0", "127.0.0.1:0", "127.0.0.1:0")...)
	addrs := waitStartedProc(t, first)
	consoleURL, lanceURL, grpcAddr = "http://"+addrs["http"], "http://"+addrs["lance"], addrs["grpc"]
	waitReady(t, first, consoleURL)
	for _, p := range []string{"/v1/namespace/hb9/create", "/v1/namespace/hb9$ns/create", "/v1/table/hb9$ns$t/declare"} {
		if st, body := api("POST", p, "", `{}`); st != http.StatusOK {
			t.Fatalf("%s: %d %s", p, st, body)
		}
	}

	// A worker runs the task's compaction and never finishes it.
	conn, err := grpc.NewClient(grpcAddr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	w, err := plugintest.Connect(ctx, conn, plugintest.Config{Token: workerToken, WorkerID: "w9", Version: "test",
		Capabilities: []*pluginpb.Capability{{JobType: "lance_compact", Lane: "lance", CanDetect: true, CanExecute: true,
			MaxDetectSlots: 1, MaxExecuteSlots: 1, DescriptorVersion: "v1", DisplayName: "Compact"}},
		Descriptors: map[string]*pluginpb.Descriptor{"lance_compact": {JobType: "lance_compact", DescriptorVersion: "v1", DisplayName: "Compact",
			// Retries left: a restart-settled job used to be re-queued.
			Runtime: &pluginpb.RuntimeDefaults{DetectionIntervalSeconds: 3600, ExecutionTimeoutSeconds: 3600, MaxJobsPerDetection: 1,
				GlobalConcurrency: 1, PerWorkerConcurrency: 1, Retries: 2, RetryBackoffSeconds: 1}}},
		OnExecute: func(ctx context.Context, job *pluginpb.JobSpec, progress func(*pluginpb.Progress)) *pluginpb.Completed {
			progress(&pluginpb.Progress{Percent: 10, Stage: "compacting"})
			<-ctx.Done()
			return nil
		},
		HeartbeatEvery: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	// The job type must be described before the task, so its job takes the
	// job type's retries.
	admin := consoleAdmin(t, consoleURL)
	for deadline := time.Now().Add(30 * time.Second); !bytes.Contains(consoleGet(t, admin, consoleURL+"/job-types/lance_compact"), []byte(`data-testid="settings-form"`)); {
		if time.Now().After(deadline) {
			t.Fatal("the worker's job type was never described")
		}
		time.Sleep(50 * time.Millisecond) // polling interval
	}
	st, body := api("POST", "/lance/oss/v1/table/ns$t/compact", "hb9.localhost", `{}`)
	if st != http.StatusOK {
		t.Fatalf("submit: %d %s", st, body)
	}
	var sub struct {
		TaskID string `json:"task_id"`
	}
	if err := json.Unmarshal([]byte(body), &sub); err != nil || sub.TaskID == "" {
		t.Fatalf("submit answer %s: %v", body, err)
	}
	type taskInfo struct {
		Status string `json:"status"`
		Error  *struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	task := func() taskInfo {
		st, body := api("GET", "/lance/oss/v1/table/ns$t/tasks/"+sub.TaskID, "hb9.localhost", "")
		var out struct {
			TaskInfo taskInfo `json:"task_info"`
		}
		if st != http.StatusOK || json.Unmarshal([]byte(body), &out) != nil {
			t.Fatalf("get task: %d %s", st, body)
		}
		return out.TaskInfo
	}
	jobID := ""
	for deadline := time.Now().Add(60 * time.Second); jobID == "" || task().Status != "running"; {
		for _, m := range w.Received() {
			if e := m.GetExecute(); e != nil {
				jobID = e.GetJob().GetJobId()
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the task never ran on the worker: %+v", task())
		}
		time.Sleep(50 * time.Millisecond) // polling interval
	}

	// kill -9, the worker gone with it, and a start with no worker.
	first.kill()
	w.Close()
	restarted := time.Now()
	second := startFloeProc(t, bin, serveArgs(addrs["http"], addrs["lance"], grpcAddr)...)
	waitReady(t, second, consoleURL)

	// Within the grace (and a few scheduler ticks): ended, with a sentence.
	bound := 30*time.Second + 10*time.Second
	var got taskInfo
	for got = task(); got.Status == "submitted" || got.Status == "running"; got = task() {
		if time.Since(restarted) > bound {
			t.Fatalf("%s after the restart with no worker, the task is still %q", bound.Round(time.Second), got.Status)
		}
		time.Sleep(200 * time.Millisecond) // polling interval
	}
	t.Logf("task %s %s after the restart", got.Status, time.Since(restarted).Round(100*time.Millisecond))
	if got.Status != "failed" || got.Error == nil || !strings.Contains(got.Error.Message, "submit the task again") {
		t.Fatalf("task after the restart: %+v %+v; want failed with a sentence", got, got.Error)
	}

	// The console says the same of the job.
	page := consoleGet(t, consoleAdmin(t, consoleURL), consoleURL+"/jobs/"+jobID)
	state := regexp.MustCompile(`data-testid="job-progress"[^>]*data-state="([a-z]+)"`).FindSubmatch(page)
	if state == nil || string(state[1]) != "failed" {
		t.Fatalf("console job page: state %q", state)
	}
	if !bytes.Contains(page, []byte(html.EscapeString(plugin.JobRestartedError))) {
		t.Errorf("the console's job page does not show the restart sentence")
	}
}

// consoleAdmin signs the admin in and returns a client holding the session.
func consoleAdmin(t *testing.T, consoleURL string) *http.Client {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	client := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.PostForm(consoleURL+"/login", url.Values{"username": {"admin"}, "password": {"hardening-9-admin"}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("console sign-in: %d", resp.StatusCode)
	}
	return client
}

func consoleGet(t *testing.T, client *http.Client, u string) []byte {
	t.Helper()
	resp, err := client.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d", u, resp.StatusCode)
	}
	return b
}
