package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/persist/pgtest"
)

// replicaWait bounds each wait on a replica (start, readiness, recovery):
// far beyond what any step needs, so only a hang trips it.
const replicaWait = 60 * time.Second

type replica struct {
	http, lance string
	done        chan error
}

// startReplica runs `floe serve --catalog dsn` in-process with its own data
// directory and the shared warehouse on ports it binds itself, and waits
// until it is ready.
func startReplica(t *testing.T, ctx context.Context, dsn, warehouse string) *replica {
	t.Helper()
	s := startServe(t, ctx, "--data", t.TempDir(), "--catalog", dsn, "--warehouse", warehouse,
		"--iceberg", "", "--s3tables", "", "--lance-anonymous")
	r := &replica{http: s.addrs["http"], lance: s.addrs["lance"], done: s.done}
	r.waitReady(t, http.StatusOK)
	return r
}

// readyz answers the replica's /readyz status and body.
func (r *replica) readyz() (int, string) {
	resp, err := http.Get("http://" + r.http + "/readyz")
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func (r *replica) waitReady(t *testing.T, want int) string {
	t.Helper()
	deadline := time.Now().Add(replicaWait)
	for {
		select {
		case err := <-r.done:
			t.Fatalf("replica ended: %v", err)
		default:
		}
		code, body := r.readyz()
		if code == want {
			return body
		}
		if time.Now().After(deadline) {
			t.Fatalf("/readyz answers %d %q, want %d", code, body, want)
		}
		time.Sleep(50 * time.Millisecond) // polling interval, not an assertion
	}
}

// createBucket asks a replica's Lance REST for a bucket: the status and body.
func (r *replica) createBucket(name string) (int, string) {
	resp, err := http.Post("http://"+r.lance+"/v1/namespace/"+name+"/create", "application/json", strings.NewReader(`{}`))
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestReplicasSurvivePostgresRestart: two replicas on one PostgreSQL take
// writes from a loop alternating between them while the server is stopped
// and started again. While it is down both say not ready with a reason and
// writes answer 503 with a sentence (never another 5xx); afterwards both
// are ready again on their own, and every write that was answered 2xx is in
// the database. It restarts the package's shared server: not parallel.
func TestReplicasSurvivePostgresRestart(t *testing.T) {
	dsn, dir := pgtest.DSN(t), t.TempDir()
	wh := filepath.Join(dir, "warehouse")
	ctx, cancel := context.WithCancel(context.Background())
	reps := []*replica{startReplica(t, ctx, dsn, wh), startReplica(t, ctx, dsn, wh)}
	t.Cleanup(func() {
		cancel()
		for _, r := range reps {
			<-r.done
		}
	})

	var (
		mu       sync.Mutex
		acked    []string
		refused  int // 503s
		problems []string
		stop     = make(chan struct{})
		stopped  = make(chan struct{})
	)
	counts := func() (int, int) { mu.Lock(); defer mu.Unlock(); return len(acked), refused }
	go func() {
		defer close(stopped)
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			name := fmt.Sprintf("w%05d", i)
			code, body := reps[i%2].createBucket(name)
			mu.Lock()
			switch {
			case code >= 200 && code < 300:
				acked = append(acked, name)
			case code == http.StatusServiceUnavailable:
				refused++
				if !strings.Contains(body, "unavailable") && !strings.Contains(body, "unreachable") {
					problems = append(problems, "503 without a sentence: "+body)
				}
			case code >= 500:
				problems = append(problems, fmt.Sprintf("%s: %d %s", name, code, body))
			}
			mu.Unlock()
			time.Sleep(5 * time.Millisecond) // pace: a few hundred writes over the test
		}
	}()
	waitCount := func(what string, cond func(acked, refused int) bool) {
		t.Helper()
		deadline := time.Now().Add(replicaWait)
		for a, r := counts(); !cond(a, r); a, r = counts() {
			if time.Now().After(deadline) {
				t.Fatalf("timed out waiting for %s (acked %d, refused %d)", what, a, r)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	waitCount("writes before the stop", func(a, _ int) bool { return a >= 10 })
	var ackedBefore int
	pgtest.Restart(t, func() {
		for i, r := range reps {
			body := r.waitReady(t, http.StatusServiceUnavailable)
			if !strings.Contains(body, "database") {
				t.Errorf("replica %d /readyz while PostgreSQL is down says %q, want the database named", i, body)
			}
		}
		waitCount("a 503 while PostgreSQL is down", func(_, r int) bool { return r > 0 })
		ackedBefore, _ = counts()
	})
	for _, r := range reps {
		r.waitReady(t, http.StatusOK)
	}
	waitCount("writes after the restart", func(a, _ int) bool { return a >= ackedBefore+10 })
	close(stop)
	<-stopped

	mu.Lock()
	defer mu.Unlock()
	for _, p := range problems {
		t.Error(p)
	}
	st, err := catalog.Open(context.Background(), catalog.Options{Path: dsn, Warehouse: wh})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for _, name := range acked {
		if _, err := st.GetBucket(context.Background(), name); err != nil {
			t.Errorf("bucket %s was acknowledged but is not in the database: %v", name, err)
		}
	}
	t.Logf("%d writes acknowledged (all found), %d refused with 503 while PostgreSQL was down", len(acked), refused)
}
