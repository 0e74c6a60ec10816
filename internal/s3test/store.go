package s3test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
)

const (
	// readyTimeout bounds one start: a cold `weed mini` on a loaded 2-core
	// machine takes a few seconds; a minute means something is wrong.
	readyTimeout = 90 * time.Second
	// stopTimeout is how long a stop waits for a clean exit before killing.
	stopTimeout = 15 * time.Second
	// logTail is how much of weed's log a start failure quotes.
	logTail = 4 << 10

	// Region is the region the store's clients sign for; weed accepts any.
	Region = "us-east-1"
)

// Store is one running `weed mini` on loopback. Its S3 endpoint and the
// keys of its one admin identity are what a client needs.
type Store struct {
	Endpoint  string // http://127.0.0.1:PORT
	AccessKey string
	SecretKey string
	// RoleARN is the role floe may assume through the store's STS to vend
	// scoped keys; empty unless the store was started by NewWithSTS.
	RoleARN string
	// Admin is weed's admin UI (http://127.0.0.1:PORT, no password, so no
	// login); empty unless the store was started by NewWithAdminUI.
	Admin string

	dir  string
	bin  string
	args []string

	mu      sync.Mutex
	cmd     *exec.Cmd
	exited  chan struct{} // closed when cmd's Wait returns
	buckets int
}

// portFlags name the port flags of weed mini's services; every service and
// its gRPC twin get a port of their own so parallel test packages never
// meet. They cannot be port 0, as floe's own servers are: weed mini's
// services find each other by these numbers, and a restarted store must
// come back on the same S3 port. So start reserves them together, and picks
// again when weed finds one taken in the moment between (startAttempts).
var portFlags = []string{
	"master.port", "master.port.grpc",
	"volume.port", "volume.port.grpc",
	"filer.port", "filer.port.grpc",
	"s3.port", "s3.port.grpc",
	"admin.port", "admin.port.grpc",
}

// start launches weed in dir and waits until its S3 endpoint answers a
// signed request. dir must exist and is the store's only state. withSTS
// also hands weed an advanced IAM file, which turns on its STS service
// with one role (see writeIAM); adminUI turns on weed's admin UI and
// also waits for it to answer.
func start(dir string, withSTS, adminUI bool) (*Store, error) {
	bin, err := weedPath()
	if err != nil {
		return nil, err
	}
	s := &Store{
		AccessKey: "floetestaccess",
		SecretKey: "floetestsecret" + strconv.Itoa(os.Getpid()),
		dir:       dir,
		bin:       bin,
	}
	cfg := filepath.Join(dir, "s3.json")
	if err := writeIdentities(cfg, s.AccessKey, s.SecretKey); err != nil {
		return nil, err
	}
	data := filepath.Join(dir, "data")
	if err := os.MkdirAll(data, 0o755); err != nil {
		return nil, err
	}
	s.args = []string{"mini",
		"-dir=" + data,
		"-ip=127.0.0.1", "-ip.bind=127.0.0.1",
		"-master.telemetry=false",
		"-s3.config=" + cfg,
		"-s3.port.iceberg=0", "-s3.port.lance=0",
		"-admin.ui=" + strconv.FormatBool(adminUI), "-admin.port.legacy=0",
		"-webdav=false",
	}
	if withSTS {
		iam := filepath.Join(dir, "iam.json")
		if err := writeIAM(iam, "floe-test"); err != nil {
			return nil, err
		}
		s.args = append(s.args, "-s3.iam.config="+iam)
		s.RoleARN = VendRoleARN
	}
	base := s.args
	for attempt := 1; ; attempt++ {
		ports, err := freePorts(len(portFlags))
		if err != nil {
			return nil, err
		}
		s.args = slices.Clone(base)
		for i, f := range portFlags {
			s.args = append(s.args, fmt.Sprintf("-%s=%d", f, ports[i]))
			if f == "s3.port" {
				s.Endpoint = fmt.Sprintf("http://127.0.0.1:%d", ports[i])
			}
			if f == "admin.port" && adminUI {
				s.Admin = fmt.Sprintf("http://127.0.0.1:%d", ports[i])
			}
		}
		err = s.Start()
		if err == nil {
			return s, nil
		}
		if attempt == startAttempts || !strings.Contains(err.Error(), "address already in use") {
			return nil, err
		}
	}
}

// startAttempts bounds the picks of fresh ports when weed finds one of
// them taken by another process between the pick and its bind.
const startAttempts = 3

// Start (re)starts a stopped store on the same directory and ports and
// waits until it serves S3 again. Tests use Stop and Start to play an
// outage.
func (s *Store) Start() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd != nil {
		return errors.New("s3test: store already running")
	}
	logf, err := os.OpenFile(filepath.Join(s.dir, "weed.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	cmd := exec.Command(s.bin, s.args...)
	cmd.Dir = s.dir
	// weed reads optional config files from $HOME/.seaweedfs; keep the
	// operator's out of the test store.
	cmd.Env = append(os.Environ(), "HOME="+s.dir)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = procAttr()
	if err := cmd.Start(); err != nil {
		logf.Close()
		return fmt.Errorf("s3test: start %s: %w", s.bin, err)
	}
	exited := make(chan struct{})
	go func() {
		cmd.Wait()
		logf.Close()
		close(exited)
	}()
	s.cmd, s.exited = cmd, exited
	if err := s.waitReady(exited); err != nil {
		s.stopLocked()
		return fmt.Errorf("%w\n--- weed log tail ---\n%s", err, s.logTail())
	}
	return nil
}

// waitReady polls a signed ListBuckets (and the admin UI's /health, when
// it is on) until it succeeds, the process dies or readyTimeout passes.
func (s *Store) waitReady(exited <-chan struct{}) error {
	ctx, cancel := context.WithTimeout(context.Background(), readyTimeout)
	defer cancel()
	c := s.Client()
	var last error
	for {
		rctx, rcancel := context.WithTimeout(ctx, 5*time.Second)
		_, err := c.ListBuckets(rctx, &s3.ListBucketsInput{})
		if err == nil && s.Admin != "" {
			err = adminHealthy(rctx, s.Admin)
		}
		rcancel()
		if err == nil {
			return nil
		}
		last = err
		select {
		case <-exited:
			return errors.New("s3test: weed exited during start")
		case <-ctx.Done():
			return fmt.Errorf("s3test: weed not ready after %s: %v", readyTimeout, last)
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// adminHealthy asks weed's admin UI for /health.
func adminHealthy(ctx context.Context, admin string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, admin+"/health", nil)
	if err != nil {
		return err
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("s3test: admin UI /health: %s", res.Status)
	}
	return nil
}

// Stop ends the store process (SIGTERM, then SIGKILL after stopTimeout).
// Its data stays, so Start brings the same objects back.
func (s *Store) Stop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stopLocked()
}

func (s *Store) stopLocked() {
	if s.cmd == nil {
		return
	}
	_ = signalStore(s.cmd.Process.Pid, false) // a frozen store hears no SIGTERM
	s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.exited:
	case <-time.After(stopTimeout):
		s.cmd.Process.Kill()
		<-s.exited
	}
	s.cmd, s.exited = nil, nil
}

// Client is an S3 client signed with the store's admin identity.
func (s *Store) Client() *s3.Client {
	return s3.New(s3.Options{
		BaseEndpoint: aws.String(s.Endpoint),
		Region:       Region,
		Credentials:  credentials.NewStaticCredentialsProvider(s.AccessKey, s.SecretKey, ""),
		UsePathStyle: true,
		// Fail fast: a test that stops the store wants the error, not
		// a minute of retries.
		RetryMaxAttempts: 1,
	})
}

// CreateBucket makes a fresh bucket with a name unique in this store.
func (s *Store) CreateBucket(ctx context.Context) (string, error) {
	s.mu.Lock()
	s.buckets++
	name := fmt.Sprintf("floe-test-%d", s.buckets)
	s.mu.Unlock()
	_, err := s.Client().CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(name)})
	if err != nil {
		return "", fmt.Errorf("s3test: create bucket %s: %w", name, err)
	}
	if err := s.writable(ctx, name); err != nil {
		return "", err
	}
	return name, nil
}

// writable waits until the bucket takes a write. A weed that answers
// ListBuckets may not have registered its volume server yet, and on a
// loaded machine the first PUT then waits for longer than a test's own
// start-up check allows; the probe object is deleted again, so the bucket
// is handed out empty.
func (s *Store) writable(ctx context.Context, bucket string) error {
	ctx, cancel := context.WithTimeout(ctx, readyTimeout)
	defer cancel()
	c := s.Client()
	key := aws.String(".s3test-write-probe")
	for {
		pctx, pcancel := context.WithTimeout(ctx, 10*time.Second)
		_, err := c.PutObject(pctx, &s3.PutObjectInput{Bucket: aws.String(bucket), Key: key, Body: strings.NewReader("probe")})
		if err == nil {
			_, err = c.DeleteObject(pctx, &s3.DeleteObjectInput{Bucket: aws.String(bucket), Key: key})
		}
		pcancel()
		if err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("s3test: bucket %s takes no write after %s: %v", bucket, readyTimeout, err)
		case <-time.After(200 * time.Millisecond):
		}
	}
}

func (s *Store) logTail() string {
	b, err := os.ReadFile(filepath.Join(s.dir, "weed.log"))
	if err != nil {
		return err.Error()
	}
	if len(b) > logTail {
		b = b[len(b)-logTail:]
	}
	return strings.TrimSpace(string(b))
}

// writeIdentities writes weed's S3 identity file: one identity allowed
// everything, so requests are SigV4-checked as on a real deployment.
func writeIdentities(path, access, secret string) error {
	type cred struct {
		AccessKey string `json:"accessKey"`
		SecretKey string `json:"secretKey"`
	}
	type identity struct {
		Name        string   `json:"name"`
		Credentials []cred   `json:"credentials"`
		Actions     []string `json:"actions"`
	}
	cfg := struct {
		Identities []identity `json:"identities"`
	}{[]identity{{
		Name:        "floe-test",
		Credentials: []cred{{access, secret}},
		Actions:     []string{"Admin", "Read", "List", "Tagging", "Write"},
	}}}
	b, err := json.Marshal(cfg)
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o600)
}

// freePorts reserves n distinct loopback ports at once and releases them
// together, so no two services are handed the same one.
func freePorts(n int) ([]int, error) {
	ls := make([]net.Listener, 0, n)
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	ports := make([]int, 0, n)
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

// CPUTime is the CPU time the store's weed process has used so far, so a
// benchmark can tell the store's own work from the client's.
func (s *Store) CPUTime() (time.Duration, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd == nil {
		return 0, errors.New("s3test: store not running")
	}
	return cpuTime(s.cmd.Process.Pid)
}

// Freeze suspends the store process (SIGSTOP): connections stay open and
// every request hangs unanswered, as on a store that stalls, until Thaw.
// Tests use it to hold a request at its storage step.
func (s *Store) Freeze() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd == nil {
		return errors.New("s3test: store not running")
	}
	return signalStore(s.cmd.Process.Pid, true)
}

// Thaw resumes a frozen store (SIGCONT).
func (s *Store) Thaw() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd == nil {
		return errors.New("s3test: store not running")
	}
	return signalStore(s.cmd.Process.Pid, false)
}
