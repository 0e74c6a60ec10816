package s3test

import (
	"bufio"
	"bytes"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
)

// waitScript is the readiness check `make run-s3` (scripts/run-s3.sh) runs
// before it starts floe.
const waitScript = "../../scripts/s3-wait.sh"

// scriptRun is scripts/s3-wait.sh running, with its output collected.
type scriptRun struct {
	mu    sync.Mutex
	lines []string
	seen  chan struct{} // signalled on every new line
	done  chan error
}

func startWait(t *testing.T, st *Store, bucket, timeout string) *scriptRun {
	t.Helper()
	cmd := exec.Command("bash", waitScript, st.Endpoint, bucket, timeout)
	cmd.Env = append(cmd.Environ(), "AWS_ACCESS_KEY_ID="+st.AccessKey, "AWS_SECRET_ACCESS_KEY="+st.SecretKey, "AWS_REGION="+Region)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r := &scriptRun{seen: make(chan struct{}, 1), done: make(chan error, 1)}
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			r.mu.Lock()
			r.lines = append(r.lines, sc.Text())
			r.mu.Unlock()
			select {
			case r.seen <- struct{}{}:
			default:
			}
		}
		err := cmd.Wait()
		r.mu.Lock()
		if s := strings.TrimSpace(stderr.String()); s != "" {
			r.lines = append(r.lines, s)
		}
		r.mu.Unlock()
		r.done <- err
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-r.done
	})
	return r
}

func (r *scriptRun) output() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return strings.Join(r.lines, "\n")
}

// waitLine waits until the script has printed a line containing s.
func (r *scriptRun) waitLine(t *testing.T, s string) {
	t.Helper()
	deadline := time.After(60 * time.Second)
	for !strings.Contains(r.output(), s) {
		select {
		case <-r.seen:
		case err := <-r.done:
			r.done <- err
			if !strings.Contains(r.output(), s) {
				t.Fatalf("s3-wait ended (%v) without printing %q:\n%s", err, s, r.output())
			}
		case <-deadline:
			t.Fatalf("s3-wait never printed %q:\n%s", s, r.output())
		}
	}
}

// Hardening item 12: `make run-s3` started floe as soon as the store's port
// answered, seconds before SeaweedFS had made the bucket, and floe refused
// the store. The readiness check now waits for the bucket itself: a store
// that answers without it is waited out, the bucket's arrival ends the
// wait with success, and a bucket that never comes fails it with a sentence.
func TestHardening12RunS3WaitsForTheBucket(t *testing.T) {
	st := New(t)

	t.Run("store up, bucket not yet", func(t *testing.T) {
		const bucket = "floe-late"
		r := startWait(t, st, bucket, "60")
		r.waitLine(t, "waiting for it to make bucket "+bucket)
		select {
		case err := <-r.done:
			t.Fatalf("s3-wait ended (%v) while the bucket did not exist:\n%s", err, r.output())
		default:
		}
		if _, err := st.Client().CreateBucket(t.Context(), &s3.CreateBucketInput{Bucket: aws.String(bucket)}); err != nil {
			t.Fatal(err)
		}
		select {
		case err := <-r.done:
			r.done <- err
			if err != nil {
				t.Fatalf("s3-wait after the bucket was made: %v\n%s", err, r.output())
			}
		case <-time.After(60 * time.Second):
			t.Fatalf("s3-wait did not see the bucket:\n%s", r.output())
		}
		if !strings.Contains(r.output(), "bucket "+bucket+" on "+st.Endpoint+" answers") {
			t.Errorf("no ready line:\n%s", r.output())
		}
	})

	t.Run("bucket never made", func(t *testing.T) {
		r := startWait(t, st, "floe-never", "1")
		err := <-r.done
		r.done <- err
		if err == nil || !strings.Contains(r.output(), "did not answer within 1s") {
			t.Fatalf("s3-wait on a missing bucket = %v, want a failure with a sentence:\n%s", err, r.output())
		}
	})
}
