package replicas_test

import (
	"context"
	"database/sql"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/floe/floe/internal/replicas"
	_ "github.com/jackc/pgx/v5/stdlib" // database/sql driver "pgx"
)

// openDB opens the cluster's database for checks the HTTP surfaces do not
// show (job owners, attempts, counts).
func openDB(t *testing.T, c *replicas.Cluster) *sql.DB {
	t.Helper()
	db, err := sql.Open("pgx", c.DSN)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// submitTask posts one task through a replica's task API and returns the
// status and body.
func submitTask(t *testing.T, c *replicas.Cluster, r *replicas.Replica, bucket, table, op, body string) reply {
	t.Helper()
	req, err := http.NewRequest("POST", r.Lance+"/lance/oss/v1/table/"+table+"/"+op, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Host = bucket + ".localhost"
	req.Header.Set("x-api-key", c.APIKey)
	req.Header.Set("Content-Type", "application/json")
	return do(t, http.DefaultClient, req)
}

// quotaRoom is how many tasks the test leaves below tasks.MaxTasksPerType
// (1000) before the submitters race for them.
const quotaRoom = 10

// TestQuotaAcrossReplicas: 32 submitters spread over two replicas race for
// the last places of a table's task quota; exactly the free places are
// taken, every other submission is refused with 429 and a sentence, never
// a 5xx.
func TestQuotaAcrossReplicas(t *testing.T) {
	c := replicas.Start(t, replicas.Options{N: 2})
	a := c.Replicas[0]
	for _, step := range []struct{ path, body string }{
		{"/v1/namespace/qbk/create", `{}`},
		{"/v1/namespace/qbk$ns/create", `{}`},
		{"/v1/table/qbk$ns$q1/declare", `{}`},
	} {
		if got := call(t, c, "POST", a.Lance+step.path, step.body); got.status != 200 {
			t.Fatalf("%s: %d %s", step.path, got.status, got.body)
		}
	}
	db := openDB(t, c)
	ctx := context.Background()
	var tableID string
	if err := db.QueryRowContext(ctx, `SELECT id FROM tables WHERE name = 'q1'`).Scan(&tableID); err != nil {
		t.Fatal(err)
	}
	// Fill the quota up to its last places with finished tasks.
	const limit = 1000
	now := time.Now().UnixMicro()
	for i := range limit - quotaRoom {
		if _, err := db.ExecContext(ctx, `INSERT INTO lance_tasks(id, table_id, task_type, status, created_at, completed_at)
			VALUES ($1, $2, 'lance_compact', 'completed', $3, $3)`, fmt.Sprintf("%032x", i), tableID, now); err != nil {
			t.Fatal(err)
		}
	}

	const submitters, each = 32, 2
	var mu sync.Mutex
	codes := map[int]int{}
	var wg sync.WaitGroup
	for i := range submitters {
		r := c.Replicas[i%2]
		wg.Go(func() {
			for range each {
				got := submitTask(t, c, r, "qbk", "ns$q1", "compact", `{}`)
				mu.Lock()
				codes[got.status]++
				mu.Unlock()
				if got.status != 200 && (got.status != http.StatusTooManyRequests || !strings.Contains(got.body, "delete finished tasks")) {
					t.Errorf("replica %d: %d %s", r.Index, got.status, got.body)
				}
			}
		})
	}
	wg.Wait()
	var stored int
	if err := db.QueryRowContext(ctx, `SELECT COUNT(*) FROM lance_tasks WHERE table_id = $1`, tableID).Scan(&stored); err != nil {
		t.Fatal(err)
	}
	t.Logf("answers: %v; stored %d", codes, stored)
	if stored != limit || codes[200] != quotaRoom || codes[http.StatusTooManyRequests] != submitters*each-quotaRoom {
		t.Fatalf("stored %d tasks (want %d), answers %v (want %d accepted, %d refused)",
			stored, limit, codes, quotaRoom, submitters*each-quotaRoom)
	}
}
