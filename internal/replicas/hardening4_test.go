package replicas_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/floe/floe/internal/replicas"
	"github.com/floe/floe/internal/s3test"
	"github.com/floe/floe/persist/pgtest"
)

// icebergSchema is the smallest schema a CreateTable needs.
const icebergSchema = `{"type":"struct","schema-id":0,"fields":[{"id":1,"name":"id","type":"long","required":true}]}`

// icebergNS is the Iceberg REST of one replica, for bucket hb4 and namespace ns.
type icebergNS struct {
	c      *replicas.Cluster
	base   string
	client *http.Client
}

func icebergOn(c *replicas.Cluster, r *replicas.Replica) icebergNS {
	return icebergNS{c: c, base: r.Iceberg + "/v1/hb4/namespaces/ns", client: &http.Client{Timeout: 60 * time.Second}}
}

func (n icebergNS) do(method, path, body string) (reply, error) {
	req, err := http.NewRequest(method, n.base+path, strings.NewReader(body))
	if err != nil {
		return reply{}, err
	}
	req.Header.Set("x-api-key", n.c.APIKey)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := n.client.Do(req)
	if err != nil {
		return reply{}, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return reply{resp.StatusCode, string(b)}, err
}

func (n icebergNS) create(name string) (reply, error) {
	return n.do("POST", "/tables", `{"name":"`+name+`","schema":`+icebergSchema+`}`)
}

func (n icebergNS) list(t *testing.T) []string {
	t.Helper()
	var names []string
	token := ""
	for {
		var r reply
		eventually(t, 30*time.Second, "list tables", func() (bool, string) {
			var err error
			r, err = n.do("GET", "/tables?pageSize=1000&pageToken="+token, "")
			return err == nil && r.status == http.StatusOK, fmt.Sprintf("%v %d %s", err, r.status, r.body)
		})
		var out struct {
			Identifiers []struct {
				Name string `json:"name"`
			} `json:"identifiers"`
			Next string `json:"next-page-token"`
		}
		if err := json.Unmarshal([]byte(r.body), &out); err != nil {
			t.Fatalf("list tables: %v: %s", err, r.body)
		}
		for _, id := range out.Identifiers {
			names = append(names, id.Name)
		}
		if out.Next == "" {
			return names
		}
		token = url.QueryEscape(out.Next)
	}
}

// checkNoWedgedName: every listed name loads, and every name that was
// tried but is not listed can be created now — no name is listed yet
// unloadable, or refused by create while absent from the list.
func (n icebergNS) checkNoWedgedName(t *testing.T, tried []string) {
	t.Helper()
	listed := n.list(t)
	for _, name := range listed {
		if r, err := n.do("GET", "/tables/"+name, ""); err != nil || r.status != http.StatusOK {
			t.Errorf("table %s is listed but LoadTable answers %d %s (err %v): a wedged name", name, r.status, r.body, err)
		}
	}
	for _, name := range tried {
		if slices.Contains(listed, name) {
			continue
		}
		if r, err := n.create(name); err != nil || r.status != http.StatusOK {
			t.Errorf("table %s is not listed but CreateTable answers %d %s (err %v): a wedged name", name, r.status, r.body, err)
		}
	}
}

// Hardening item 4: a kill -9 of a replica or a PostgreSQL outage in the
// middle of Iceberg CreateTable must never leave a name that is listed but
// answers 404 to load and drop and 409 to create. The entry and its first
// metadata file commit together. Run on two replicas on PostgreSQL with an
// S3 warehouse on a real SeaweedFS, whose process the test can freeze to
// hold a create at its storage step.
func TestHardening4InterruptedIcebergCreateLeavesNoWedgedName(t *testing.T) {
	st := s3test.New(t)
	bucket := st.Bucket(t)
	c := replicas.Start(t, replicas.Options{N: 2,
		Args: []string{"--warehouse", "s3://" + bucket + "/wh", "--s3-endpoint", st.Endpoint, "--s3-region", s3test.Region, "--s3-path-style"},
		Env:  []string{"AWS_ACCESS_KEY_ID=" + st.AccessKey, "AWS_SECRET_ACCESS_KEY=" + st.SecretKey}})
	a, b := c.Replicas[0], c.Replicas[1]
	if out, err := c.CLI("bucket", "create", "hb4", "--format", "iceberg"); err != nil {
		t.Fatalf("floe bucket create: %v\n%s", err, out)
	}
	if got := call(t, c, "POST", b.Iceberg+"/v1/hb4/namespaces", `{"namespace":["ns"]}`); got.status != http.StatusOK {
		t.Fatalf("create namespace: %d %s", got.status, got.body)
	}
	onA, onB := icebergOn(c, a), icebergOn(c, b)
	var tried []string

	t.Run("kill -9 while the create waits on storage", func(t *testing.T) {
		for i := range 2 {
			name := fmt.Sprintf("frozen%d", i)
			tried = append(tried, name)
			if err := st.Freeze(); err != nil {
				t.Fatal(err)
			}
			answered := make(chan reply, 1)
			go func() {
				r, err := onA.create(name)
				if err != nil {
					r = reply{0, err.Error()}
				}
				answered <- r
			}()
			// Not an assertion: a hold long enough for the create to reach
			// its metadata write, which the frozen store never answers.
			time.Sleep(1500 * time.Millisecond)
			select {
			case r := <-answered:
				t.Logf("create %s answered %d %s before the kill", name, r.status, r.body)
			default:
			}
			a.Kill()
			if err := st.Thaw(); err != nil {
				t.Fatal(err)
			}
			onB.checkNoWedgedName(t, tried)
			if err := a.Start(); err != nil {
				t.Fatalf("restart replica 0: %v\n%s", err, a.Log())
			}
			onA = icebergOn(c, a)
			onA.checkNoWedgedName(t, tried)
		}
	})

	// burst runs creators against one replica until stop is closed.
	burst := func(n icebergNS, prefix string, stop <-chan struct{}) []string {
		var mu sync.Mutex
		var names []string
		var wg sync.WaitGroup
		for w := range 4 {
			wg.Go(func() {
				for i := 0; ; i++ {
					select {
					case <-stop:
						return
					default:
					}
					name := fmt.Sprintf("%s%d_%d", prefix, w, i)
					mu.Lock()
					names = append(names, name)
					mu.Unlock()
					if _, err := n.create(name); err != nil {
						time.Sleep(50 * time.Millisecond) // replica down: back off
					}
				}
			})
		}
		wg.Wait()
		return names
	}

	t.Run("kill -9 during a burst of creates", func(t *testing.T) {
		for round := range 3 {
			stop := make(chan struct{})
			done := make(chan []string, 1)
			n := onA
			go func() { done <- burst(n, fmt.Sprintf("k%d_", round), stop) }()
			time.Sleep(700 * time.Millisecond) // creates in flight when the kill lands
			a.Kill()
			close(stop)
			tried = append(tried, <-done...)
			if err := a.Start(); err != nil {
				t.Fatalf("restart replica 0: %v\n%s", err, a.Log())
			}
			onA = icebergOn(c, a)
		}
		onB.checkNoWedgedName(t, tried)
	})

	t.Run("PostgreSQL stopped during a burst of creates", func(t *testing.T) {
		stop := make(chan struct{})
		done := make(chan []string, 1)
		go func() { done <- burst(onB, "pg_", stop) }()
		time.Sleep(time.Second)
		pgtest.Restart(t, nil)
		close(stop)
		tried = append(tried, <-done...)
		eventually(t, 60*time.Second, "replicas ready after the database restart", func() (bool, string) {
			return a.Ready() && b.Ready(), "not ready"
		})
		onA.checkNoWedgedName(t, tried)
	})

	// Listed tables also drop, purge included (a sample: each is a purge).
	listed := onB.list(t)
	t.Logf("%d creates tried, %d tables listed", len(tried), len(listed))
	if len(listed) == 0 {
		t.Fatal("no create succeeded: the test exercised nothing")
	}
	for _, name := range listed[:min(len(listed), 20)] {
		if r, err := onB.do("DELETE", "/tables/"+name+"?purgeRequested=true", ""); err != nil || r.status != http.StatusNoContent {
			t.Errorf("drop %s: %d %s (err %v)", name, r.status, r.body, err)
		}
	}
}
