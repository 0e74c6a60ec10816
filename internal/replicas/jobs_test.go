package replicas_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/floe/floe/internal/replicas"
)

// jobLease is floe's default job lease (plugin.Options.JobLease); a dead
// replica's jobs are settled by another one within it plus a claim tick.
const jobLease = 15 * time.Second

// getTask reads one task through a replica's task API.
func getTask(t *testing.T, c *replicas.Cluster, r *replicas.Replica, bucket, table, id string) map[string]any {
	t.Helper()
	req, _ := http.NewRequest("GET", r.Lance+"/lance/oss/v1/table/"+table+"/tasks/"+id, nil)
	req.Host = bucket + ".localhost"
	req.Header.Set("x-api-key", c.APIKey)
	got := do(t, http.DefaultClient, req)
	if got.status != 200 {
		t.Fatalf("get task on replica %d: %d %s", r.Index, got.status, got.body)
	}
	var out struct {
		TaskInfo map[string]any `json:"task_info"`
	}
	if err := json.Unmarshal([]byte(got.body), &out); err != nil || out.TaskInfo == nil {
		t.Fatalf("task answer %s: %v", got.body, err)
	}
	return out.TaskInfo
}

func taskID(t *testing.T, got reply) string {
	t.Helper()
	if got.status != 200 {
		t.Fatalf("submit: %d %s", got.status, got.body)
	}
	var out struct {
		TaskID string `json:"task_id"`
	}
	if err := json.Unmarshal([]byte(got.body), &out); err != nil || out.TaskID == "" {
		t.Fatalf("submit answer %s: %v", got.body, err)
	}
	return out.TaskID
}

// jobOf reads the plugin job behind a task straight from the database.
type jobRow struct {
	id, state, worker, owner, errText string
	attempts                          int
	sends                             int // "attempt N sent" lines in its log
}

func jobOf(t *testing.T, db *sql.DB, task string) (jobRow, bool) {
	t.Helper()
	var j jobRow
	err := db.QueryRowContext(context.Background(), `SELECT j.id, j.state, j.worker_id, j.owner, j.error, j.attempts,
		(SELECT COUNT(*) FROM plugin_job_events e WHERE e.job_id = j.id AND e.message LIKE 'attempt % sent to %')
		FROM plugin_jobs j JOIN lance_tasks t ON t.job_id = j.id WHERE t.id = $1`, task).
		Scan(&j.id, &j.state, &j.worker, &j.owner, &j.errText, &j.attempts, &j.sends)
	if err == sql.ErrNoRows {
		return j, false
	}
	if err != nil {
		t.Fatal(err)
	}
	return j, true
}

// TestJobsAcrossReplicas: only replica A runs the bundled workers. A
// compaction submitted through B's task API runs exactly once on A's
// worker; then A is killed (-9, workers and all) while its worker runs a
// vector index build, and B settles that task with a sentence within the
// job lease instead of leaving it running forever.
func TestJobsAcrossReplicas(t *testing.T) {
	c := replicas.Start(t, replicas.Options{N: 2, WithWorker: []int{0}})
	a, b := c.Replicas[0], c.Replicas[1]
	db := openDB(t, c)
	// A's bundled worker seeds the demo table demo/docs/docs (12 appends).
	eventually(t, 4*time.Minute, "demo data seeded", func() (bool, string) {
		_, err := os.Stat(filepath.Join(a.Data, ".demo-seeded"))
		return err == nil, "no .demo-seeded marker yet"
	})

	t.Run("compaction submitted on B runs once on A's worker", func(t *testing.T) {
		id := taskID(t, submitTask(t, c, b, "demo", "docs$docs", "compact", `{}`))
		eventually(t, 2*time.Minute, "compaction completed", func() (bool, string) {
			info := getTask(t, c, b, "demo", "docs$docs", id)
			if info["status"] == "failed" {
				t.Fatalf("task failed: %v", info["error"])
			}
			return info["status"] == "completed", fmt.Sprint("status ", info["status"])
		})
		j, ok := jobOf(t, db, id)
		if !ok {
			t.Fatal("the task has no job")
		}
		if j.state != "succeeded" || j.attempts != 1 || j.sends != 1 || !strings.HasPrefix(j.worker, "bundled-lance-") {
			t.Fatalf("job %+v: want succeeded once on A's bundled Lance worker", j)
		}
	})

	t.Run("kill -9 A while its worker runs a job", func(t *testing.T) {
		id := taskID(t, submitTask(t, c, b, "demo", "docs$docs", "create_vector_index",
			`{"column":"vector","index_type":"IVF_PQ","num_partitions":32,"num_sub_vectors":16,"max_iterations":50}`))
		eventually(t, time.Minute, "job sent to A's worker", func() (bool, string) {
			j, ok := jobOf(t, db, id)
			if j.state == "succeeded" || j.state == "failed" {
				t.Fatalf("the job ended (%s) before the test could kill its replica; make it longer", j.state)
			}
			return ok && (j.state == "assigned" || j.state == "running"), "job " + j.state
		})
		a.Kill()
		killed := time.Now()
		var info map[string]any
		eventually(t, jobLease+30*time.Second, "B settles the task", func() (bool, string) {
			info = getTask(t, c, b, "demo", "docs$docs", id)
			return info["status"] == "failed" || info["status"] == "completed", fmt.Sprint("status ", info["status"])
		})
		t.Logf("task %s %v %s after the kill (lease %s)", id, info["status"], time.Since(killed).Round(100*time.Millisecond), jobLease)
		errObj, _ := info["error"].(map[string]any)
		if info["status"] != "failed" || !strings.Contains(fmt.Sprint(errObj["message"]), "stopped renewing its lease") {
			t.Fatalf("task %v: want failed with the lease sentence, got %v", info["status"], info["error"])
		}
		if j, _ := jobOf(t, db, id); j.state != "failed" || j.owner == "" {
			t.Fatalf("job after takeover: %+v", j)
		}
	})
}
