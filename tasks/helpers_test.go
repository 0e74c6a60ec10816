package tasks

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"sync"
	"testing"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/fault"
	"github.com/floe/floe/observe"
	"github.com/floe/floe/persist"
	"github.com/floe/floe/persist/persisttest"
	"github.com/floe/floe/plugin"
)

// openStore opens the database in dir (reopening it when it exists) and a
// real catalog over it, both closed when the test ends.
func openStore(t testing.TB, dir string) *catalog.Store {
	t.Helper()
	db := persisttest.OpenAt(t, filepath.Join(dir, "catalog.db"), testMigrations()...)
	s, err := catalog.New(db, catalog.Options{Warehouse: filepath.Join(dir, "warehouse")})
	if err != nil {
		t.Fatalf("catalog.New: %v", err)
	}
	testDBs.Store(s, db)
	t.Cleanup(func() { testDBs.Delete(s); s.Close() })
	return s
}

// testMigrations are the owners floe serve's composition root migrates that the
// task service's tests use.
func testMigrations() []persist.Schema {
	return []persist.Schema{catalog.Migrations(), observe.Migrations(), plugin.Migrations(), Migrations()}
}

// testDBs remembers the database under each test's catalog, so a test
// builds the service over the same handle as floe serve does.
var testDBs sync.Map // *catalog.Store → *persist.DB

func dbOf(s *catalog.Store) *persist.DB {
	db, _ := testDBs.Load(s)
	return db.(*persist.DB)
}

// newService builds the task service over the catalog's database.
func newService(t testing.TB, store *catalog.Store, runner JobRunner) *Service {
	t.Helper()
	s, err := New(dbOf(store), store, runner, nil)
	if err != nil {
		t.Fatalf("tasks.New: %v", err)
	}
	if err := s.Load(context.Background()); err != nil {
		t.Fatalf("tasks Load: %v", err)
	}
	return s
}

// lanceTable creates bucket/ns/name as a Lance table, making the bucket and
// namespace when missing.
func lanceTable(t testing.TB, s *catalog.Store, bucket, ns, name string) catalog.Table {
	t.Helper()
	ctx := context.Background()
	if _, err := s.CreateBucket(ctx, catalog.CreateBucketInput{Name: bucket, Format: catalog.FormatLance}); err != nil && !errors.Is(err, fault.AlreadyExists) {
		t.Fatalf("CreateBucket: %v", err)
	}
	if _, err := s.CreateNamespace(ctx, bucket, []string{ns}, nil); err != nil && !errors.Is(err, fault.AlreadyExists) {
		t.Fatalf("CreateNamespace: %v", err)
	}
	tb, _, err := s.CreateTable(ctx, catalog.CreateTableInput{
		TableRef: catalog.TableRef{Bucket: bucket, Namespace: []string{ns}, Name: name}, Format: catalog.FormatLance})
	if err != nil {
		t.Fatalf("CreateTable: %v", err)
	}
	return tb
}

// fakeRunner records what it was given and answers job ids job-1, job-2...
type fakeRunner struct {
	mu     sync.Mutex
	jobs   []fakeJob
	fail   error              // when set, SubmitJob refuses
	during func(jobID string) // called inside SubmitJob, before it returns
	prefix string             // job id prefix; "" = "job-"
}

type fakeJob struct {
	ID, Type, ObjectID string
	Params             map[string]string
}

func (f *fakeRunner) SubmitJob(ctx context.Context, jobType, objectID string, params map[string]string) (string, error) {
	f.mu.Lock()
	if f.fail != nil {
		f.mu.Unlock()
		return "", f.fail
	}
	prefix := f.prefix
	if prefix == "" {
		prefix = "job-"
	}
	id := fmt.Sprintf("%s%d", prefix, len(f.jobs)+1)
	f.jobs = append(f.jobs, fakeJob{ID: id, Type: jobType, ObjectID: objectID, Params: params})
	during := f.during
	f.mu.Unlock()
	if during != nil {
		during(id)
	}
	return id, nil
}

func (f *fakeRunner) submitted() []fakeJob {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]fakeJob(nil), f.jobs...)
}

func mustSubmit(t *testing.T, s *Service, tb catalog.Table, typ Type, body string) Task {
	t.Helper()
	task, err := s.Submit(context.Background(), tb, typ, []byte(body))
	if err != nil {
		t.Fatalf("Submit(%s, %s): %v", typ, body, err)
	}
	return task
}

func mustGet(t *testing.T, s *Service, tableID, id string) Task {
	t.Helper()
	task, err := s.Get(context.Background(), tableID, id)
	if err != nil {
		t.Fatalf("Get(%s): %v", id, err)
	}
	return task
}

// fill stores n tasks of typ for the table straight in SQL, one
// microsecond apart and older than anything Submit makes, so tests reach
// the quota without paying for n submissions under the race detector.
func fill(t *testing.T, s *Service, tableID string, typ Type, n int, status Status) {
	t.Helper()
	// One transaction of plain inserts, so the same code fills SQLite and
	// PostgreSQL.
	err := s.db.Write(context.Background(), func(tx *persist.Tx) error {
		st, err := tx.PrepareContext(context.Background(), `INSERT INTO lance_tasks
			(id, table_id, task_type, params, status, created_at) VALUES (?, ?, ?, '{}', ?, ?)`)
		if err != nil {
			return err
		}
		defer st.Close()
		for i := 1; i <= n; i++ {
			id := fmt.Sprintf("%016x%016x", rand.Uint64(), rand.Uint64())
			if _, err := st.ExecContext(context.Background(), id, tableID, string(typ), string(status), 1000000+i); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatalf("fill: %v", err)
	}
}

func catalogRef(name string) catalog.TableRef {
	return catalog.TableRef{Bucket: "mybucket", Namespace: []string{"ns"}, Name: name}
}
