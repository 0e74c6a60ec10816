package tasks

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/fault"
)

func TestSubmitStoresSubmittedTask(t *testing.T) {
	store := openStore(t, t.TempDir())
	tb := lanceTable(t, store, "mybucket", "ns", "tbl")
	s := newService(t, store, nil)
	task := mustSubmit(t, s, tb, TypeCompact, `{"compaction_mode": "try_binary_copy", "junk": 1}`)
	if !ValidTaskID(task.ID) {
		t.Fatalf("task id %q is not 32 hex", task.ID)
	}
	got := mustGet(t, s, tb.ID, task.ID)
	if got.Status != StatusSubmitted || got.JobID != "" || !got.StartedAt.IsZero() || !got.CompletedAt.IsZero() || got.Error != nil {
		t.Fatalf("fresh task = %+v", got)
	}
	if got.Params["compaction_mode"] != "try_binary_copy" || got.Params["target_rows_per_fragment"] == nil || got.Params["junk"] != nil {
		t.Fatalf("params = %v", got.Params)
	}
	if len(got.Result) != 0 {
		t.Fatalf("result = %v, want {}", got.Result)
	}
	if !got.CreatedAt.Equal(task.CreatedAt) {
		t.Fatalf("created_at stored %v, returned %v", got.CreatedAt, task.CreatedAt)
	}
	if _, err := s.Submit(context.Background(), tb, TypeCleanup, []byte(`{}`)); !errors.Is(err, fault.Invalid) {
		t.Fatalf("invalid cleanup = %v, want fault.Invalid", err)
	}
	if _, err := s.Submit(context.Background(), tb, Type("lance_bogus"), nil); !errors.Is(err, fault.Invalid) {
		t.Fatalf("bogus type = %v, want fault.Invalid", err)
	}
}

func TestDeleteByState(t *testing.T) {
	store := openStore(t, t.TempDir())
	tb := lanceTable(t, store, "mybucket", "ns", "tbl")
	r := &fakeRunner{}
	s := newService(t, store, r)
	ctx := context.Background()
	submitted := mustSubmit(t, s, tb, TypeCompact, "")
	running := mustSubmit(t, s, tb, TypeCompact, "")
	completed := mustSubmit(t, s, tb, TypeCompact, "")
	failed := mustSubmit(t, s, tb, TypeCompact, "")
	for _, u := range []JobUpdate{
		{JobID: mustGet(t, s, tb.ID, running.ID).JobID, State: "running"},
		{JobID: mustGet(t, s, tb.ID, completed.ID).JobID, State: "completed"},
		{JobID: mustGet(t, s, tb.ID, failed.ID).JobID, State: "failed", Error: "boom"},
	} {
		if ok, err := s.OnJobUpdate(ctx, u); !ok || err != nil {
			t.Fatalf("OnJobUpdate(%+v) = %v, %v", u, ok, err)
		}
	}
	cases := []struct {
		name string
		id   string
		want error
	}{
		{"submitted", submitted.ID, fault.Conflict},
		{"running", running.ID, fault.Conflict},
		{"completed", completed.ID, nil},
		{"failed", failed.ID, nil},
		{"completed again", completed.ID, fault.NotFound},
		{"unknown", strings.Repeat("a", 32), fault.NotFound},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := s.Delete(ctx, tb.ID, c.id)
			if c.want == nil && err != nil || c.want != nil && !errors.Is(err, c.want) {
				t.Fatalf("Delete = %v, want %v", err, c.want)
			}
		})
	}
	other := lanceTable(t, store, "mybucket", "ns", "other")
	if err := s.Delete(ctx, other.ID, submitted.ID); !errors.Is(err, fault.NotFound) {
		t.Fatalf("delete through another table = %v, want fault.NotFound", err)
	}
}

func TestTasksBelongToTableID(t *testing.T) {
	store := openStore(t, t.TempDir())
	tb := lanceTable(t, store, "mybucket", "ns", "tbl")
	s := newService(t, store, nil)
	ctx := context.Background()
	old := mustSubmit(t, s, tb, TypeCompact, "")
	ref := catalog.TableRef{Bucket: "mybucket", Namespace: []string{"ns"}, Name: "tbl"}
	if _, err := store.DropTable(ctx, ref); err != nil {
		t.Fatalf("DropTable: %v", err)
	}
	again := lanceTable(t, store, "mybucket", "ns", "tbl")
	if again.ID == tb.ID {
		t.Fatal("re-created table kept its id")
	}
	if _, err := s.Get(ctx, again.ID, old.ID); !errors.Is(err, fault.NotFound) {
		t.Fatalf("old task through new table = %v, want fault.NotFound", err)
	}
	list, next, err := s.List(ctx, again.ID, ListOptions{Type: TypeCompact})
	if err != nil || len(list) != 0 || next != "" {
		t.Fatalf("List on re-created table = %d tasks, %q, %v", len(list), next, err)
	}
}

func TestListPages(t *testing.T) {
	store := openStore(t, t.TempDir())
	tb := lanceTable(t, store, "mybucket", "ns", "tbl")
	s := newService(t, store, nil)
	// A frozen clock gives every task the same created_at, so the order
	// rests on the id tie-break alone.
	frozen := time.Date(2026, 1, 2, 3, 4, 5, 678901000, time.UTC)
	s.now = func() time.Time { return frozen }
	want := map[string]bool{}
	for range 25 {
		want[mustSubmit(t, s, tb, TypeCleanup, `{"retain_versions": 1}`).ID] = true
	}
	mustSubmit(t, s, tb, TypeCompact, "") // another type: never listed here
	seen := map[string]bool{}
	marker, prev := "", ""
	for pages := 0; ; pages++ {
		list, next, err := s.List(context.Background(), tb.ID, ListOptions{Type: TypeCleanup, Marker: marker, Limit: 7})
		if err != nil {
			t.Fatalf("List: %v", err)
		}
		for _, task := range list {
			if prev != "" && task.ID >= prev {
				t.Fatalf("not newest first: %s after %s", task.ID, prev)
			}
			prev = task.ID
			if seen[task.ID] || !want[task.ID] {
				t.Fatalf("task %s repeated or foreign", task.ID)
			}
			seen[task.ID] = true
		}
		if next == "" {
			if pages != 3 {
				t.Fatalf("%d pages, want 4", pages+1)
			}
			break
		}
		marker = next
	}
	if len(seen) != 25 {
		t.Fatalf("listed %d of 25", len(seen))
	}
	for _, m := range []string{"garbage", "dDE6MTox", encodeMarker(1, "zz")} {
		if _, _, err := s.List(context.Background(), tb.ID, ListOptions{Type: TypeCleanup, Marker: m}); !errors.Is(err, fault.Invalid) {
			t.Errorf("marker %q = %v, want fault.Invalid", m, err)
		}
	}
}

func TestQuotaUnderConcurrentSubmitters(t *testing.T) {
	store := openStore(t, t.TempDir())
	tb := lanceTable(t, store, "mybucket", "ns", "tbl")
	s := newService(t, store, &fakeRunner{})
	// 960 stored already; 32 submitters make 3 attempts each for the last 40
	// places, so the race is at the boundary where the quota matters.
	const stored0, submitters, each = 960, 32, 3
	fill(t, s, tb.ID, TypeCompact, stored0, StatusSubmitted)
	var (
		mu       sync.Mutex
		accepted []string
		refused  int
		wg       sync.WaitGroup
	)
	for range submitters {
		wg.Go(func() {
			for range each {
				task, err := s.Submit(context.Background(), tb, TypeCompact, nil)
				mu.Lock()
				switch {
				case err == nil:
					accepted = append(accepted, task.ID)
				case errors.Is(err, fault.Quota):
					refused++
				default:
					t.Errorf("Submit: %v", err)
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if stored0+len(accepted) > MaxTasksPerType || len(accepted)+refused != submitters*each {
		t.Fatalf("accepted %d, refused %d of %d; quota %d", len(accepted), refused, submitters*each, MaxTasksPerType)
	}
	if stored0+len(accepted) < MaxTasksPerType {
		t.Fatalf("accepted only %d; the quota should fill", len(accepted))
	}
	for _, id := range accepted {
		mustGet(t, s, tb.ID, id)
	}
	var stored int
	if err := dbOf(store).QueryRowContext(context.Background(), `SELECT COUNT(*) FROM lance_tasks WHERE table_id = ? AND task_type = ?`, tb.ID, TypeCompact).Scan(&stored); err != nil || stored != stored0+len(accepted) {
		t.Fatalf("stored %d (%v), accepted %d", stored, err, len(accepted))
	}
	// Another type and another table have their own room.
	mustSubmit(t, s, tb, TypeCleanup, `{"older_than": "1d"}`)
	other := lanceTable(t, store, "mybucket", "ns", "other")
	mustSubmit(t, s, other, TypeCompact, "")
	// Finishing and deleting a task frees its place.
	if _, err := s.Submit(context.Background(), tb, TypeCompact, nil); !errors.Is(err, fault.Quota) {
		t.Fatalf("over quota = %v", err)
	}
	first := mustGet(t, s, tb.ID, accepted[0])
	if ok, err := s.OnJobUpdate(context.Background(), JobUpdate{JobID: first.JobID, State: "succeeded"}); !ok || err != nil {
		t.Fatalf("complete: %v %v", ok, err)
	}
	if err := s.Delete(context.Background(), tb.ID, first.ID); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	mustSubmit(t, s, tb, TypeCompact, "")
}
